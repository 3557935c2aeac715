//! Host and container paths shared by several manifests; one definition keeps mounts and flags
//! pointing at the same file.

/// Node cloud config read by in-tree components, the CCM (host-path modes) and the ACR plugin.
pub const AZURE_JSON: &str = "/etc/kubernetes/azure.json";
/// Directory of the CCM cloud config when it comes from a Secret (workload identity).
pub const CCM_CLOUD_CONFIG_DIR: &str = "/etc/kubernetes/cloud-config";
/// File name of the CCM cloud config inside [`CCM_CLOUD_CONFIG_DIR`].
pub const CCM_CLOUD_CONFIG_FILE: &str = "azure.json";
/// Control-plane PKI directory.
pub const PKI: &str = "/etc/kubernetes/pki";
/// System CA bundle directory.
pub const CA_CERTS: &str = "/etc/ssl/certs";
/// Leader migration configuration on control-plane hosts.
pub const LEADER_MIGRATION: &str = "/etc/kubernetes/leader-migration.yaml";
/// kubelet configuration file.
pub const KUBELET_CONFIG: &str = "/var/lib/kubelet/config.yaml";
/// kubelet credential provider configuration.
pub const CREDENTIAL_PROVIDER_CONFIG: &str = "/var/lib/kubelet/credential-provider-config.yaml";
/// Directory holding the `acr-credential-provider` binary.
pub const CREDENTIAL_PROVIDER_BIN_DIR: &str = "/var/lib/kubelet/credential-provider";
/// Static pod directory.
pub const STATIC_PODS: &str = "/etc/kubernetes/manifests";
/// Directory of the projected workload-identity token.
pub const WORKLOAD_IDENTITY_TOKEN_DIR: &str = "/var/run/secrets/azure/tokens";
/// File name of the projected workload-identity token.
pub const WORKLOAD_IDENTITY_TOKEN_FILE: &str = "azure-identity-token";
/// Secret holding the CCM cloud config in workload-identity mode (anchor configloader default).
pub const CLOUD_CONFIG_SECRET: &str = "azure-cloud-provider";
/// Key inside [`CLOUD_CONFIG_SECRET`].
pub const CLOUD_CONFIG_SECRET_KEY: &str = "cloud-config";
