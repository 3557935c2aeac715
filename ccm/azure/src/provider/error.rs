//! [`AzureError`]: the provider's one error type, wrapping each part's own typed error so the
//! controllers see a single `ccm_cloud::Provider::Error`.

use crate::instances::InstanceError;
use crate::loadbalancer::error::LbError;

/// Any failure of the Azure provider.
#[derive(Debug, thiserror::Error)]
pub enum AzureError {
    /// Node metadata, zones (and route next hops).
    #[error(transparent)]
    Instance(#[from] InstanceError),
    /// Service load balancers.
    #[error(transparent)]
    LoadBalancer(#[from] LbError),
}
