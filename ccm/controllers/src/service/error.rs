//! Why a Service sync failed, classified for the retry pacing.

use std::time::Duration;

use ccm_cloud::CloudError;

use super::locker::LockerError;

/// Why the controller cannot start.
#[derive(Debug, thiserror::Error)]
pub enum ServiceControllerError {
    /// The provider offers no `LoadBalancer` (upstream: "the cloud provider does not support
    /// external load balancers").
    #[error("the cloud provider does not support external load balancers")]
    LoadBalancerNotSupported,
}

/// One failed Service sync; the message follows upstream's wording (it becomes the
/// `SyncLoadBalancerFailed` Event's "Error syncing load balancer: <message>").
#[derive(Debug, thiserror::Error)]
pub enum SyncError<E: std::error::Error + 'static> {
    /// The provider stopped offering load balancers (checked at start, so only a provider that
    /// changes its answer gets here).
    #[error("the cloud provider does not support external load balancers")]
    Unsupported,
    /// `GetLoadBalancer` before cleanup failed.
    #[error("failed to check if load balancer exists before cleanup: {0}")]
    Check(#[source] CloudError<E>),
    /// `EnsureLoadBalancer` failed.
    #[error("failed to ensure load balancer: {0}")]
    Ensure(#[source] CloudError<E>),
    /// `UpdateLoadBalancer` failed.
    #[error("failed to update load balancer hosts: {0}")]
    Update(#[source] CloudError<E>),
    /// `EnsureLoadBalancerDeleted` failed.
    #[error("failed to delete load balancer: {0}")]
    Delete(#[source] CloudError<E>),
    /// The resource-locker Lease could not be taken.
    #[error("failed to acquire the resource locker: {0}")]
    Locker(#[source] LockerError),
    /// Adding the cleanup finalizer failed.
    #[error("failed to add load balancer cleanup finalizer: {0}")]
    AddFinalizer(#[source] kube::Error),
    /// Removing the cleanup finalizer failed.
    #[error("failed to remove load balancer cleanup finalizer: {0}")]
    RemoveFinalizer(#[source] kube::Error),
    /// Writing `status.loadBalancer` failed.
    #[error("failed to update load balancer status: {0}")]
    Status(#[source] kube::Error),
}

impl<E: std::error::Error + 'static> SyncError<E> {
    fn cloud(&self) -> Option<&CloudError<E>> {
        match self {
            Self::Check(e) | Self::Ensure(e) | Self::Update(e) | Self::Delete(e) => Some(e),
            _ => None,
        }
    }

    /// Whether retrying can help: the provider decides for cloud errors; Lease and API errors
    /// are always retried.
    pub fn is_retryable(&self) -> bool {
        match self {
            Self::Unsupported => false,
            _ => self.cloud().is_none_or(CloudError::is_retryable),
        }
    }

    /// The delay the cloud asked for, if any.
    pub fn retry_after(&self) -> Option<Duration> {
        self.cloud().and_then(CloudError::retry_after)
    }
}
