//! The provider's runtime error and how it maps onto `ccm_cloud::CloudError`.

use ccm_cloud::{CloudError, Retry};

use crate::arm::ArmError;
use crate::arm::resource_id::ResourceIdError;
use crate::arm::resources::SelectionError;
use crate::provider::AzureError;

/// Why a node-metadata call failed.
#[derive(Debug, thiserror::Error)]
pub enum InstanceError {
    /// An ARM read failed.
    #[error(transparent)]
    Arm(#[from] ArmError),
    /// The node's instance does not exist (or is being deleted).
    #[error("no instance in ARM for node {node:?}")]
    NotFound {
        /// Node name.
        node: String,
    },
    /// A providerID or ARM id did not parse.
    #[error(transparent)]
    Id(#[from] ResourceIdError),
    /// The VM has no primary NIC / ipconfig as upstream picks them.
    #[error(transparent)]
    Selection(#[from] SelectionError),
    /// A referenced NIC is not in its resource group's (or scale set's) list.
    #[error("NIC {id:?} of node {node:?} not found")]
    NicNotFound {
        /// Node name.
        node: String,
        /// NIC id.
        id: String,
    },
    /// A route operation failed (the route table batch, or no address for the route).
    #[error(transparent)]
    Route(#[from] crate::routes::RouteError),
    /// The primary ipconfig has no private address.
    #[error("node {node:?} has no private IP address")]
    NoAddress {
        /// Node name.
        node: String,
    },
}

impl InstanceError {
    /// The `CloudError` the controllers see, over the provider's error type.
    pub fn into_cloud(self) -> CloudError<AzureError> {
        self.classify().map_source(AzureError::from)
    }

    /// The classification: not found is `InstanceNotFound`, throttling carries its delay,
    /// transient ARM failures back off, the rest are final.
    pub fn classify(self) -> CloudError<InstanceError> {
        match &self {
            InstanceError::NotFound { .. } => CloudError::InstanceNotFound,
            InstanceError::Arm(e) if e.is_throttled() || e.is_rate_limited() => {
                CloudError::Throttled {
                    retry_after: e.retry_after().unwrap_or_default(),
                    source: self,
                }
            }
            InstanceError::Arm(e) if e.is_retryable() => CloudError::Provider {
                retry: e.retry_after().map_or(Retry::Backoff, Retry::After),
                source: self,
            },
            _ => CloudError::Provider {
                retry: Retry::Never,
                source: self,
            },
        }
    }
}
