//! What the Azure provider learns from the cluster besides each call's arguments: the Services
//! (the NSG plan keeps what other Services sharing an address need) and the Nodes (routes of
//! unmanaged nodes and the legacy-route cleanup). Each feed is one watch, driven with the
//! controller that needs it.

use std::sync::Arc;

use ccm_azure::loadbalancer::ServiceSource;
use ccm_azure::routes::AzureRoutes;
use futures::StreamExt;
use k8s_openapi::api::core::v1::{Node, Service};
use kube::runtime::WatchStreamExt;
use kube::runtime::reflector::{self, Store, reflector};
use kube::runtime::watcher::{self, Event};
use kube::{Api, Client};

/// The cluster's Services as the reflector holds them.
struct StoredServices(Store<Service>);

impl ServiceSource for StoredServices {
    fn services(&self) -> Vec<Service> {
        self.0.state().iter().map(|s| (**s).clone()).collect()
    }
}

/// A Service reflector: its source for the provider, and the future that keeps it current
/// (it ends only when the watch does).
pub fn services(
    client: Client,
) -> (
    Arc<dyn ServiceSource>,
    futures::future::BoxFuture<'static, ()>,
) {
    let (store, writer) = reflector::store::<Service>();
    let stream = reflector(
        writer,
        watcher::watcher(Api::<Service>::all(client), watcher::Config::default()),
    )
    .default_backoff()
    .for_each(|_| async {});
    (Arc::new(StoredServices(store)), Box::pin(stream))
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
