//! The nodes the routes side knows from the node informer: how to resolve each (resource group,
//! providerID), which are unmanaged (`kubernetes.azure.com/managed=false`, routes kept in memory
//! only), and the names whose legacy `<node>` routes a batch removes.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;

use ipnet::IpNet;

use crate::instances::NodeRef;

/// Known nodes and the in-memory routes of unmanaged ones.
#[derive(Debug, Default)]
pub struct NodeRegistry {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    nodes: BTreeMap<String, NodeRef>,
    unmanaged_routes: BTreeMap<String, BTreeSet<IpNet>>,
}

impl NodeRegistry {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Records (or refreshes) a node from the informer.
    pub fn upsert(&self, node: NodeRef) {
        let mut state = self.state();
        if node.managed {
            state.unmanaged_routes.remove(&node.name);
        }
        state.nodes.insert(node.name.clone(), node);
    }

    /// Forgets a deleted node and its in-memory routes.
    pub fn remove(&self, name: &str) {
        let mut state = self.state();
        state.nodes.remove(name);
        state.unmanaged_routes.remove(name);
    }

    /// The node as last seen, if the informer reported it.
    pub fn get(&self, name: &str) -> Option<NodeRef> {
        self.state().nodes.get(name).cloned()
    }

    /// True when the node is labelled unmanaged.
    pub fn is_unmanaged(&self, name: &str) -> bool {
        self.state().nodes.get(name).is_some_and(|n| !n.managed)
    }

    /// Every known node name.
    pub fn names(&self) -> BTreeSet<String> {
        self.state().nodes.keys().cloned().collect()
    }

    /// Remembers an unmanaged node's route.
    pub fn add_unmanaged_route(&self, node: &str, cidr: IpNet) {
        self.state()
            .unmanaged_routes
            .entry(node.to_string())
            .or_default()
            .insert(cidr);
    }

    /// Forgets an unmanaged node's route.
    pub fn remove_unmanaged_route(&self, node: &str, cidr: &IpNet) {
        let mut state = self.state();
        if let Some(cidrs) = state.unmanaged_routes.get_mut(node) {
            cidrs.remove(cidr);
            if cidrs.is_empty() {
                state.unmanaged_routes.remove(node);
            }
        }
    }

    /// The in-memory routes of nodes still known as unmanaged: (node, CIDR).
    pub fn unmanaged_routes(&self) -> Vec<(String, IpNet)> {
        let state = self.state();
        state
            .unmanaged_routes
            .iter()
            .filter(|(node, _)| state.nodes.get(*node).is_some_and(|n| !n.managed))
            .flat_map(|(node, cidrs)| cidrs.iter().map(|c| (node.clone(), *c)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &str, managed: bool) -> NodeRef {
        NodeRef {
            name: name.into(),
            resource_group: "rg".into(),
            managed,
            provider_id: None,
            age: None,
        }
    }

    #[test]
    fn unmanaged_routes_live_while_the_node_is_unmanaged() {
        let registry = NodeRegistry::default();
        let v4: IpNet = "10.244.0.0/24".parse().unwrap();
        let v6: IpNet = "fd00::/64".parse().unwrap();
        registry.upsert(node("edge", false));
        registry.add_unmanaged_route("edge", v4);
        registry.add_unmanaged_route("edge", v6);
        assert!(registry.is_unmanaged("edge"));
        assert_eq!(
            registry.unmanaged_routes(),
            [("edge".to_string(), v4), ("edge".to_string(), v6)]
        );
        registry.remove_unmanaged_route("edge", &v6);
        assert_eq!(registry.unmanaged_routes(), [("edge".to_string(), v4)]);
        registry.upsert(node("edge", true));
        assert!(
            registry.unmanaged_routes().is_empty(),
            "managed now: ARM holds its routes"
        );
        registry.upsert(node("gone", false));
        registry.add_unmanaged_route("gone", v4);
        registry.remove("gone");
        assert!(registry.unmanaged_routes().is_empty());
        assert_eq!(registry.names(), BTreeSet::from(["edge".to_string()]));
    }
}
