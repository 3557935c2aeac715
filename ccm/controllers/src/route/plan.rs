//! The pure part of one route reconciliation: from the cloud's routes and the Nodes, which routes
//! to delete, which to create, and (after the creates ran) each Node's `NetworkUnavailable` value.

use std::collections::{BTreeMap, HashMap};

use ccm_cloud::NodeView;
use ccm_cloud::Route;
use ipnet::IpNet;
use k8s_openapi::api::core::v1::{Node, NodeAddress};

use crate::node_cache::SlimNode;

/// What a Node needs for its routes.
#[derive(Debug, Clone, PartialEq)]
pub struct RouteNode {
    /// Node name (the route's target).
    pub name: String,
    /// Node UID, the name hint upstream passes to `CreateRoute`.
    pub uid: String,
    /// Parsed `spec.podCIDRs` (entries that do not parse are skipped).
    pub pod_cidrs: Vec<IpNet>,
    /// `status.addresses`, given to the provider with each route.
    pub addresses: Vec<NodeAddress>,
}

impl RouteNode {
    /// Reads what the route controller needs from a Node.
    pub fn of(node: &Node) -> Self {
        let cidrs = node.spec.as_ref().and_then(|s| s.pod_cidrs.as_deref());
        Self::read(node, cidrs.unwrap_or_default().iter().map(String::as_str))
    }

    /// Reads what the route controller needs from a cached Node, without materialising it.
    pub fn of_cached(node: &SlimNode) -> Self {
        Self::read(node, node.pod_cidrs())
    }

    fn read<'a>(node: &dyn NodeView, pod_cidrs: impl Iterator<Item = &'a str>) -> Self {
        let pod_cidrs = pod_cidrs
            .filter_map(|c| match c.parse() {
                Ok(net) => Some(net),
                Err(error) => {
                    tracing::warn!(node = %node.name(), cidr = %c, %error, "unparsable podCIDR skipped");
                    None
                }
            })
            .collect();
        Self {
            name: node.name().to_owned(),
            uid: node.uid().unwrap_or_default().to_owned(),
            pod_cidrs,
            addresses: node
                .addresses()
                .map(|(type_, address)| NodeAddress {
                    type_: type_.to_owned(),
                    address: address.to_owned(),
                })
                .collect(),
        }
    }
}

/// One route to create.
#[derive(Debug, Clone, PartialEq)]
pub struct Creation {
    /// Name hint (the node UID).
    pub name_hint: String,
    /// The route (empty name: the provider names it).
    pub route: Route,
}

/// The work of one reconciliation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Plan {
    /// Managed routes that are blackholes or match no current node pod CIDR.
    pub delete: Vec<Route>,
    /// Pod CIDRs without a route.
    pub create: Vec<Creation>,
    /// Per node known from routes or pod CIDRs: each pod CIDR and whether its route exists.
    /// A node present with no CIDR (it has routes but no podCIDRs) counts as unavailable.
    pub cidrs: HashMap<String, BTreeMap<IpNet, bool>>,
}

/// Whether a route's CIDR lies (by its first or last address) inside a cluster CIDR.
pub fn is_managed(cluster_cidrs: &[IpNet], cidr: &IpNet) -> bool {
    cluster_cidrs
        .iter()
        .any(|c| c.contains(&cidr.network()) || c.contains(&cidr.broadcast()))
}

/// Plans one reconciliation (upstream `reconcile`).
pub fn plan(cluster_cidrs: &[IpNet], nodes: &[RouteNode], routes: &[Route]) -> Plan {
    let mut cidrs: HashMap<String, BTreeMap<IpNet, bool>> = HashMap::new();
    let mut by_node: HashMap<&str, Vec<&Route>> = HashMap::new();
    for route in routes.iter().filter(|r| !r.target_node.is_empty()) {
        by_node.entry(&route.target_node).or_default().push(route);
        cidrs.entry(route.target_node.clone()).or_default();
    }
    let mut create = Vec::new();
    for node in nodes.iter().filter(|n| !n.pod_cidrs.is_empty()) {
        let existing = by_node.get(node.name.as_str());
        let entry = cidrs.entry(node.name.clone()).or_default();
        for cidr in &node.pod_cidrs {
            let present =
                existing.is_some_and(|routes| routes.iter().any(|r| r.destination_cidr == *cidr));
            entry.insert(*cidr, present);
            if !present {
                create.push(Creation {
                    name_hint: node.uid.clone(),
                    route: Route {
                        name: String::new(),
                        target_node: node.name.clone(),
                        target_node_addresses: node.addresses.clone(),
                        destination_cidr: *cidr,
                        blackhole: false,
                    },
                });
            }
        }
    }
    let delete = routes
        .iter()
        .filter(|r| is_managed(cluster_cidrs, &r.destination_cidr))
        .filter(|r| r.blackhole || !node_has_cidr(nodes, &r.target_node, &r.destination_cidr))
        .cloned()
        .collect();
    Plan {
        delete,
        create,
        cidrs,
    }
}

