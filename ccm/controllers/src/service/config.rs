//! Settings of the service controller, with upstream's defaults.

use std::time::Duration;

use ccm_names::leases::{
    AZURE_RESOURCE_LOCKER, AZURE_RESOURCE_LOCKER_DURATION_SECONDS, AZURE_RESOURCE_LOCKER_HOLDER,
    NAMESPACE,
};

/// Upstream `nodeSyncPeriod`: the periodic node sync.
pub const DEFAULT_NODE_SYNC_PERIOD: Duration = Duration::from_secs(100);
/// Upstream `minRetryDelay`.
pub const DEFAULT_MIN_RETRY_DELAY: Duration = Duration::from_secs(5);
/// Upstream `maxRetryDelay`.
pub const DEFAULT_MAX_RETRY_DELAY: Duration = Duration::from_secs(300);

/// The Lease taken around every provider load-balancer call, shared with AKS's resource provider.
#[derive(Debug, Clone)]
pub struct ResourceLockerConfig {
    /// Namespace of the Lease (`kube-system`).
    pub namespace: String,
    /// Name of the Lease (`aks-managed-resource-locker`).
    pub name: String,
    /// Holder identity written while we hold it (`cloud-controller-manager`).
    pub holder: String,
    /// `leaseDurationSeconds` written (900).
    pub duration_seconds: i32,
}

impl Default for ResourceLockerConfig {
    fn default() -> Self {
        Self {
            namespace: NAMESPACE.to_owned(),
            name: AZURE_RESOURCE_LOCKER.to_owned(),
            holder: AZURE_RESOURCE_LOCKER_HOLDER.to_owned(),
            duration_seconds: AZURE_RESOURCE_LOCKER_DURATION_SECONDS,
        }
    }
}

/// Settings of one service controller (`service-lb-controller`).
#[derive(Debug, Clone)]
pub struct ServiceControllerConfig {
    /// `--cluster-name`, passed to every provider call.
    pub cluster_name: String,
    /// `--concurrent-service-syncs`: Services synced in parallel (at least 1).
    pub concurrent_service_syncs: u16,
    /// Period of the node sync run even without node changes (upstream 100 s).
    pub node_sync_period: Duration,
    /// First retry delay of a failed Service (5 s).
    pub min_retry_delay: Duration,
    /// Largest retry delay, also used after a non-retryable failure (300 s).
    pub max_retry_delay: Duration,
    /// The resource-locker Lease; `None` calls the provider without it.
    pub resource_locker: Option<ResourceLockerConfig>,
}

impl Default for ServiceControllerConfig {
    fn default() -> Self {
        Self {
            cluster_name: "kubernetes".to_owned(),
            concurrent_service_syncs: 1,
            node_sync_period: DEFAULT_NODE_SYNC_PERIOD,
            min_retry_delay: DEFAULT_MIN_RETRY_DELAY,
            max_retry_delay: DEFAULT_MAX_RETRY_DELAY,
            resource_locker: Some(ResourceLockerConfig::default()),
        }
    }
}
