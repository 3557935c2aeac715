//! Zone lookup (`cloudprovider.Zones`): the failure domain and region of a node.

use std::future::Future;

use crate::CloudError;

/// A node's failure domain and region (`cloudprovider.Zone`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Zone {
    /// Zone or fault domain (`<region>-<n>` or a fault-domain digit on Azure).
    pub failure_domain: String,
    /// Region, lower case.
    pub region: String,
}

/// Zone queries (`cloudprovider.Zones`).
pub trait Zones: Send + Sync {
    /// The provider's error type.
    type Error: std::error::Error + Send + Sync + 'static;

    /// Zone of the machine the process runs on (node-local, e.g. from instance metadata).
    fn get_zone(&self) -> impl Future<Output = Result<Zone, CloudError<Self::Error>>> + Send;

    /// Zone of the instance with this provider ID.
    fn get_zone_by_provider_id(
        &self,
        provider_id: &str,
    ) -> impl Future<Output = Result<Zone, CloudError<Self::Error>>> + Send;

    /// Zone of the instance backing this node name.
    fn get_zone_by_node_name(
        &self,
        node_name: &str,
    ) -> impl Future<Output = Result<Zone, CloudError<Self::Error>>> + Send;
}
