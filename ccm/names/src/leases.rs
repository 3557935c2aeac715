//! Lease names used for leader election and locking; RBAC rules are scoped to exactly these.

/// Namespace of every lease below.
pub const NAMESPACE: &str = "kube-system";
/// Main leader-election lease of the cloud-controller-manager.
pub const CLOUD_CONTROLLER_MANAGER: &str = "cloud-controller-manager";
/// Main leader-election lease of kube-controller-manager.
pub const KUBE_CONTROLLER_MANAGER: &str = "kube-controller-manager";
/// Lease shared by KCM and CCM during leader migration (KEP-2436 default `leaderName`).
pub const LEADER_MIGRATION: &str = "cloud-provider-extraction-migration";
/// Lease the Azure provider holds around every load-balancer reconcile (shared with AKS).
pub const AZURE_RESOURCE_LOCKER: &str = "aks-managed-resource-locker";
/// Holder identity the Azure provider writes into [`AZURE_RESOURCE_LOCKER`] (pkg/provider
/// `AzureResourceLocker`, anchor-ccm.md 4.1).
pub const AZURE_RESOURCE_LOCKER_HOLDER: &str = "cloud-controller-manager";
/// `leaseDurationSeconds` of [`AZURE_RESOURCE_LOCKER`]: 15 minutes (anchor-ccm.md 4.1).
pub const AZURE_RESOURCE_LOCKER_DURATION_SECONDS: i32 = 900;
