//! What a provider learns from the cluster besides each call's arguments, handed over by the
//! controllers that already watch it (so the provider opens no second watch).

use futures::future::BoxFuture;
use k8s_openapi::api::core::v1::Service;
use kube::runtime::reflector::Store;

use crate::node_cache::NodeFeed;

/// Provider-specific feeds from the cluster; every method has a no-op default.
pub trait ClusterFeeds: Send + Sync + 'static {
    /// Receives the service controller's Service cache when that controller starts.
    fn service_store(&self, store: Store<Service>) {
        let _ = store;
    }

    /// A task run beside the route controller (for instance Node events for the routes, from
    /// the process's Node feed `nodes`); when it ends, the route controller counts as stopped.
    fn beside_routes(&self, nodes: NodeFeed) -> Option<BoxFuture<'static, ()>> {
        let _ = nodes;
        None
    }
}

/// No feeds: a provider that needs nothing besides the calls' arguments.
pub struct NoFeeds;

impl ClusterFeeds for NoFeeds {}
