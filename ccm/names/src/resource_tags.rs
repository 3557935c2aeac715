//! Azure resource tags the provider writes on public IPs (anchor-ccm.md §4.8), current and legacy
//! keys: reading both lets the out-of-tree CCM adopt PIPs the in-tree provider tagged.

/// Comma list of `<namespace>/<name>` of the Services using a managed public IP.
pub const SERVICE: &str = "k8s-azure-service";
/// Legacy spelling of [`SERVICE`] written by old in-tree providers.
pub const LEGACY_SERVICE: &str = "service";
/// Cluster that created the public IP.
pub const CLUSTER_NAME: &str = "k8s-azure-cluster-name";
/// Legacy spelling of [`CLUSTER_NAME`].
pub const LEGACY_CLUSTER_NAME: &str = "kubernetes-cluster-name";
/// `<namespace>/<name>` of the Service owning the public IP's DNS label.
pub const DNS_LABEL_SERVICE: &str = "k8s-azure-dns-label-service";
/// Legacy spelling of [`DNS_LABEL_SERVICE`].
pub const LEGACY_DNS_LABEL_SERVICE: &str = "kubernetes-dns-label-service";
