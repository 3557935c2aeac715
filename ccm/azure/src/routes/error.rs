//! Why a route call failed, and how the controllers should retry it.

use std::sync::Arc;

use ccm_cloud::{CloudError, Retry};

use crate::arm::ArmError;
use crate::instances::InstanceError;
use crate::provider::AzureError;

/// A route operation's failure beyond resolving the node (that one is an [`InstanceError`]).
#[derive(Debug, Clone, thiserror::Error)]
pub enum RouteError {
    /// The batch's read or write of the route table failed; every waiter of the batch gets it.
    #[error("route table update failed: {0}")]
    Batch(#[source] Arc<ArmError>),
    /// The node has no private address of the pod CIDR's family on its primary NIC.
    #[error("node {node:?} has no private {family} address for route {cidr}")]
    NoAddressOfFamily {
        /// Node name.
        node: String,
        /// `IPv4` or `IPv6`.
        family: &'static str,
        /// The pod CIDR.
        cidr: String,
    },
    /// The batcher is gone (the provider is shutting down).
    #[error("the route batcher stopped before the operation ran")]
    Stopped,
}

impl RouteError {
    /// The `CloudError` the route controller sees: ARM throttling and transient failures stay
    /// retryable with ARM's delay, a missing address backs off (the NIC may gain one), the rest is
    /// final.
    pub fn into_cloud(self) -> CloudError<AzureError> {
        self.classify().map_source(AzureError::from)
    }

    /// The classification over the instance error that carries route failures.
    fn classify(self) -> CloudError<InstanceError> {
        match &self {
            RouteError::Batch(e) if e.is_throttled() || e.is_rate_limited() => {
                CloudError::Throttled {
                    retry_after: e.retry_after().unwrap_or_default(),
                    source: InstanceError::Route(self),
                }
            }
            RouteError::Batch(e) if e.is_retryable() || e.is_precondition_failed() => {
                CloudError::Provider {
                    retry: e.retry_after().map_or(Retry::Backoff, Retry::After),
                    source: InstanceError::Route(self),
                }
            }
            RouteError::NoAddressOfFamily { .. } | RouteError::Stopped => CloudError::Provider {
                retry: Retry::Backoff,
                source: InstanceError::Route(self),
            },
            RouteError::Batch(_) => CloudError::Provider {
                retry: Retry::Never,
                source: InstanceError::Route(self),
            },
        }
    }
}
