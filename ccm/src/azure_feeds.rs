//! What the Azure provider learns from the cluster besides each call's arguments: the Services
//! (the NSG plan keeps what other Services sharing an address need; read from the service
//! controller's own cache) and the Nodes (routes of unmanaged nodes and the legacy-route cleanup;
//! from the process's one Node feed, run with the route controller). Both Azure controller
//! managers host their controllers with these feeds.

use std::collections::BTreeSet;
use std::sync::Arc;

use ccm_azure::loadbalancer::{AzureLoadBalancer, ServiceSource};
use ccm_azure::provider::AzureProvider;
use ccm_azure::routes::AzureRoutes;
use ccm_controllers::host::ClusterFeeds;
use ccm_controllers::node_cache::{NodeEvent, NodeFeed};
use futures::StreamExt;
use futures::future::BoxFuture;
use k8s_openapi::api::core::v1::{Node, Service};
use kube::runtime::reflector::Store;

/// The Azure provider's feeds.
pub struct AzureFeeds {
    load_balancers: AzureLoadBalancer,
    routes: AzureRoutes,
}

impl AzureFeeds {
    /// The feeds of `provider`.
    pub fn new(provider: &AzureProvider) -> AzureFeeds {
        AzureFeeds {
            load_balancers: provider.load_balancers().clone(),
            routes: provider.azure_routes().clone(),
        }
    }
}

impl ClusterFeeds for AzureFeeds {
    fn service_store(&self, store: Store<Service>) {
        self.load_balancers
            .reconciler()
            .set_service_source(Arc::new(StoredServices(store)));
    }

    fn beside_routes(&self, nodes: NodeFeed) -> Option<BoxFuture<'static, ()>> {
        Some(Box::pin(nodes_to_routes(nodes, self.routes.clone())))
    }
}

/// The cluster's Services as the service controller's cache holds them.
struct StoredServices(Store<Service>);

impl ServiceSource for StoredServices {
    fn services(&self) -> Vec<Service> {
        self.0.state().iter().map(|s| (**s).clone()).collect()
    }
}

/// Feeds Node adds, changes and deletions to the routes (ends only when the feed does); a
/// complete list (at start, or after the watch was relisted) feeds every stored Node and forgets
/// the known ones that are gone (deleted while the watch was down).
async fn nodes_to_routes(nodes: NodeFeed, routes: AzureRoutes) {
    let store = nodes.store();
    let events = nodes.events();
    futures::pin_mut!(events);
    let mut known = KnownNodes::default();
    while let Some(event) = events.next().await {
        match event {
            NodeEvent::Applied(node) => {
                known.applied(&node);
                routes.node_updated(&node);
            }
            NodeEvent::Deleted(node) => {
                if let Some(name) = known.deleted(&node) {
                    routes.node_deleted(&name);
                }
            }
            NodeEvent::Synced => {
                let stored = store.state();
                for gone in known.synced(stored.iter().map(|n| n.node())) {
                    routes.node_deleted(&gone);
                }
                for node in stored {
                    routes.node_updated(&node);
                }
            }
        }
    }
}

/// The names of the Nodes the routes were told about, so a complete list tells which are gone.
#[derive(Default)]
struct KnownNodes(BTreeSet<String>);

impl KnownNodes {
    fn applied(&mut self, node: &Node) {
        self.0.extend(node.metadata.name.clone());
    }

    /// The deleted node's name.
    fn deleted(&mut self, node: &Node) -> Option<String> {
        let name = node.metadata.name.clone()?;
        self.0.remove(&name);
        Some(name)
    }

    /// Takes `stored` (a complete list) as the known set; returns the names no longer in it.
    fn synced<'a>(&mut self, stored: impl Iterator<Item = &'a Node>) -> Vec<String> {
        let live: BTreeSet<String> = stored.filter_map(|n| n.metadata.name.clone()).collect();
        let gone = self.0.difference(&live).cloned().collect();
        self.0 = live;
        gone
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &str) -> Node {
        let mut node = Node::default();
        node.metadata.name = Some(name.to_owned());
        node
    }

    #[test]
    fn a_complete_list_reports_the_nodes_deleted_while_the_watch_was_down() {
        let mut known = KnownNodes::default();
        let listed = [node("a"), node("b"), node("c")];
        assert!(known.synced(listed.iter()).is_empty());
        known.applied(&node("d"));
        assert_eq!(known.deleted(&node("a")).as_deref(), Some("a"));
        // Relisted: b and d went while the watch was down, e is new.
        let relisted = [node("c"), node("e")];
        assert_eq!(known.synced(relisted.iter()), ["b", "d"]);
        assert!(known.synced(relisted.iter()).is_empty());
    }
}
