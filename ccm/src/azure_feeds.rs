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
use ccm_cloud::NodeView;
use ccm_controllers::host::ClusterFeeds;
use ccm_controllers::node_cache::{NodeEvent, NodeFeed};
use futures::StreamExt;
use futures::future::BoxFuture;
use k8s_openapi::api::core::v1::Service;
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
    fn services(&self) -> Vec<Arc<Service>> {
        self.0.state()
    }
}

/// Feeds Node adds, changes and deletions to the routes (ends only when the feed does); a
/// complete list (at start, or after the watch was relisted) feeds every stored Node and forgets
/// the nodes the routes know that are gone (deleted while the watch was down).
async fn nodes_to_routes(nodes: NodeFeed, routes: AzureRoutes) {
    let store = nodes.store();
    let events = nodes.events();
    futures::pin_mut!(events);
    while let Some(event) = events.next().await {
        match event {
            NodeEvent::Applied(node) => routes.node_updated(&*node),
            NodeEvent::Deleted(node) => {
                if !node.name().is_empty() {
                    routes.node_deleted(node.name());
                }
            }
            NodeEvent::Synced => {
                let stored = store.state();
                for name in gone(routes.node_names(), stored.iter().map(|n| &**n)) {
                    routes.node_deleted(&name);
                }
                for node in stored {
                    routes.node_updated(&*node);
                }
            }
        }
    }
}

/// The `known` names missing from `stored`, a complete list of the Nodes.
fn gone<'a, N: NodeView + 'a>(
    known: BTreeSet<String>,
    stored: impl Iterator<Item = &'a N>,
) -> Vec<String> {
    let live: BTreeSet<&str> = stored
        .map(|n| n.name())
        .filter(|name| !name.is_empty())
        .collect();
    known
        .into_iter()
        .filter(|name| !live.contains(name.as_str()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::Node;

    fn node(name: &str) -> Node {
        let mut node = Node::default();
        node.metadata.name = Some(name.to_owned());
        node
    }

    #[test]
    fn a_complete_list_reports_the_nodes_deleted_while_the_watch_was_down() {
        let known = |names: &[&str]| names.iter().map(|n| n.to_string()).collect();
        let listed = [node("a"), node("b"), node("c")];
        assert!(gone(known(&["a", "b", "c"]), listed.iter()).is_empty());
        // Relisted: b and d went while the watch was down, e is new.
        let relisted = [node("c"), node("e")];
        assert_eq!(gone(known(&["b", "c", "d"]), relisted.iter()), ["b", "d"]);
        assert!(gone(known(&["c", "e"]), relisted.iter()).is_empty());
    }
}
