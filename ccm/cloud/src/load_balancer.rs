//! Service load balancers (`cloudprovider.LoadBalancer`), driven by the service controller.

use std::future::Future;

use k8s_openapi::api::core::v1::{LoadBalancerStatus, Service};

use crate::{CloudError, NodeView};

/// Load balancer lifecycle for `type: LoadBalancer` Services (`cloudprovider.LoadBalancer`).
pub trait LoadBalancer: Send + Sync {
    /// The provider's error type.
    type Error: std::error::Error + Send + Sync + 'static;

    /// The Service's current load balancer status, and whether one exists at all.
    fn get_load_balancer(
        &self,
        cluster_name: &str,
        service: &Service,
    ) -> impl Future<Output = Result<(LoadBalancerStatus, bool), CloudError<Self::Error>>> + Send;

    /// The name the provider gives (or would give) the Service's load balancer; pure.
    fn get_load_balancer_name(&self, cluster_name: &str, service: &Service) -> String;

    /// Creates or updates the Service's load balancer for these nodes and returns its status.
    /// The nodes are borrowed from the caller's cache as [`NodeView`]s, not `Node`s: the cache
    /// keeps a compact Node, and materialising a whole `Node` per node per call would be tens of
    /// MiB per Service reconcile at 5000 nodes.
    fn ensure_load_balancer(
        &self,
        cluster_name: &str,
        service: &Service,
        nodes: &[&dyn NodeView],
    ) -> impl Future<Output = Result<LoadBalancerStatus, CloudError<Self::Error>>> + Send;

    /// Updates only the backend hosts of an existing load balancer (node set changed); the nodes
    /// are borrowed views, as for [`LoadBalancer::ensure_load_balancer`].
    fn update_load_balancer(
        &self,
        cluster_name: &str,
        service: &Service,
        nodes: &[&dyn NodeView],
    ) -> impl Future<Output = Result<(), CloudError<Self::Error>>> + Send;

    /// Deletes what the Service owns; succeeds when nothing is left (idempotent).
    fn ensure_load_balancer_deleted(
        &self,
        cluster_name: &str,
        service: &Service,
    ) -> impl Future<Output = Result<(), CloudError<Self::Error>>> + Send;
}
