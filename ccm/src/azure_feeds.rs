//! What the Azure provider learns from the cluster besides each call's arguments: the Services
//! (the NSG plan keeps what other Services sharing an address need; read from the service
//! controller's own cache) and the Nodes (routes of unmanaged nodes and the legacy-route cleanup;
//! one watch driven with the route controller). Both Azure controller managers host their
//! controllers with these feeds.

use std::sync::Arc;

use ccm_azure::loadbalancer::{AzureLoadBalancer, ServiceSource};
use ccm_azure::provider::AzureProvider;
use ccm_azure::routes::AzureRoutes;
use ccm_controllers::host::ClusterFeeds;
use futures::StreamExt;
use futures::future::BoxFuture;
use k8s_openapi::api::core::v1::{Node, Service};
use kube::runtime::WatchStreamExt;
use kube::runtime::reflector::Store;
use kube::runtime::watcher::{self, Event};
use kube::{Api, Client};

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

    fn beside_routes(&self, client: Client) -> Option<BoxFuture<'static, ()>> {
        Some(Box::pin(nodes_to_routes(client, self.routes.clone())))
    }
}

/// The cluster's Services as the service controller's cache holds them.
struct StoredServices(Store<Service>);

impl ServiceSource for StoredServices {
    fn services(&self) -> Vec<Service> {
        self.0.state().iter().map(|s| (**s).clone()).collect()
    }
}

/// Feeds Node adds, changes and deletions to the routes (ends only when the watch does).
async fn nodes_to_routes(client: Client, routes: AzureRoutes) {
    let stream =
        watcher::watcher(Api::<Node>::all(client), watcher::Config::default()).default_backoff();
    futures::pin_mut!(stream);
    while let Some(event) = stream.next().await {
        match event {
            Ok(Event::Apply(node) | Event::InitApply(node)) => routes.node_updated(&node),
            Ok(Event::Delete(node)) => {
                if let Some(name) = node.metadata.name.as_deref() {
                    routes.node_deleted(name);
                }
            }
            Ok(Event::Init | Event::InitDone) => {}
            Err(e) => tracing::warn!(error = %e, "Node watch for routes failed; retrying"),
        }
    }
}