fn node_has_cidr(nodes: &[RouteNode], name: &str, cidr: &IpNet) -> bool {
    !name.is_empty()
        && nodes
            .iter()
            .any(|n| n.name == name && n.pod_cidrs.contains(cidr))
}

impl Plan {
    /// Marks a planned creation done.
    pub fn created(&mut self, node: &str, cidr: &IpNet) {
        if let Some(entry) = self.cidrs.get_mut(node) {
            entry.insert(*cidr, true);
        }
    }

    /// `NetworkUnavailable` for a node after the creations: `Some(false)` when every pod CIDR has
    /// a route, `Some(true)` when one is missing or the node has routes but no pod CIDR, `None`
    /// when the controller knows nothing about the node (left untouched).
    pub fn network_unavailable(&self, node: &str) -> Option<bool> {
        let entry = self.cidrs.get(node)?;
        Some(entry.is_empty() || entry.values().any(|done| !done))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn net(s: &str) -> IpNet {
        s.parse().unwrap()
    }

    fn node(name: &str, cidrs: &[&str]) -> RouteNode {
        RouteNode {
            name: name.into(),
            uid: format!("uid-{name}"),
            pod_cidrs: cidrs.iter().map(|c| net(c)).collect(),
            addresses: vec![],
        }
    }

    fn route(target: &str, cidr: &str) -> Route {
        Route {
            name: format!("{target}-{cidr}"),
            target_node: target.into(),
            target_node_addresses: vec![],
            destination_cidr: net(cidr),
            blackhole: false,
        }
    }

    #[test]
    fn creates_missing_and_deletes_stale_managed_routes_only() {
        let cluster = [net("10.244.0.0/16")];
        let nodes = [
            node("a", &["10.244.0.0/24", "fd00::/64"]),
            node("b", &["10.244.1.0/24"]),
        ];
        let routes = [
            route("a", "10.244.0.0/24"),
            route("b", "10.244.9.0/24"),     // CIDR changed
            route("gone", "10.244.2.0/24"),  // node deleted
            route("gone", "192.168.0.0/24"), // not ours
            route("", "10.244.3.0/24"),      // no target
        ];
        let mut plan = plan(&cluster, &nodes, &routes);
        let created: Vec<_> = plan
            .create
            .iter()
            .map(|c| (c.name_hint.as_str(), c.route.destination_cidr.to_string()))
            .collect();
        assert_eq!(
            created,
            [
                ("uid-a", "fd00::/64".to_string()),
                ("uid-b", "10.244.1.0/24".to_string())
            ]
        );
        let deleted: Vec<_> = plan.delete.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(
            deleted,
            ["b-10.244.9.0/24", "gone-10.244.2.0/24", "-10.244.3.0/24"]
        );
        assert_eq!(plan.network_unavailable("a"), Some(true));
        plan.created("a", &net("fd00::/64"));
        assert_eq!(plan.network_unavailable("a"), Some(false));
        assert_eq!(plan.network_unavailable("b"), Some(true));
        assert_eq!(plan.network_unavailable("gone"), Some(true));
        assert_eq!(plan.network_unavailable("unknown"), None);
    }

    #[test]
    fn blackholes_inside_the_cluster_cidr_are_deleted() {
        let cluster = [net("10.244.0.0/16")];
        let mut hole = route("a", "10.244.0.0/24");
        hole.blackhole = true;
        let plan = plan(&cluster, &[node("a", &["10.244.0.0/24"])], &[hole]);
        assert_eq!(plan.delete.len(), 1);
        // Its CIDR still counts as present, as upstream decides actions before deleting.
        assert!(plan.create.is_empty());
    }

    #[test]
    fn a_route_overlapping_the_cluster_cidr_edge_is_managed() {
        let cluster = [net("10.244.0.0/16")];
        assert!(is_managed(&cluster, &net("10.244.255.0/24")));
        assert!(!is_managed(&cluster, &net("10.0.0.0/8")));
        assert!(is_managed(&cluster, &net("10.244.0.0/15")));
    }
}
