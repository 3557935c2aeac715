//! The provider root: names the error type and hands out the optional interfaces.

use crate::{InstancesV2, LoadBalancer, Routes, Zones};

/// A cloud the controllers can run against (`cloudprovider.Interface`); each optional interface
/// returns `None` when the cloud does not offer it, as upstream's `(impl, bool)` pairs do.
pub trait Provider: Send + Sync + 'static {
    /// The provider's own error, carried as the source of every [`crate::CloudError`].
    type Error: std::error::Error + Send + Sync + 'static;
    /// Node metadata implementation.
    type Instances: InstancesV2<Error = Self::Error>;
    /// Zone lookup implementation.
    type Zones: Zones<Error = Self::Error>;
    /// Service load balancer implementation.
    type LoadBalancer: LoadBalancer<Error = Self::Error>;
    /// Pod CIDR route implementation.
    type Routes: Routes<Error = Self::Error>;

    /// Provider name as registered upstream (`azure`); used in providerIDs and logs.
    fn provider_name(&self) -> &'static str;
    /// Node metadata, if this cloud supports it.
    fn instances_v2(&self) -> Option<&Self::Instances>;
    /// Zone lookup, if this cloud supports it.
    fn zones(&self) -> Option<&Self::Zones>;
    /// Load balancers, if this cloud supports them.
    fn load_balancer(&self) -> Option<&Self::LoadBalancer>;
    /// Routes, if this cloud supports them (and `--configure-cloud-routes` is on).
    fn routes(&self) -> Option<&Self::Routes>;
    /// True when a node's providerID must carry this cloud's prefix (`HasClusterID` upstream).
    fn has_cluster_id(&self) -> bool {
        true
    }
}
