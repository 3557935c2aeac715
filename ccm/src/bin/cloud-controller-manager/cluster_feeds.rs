//! What the Azure provider learns from the cluster besides each call's arguments: the Services
//! (the NSG plan keeps what other Services sharing an address need; read from the service
//! controller's own cache) and the Nodes (routes of unmanaged nodes and the legacy-route cleanup;
//! one watch driven with the route controller).

use ccm_azure::loadbalancer::ServiceSource;
use ccm_azure::routes::AzureRoutes;
use futures::StreamExt;
use k8s_openapi::api::core::v1::{Node, Service};
use kube::runtime::WatchStreamExt;
use kube::runtime::reflector::Store;
use kube::runtime::watcher::{self, Event};
use kube::{Api, Client};

/// The cluster's Services as the service controller's cache holds them.
pub struct StoredServices(pub Store<Service>);

impl ServiceSource for StoredServices {
    fn services(&self) -> Vec<Service> {
        self.0.state().iter().map(|s| (**s).clone()).collect()
    }
}

/// Feeds Node adds, changes and deletions to the routes (ends only when the watch does).
pub async fn nodes_to_routes(client: Client, routes: AzureRoutes) {
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
