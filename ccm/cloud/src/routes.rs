//! Pod CIDR routes (`cloudprovider.Routes`), driven by the route controller.

use std::future::Future;

use ipnet::IpNet;
use k8s_openapi::api::core::v1::NodeAddress;

use crate::CloudError;

/// One route sending a node's pod CIDR to that node (`cloudprovider.Route`).
#[derive(Debug, Clone, PartialEq)]
pub struct Route {
    /// Provider-side route name.
    pub name: String,
    /// Node the traffic goes to.
    pub target_node: String,
    /// Addresses of the target node, for providers that route by address.
    pub target_node_addresses: Vec<NodeAddress>,
    /// The pod CIDR.
    pub destination_cidr: IpNet,
    /// True when the route points at a node that no longer exists (the controller deletes it).
    pub blackhole: bool,
}

/// Route table management (`cloudprovider.Routes`).
pub trait Routes: Send + Sync {
    /// The provider's error type.
    type Error: std::error::Error + Send + Sync + 'static;

    /// Every route of the cluster.
    fn list_routes(
        &self,
        cluster_name: &str,
    ) -> impl Future<Output = Result<Vec<Route>, CloudError<Self::Error>>> + Send;

    /// Creates a route; `name_hint` is the node's UID-derived hint upstream passes along.
    fn create_route(
        &self,
        cluster_name: &str,
        name_hint: &str,
        route: &Route,
    ) -> impl Future<Output = Result<(), CloudError<Self::Error>>> + Send;

    /// Deletes a route; succeeds when it is already gone.
    fn delete_route(
        &self,
        cluster_name: &str,
        route: &Route,
    ) -> impl Future<Output = Result<(), CloudError<Self::Error>>> + Send;
}
