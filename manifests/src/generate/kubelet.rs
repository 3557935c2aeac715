//! kubelet: a systemd drop-in with the cloud-relevant flags, the KubeletConfiguration file, and
//! (out-of-tree) the image credential provider configuration that replaces the in-tree ACR
//! credential provider.

use serde::{Deserialize, Serialize};

use super::args::Args;
use super::paths;
use crate::cidr::CLUSTER_DNS_INDEX;
use crate::component::Component;
use crate::options::{Mode, Options};

/// Registries `acr-credential-provider` answers for (public, China, Germany, US Gov clouds).
pub const ACR_MATCH_IMAGES: [&str; 4] = [
    "*.azurecr.io",
    "*.azurecr.cn",
    "*.azurecr.de",
    "*.azurecr.us",
];

/// Flags of the kubelet for the mode and version.
pub fn flags(o: &Options) -> Vec<String> {
    let mut a = Args::new(Component::Kubelet, o.version);
    a.flag("--config", paths::KUBELET_CONFIG)
        .flag("--kubeconfig", "/etc/kubernetes/kubelet.conf")
        .flag(
            "--bootstrap-kubeconfig",
            "/etc/kubernetes/bootstrap-kubelet.conf",
        );
    match o.mode {
        Mode::InTree => {
            a.flag("--cloud-provider", "azure")
                .flag("--cloud-config", paths::AZURE_JSON)
                .flag("--azure-container-registry-config", paths::AZURE_JSON)
                .feature_gates(&super::in_tree_gates(o.version));
        }
        Mode::OutOfTree => {
            a.flag("--cloud-provider", "external")
                .flag(
                    "--image-credential-provider-config",
                    paths::CREDENTIAL_PROVIDER_CONFIG,
                )
                .flag(
                    "--image-credential-provider-bin-dir",
                    paths::CREDENTIAL_PROVIDER_BIN_DIR,
                );
        }
    }
    a.build()
}

/// The systemd drop-in text (`kubelet.manifest`).
pub fn drop_in(o: &Options, header: &str) -> String {
    let mut out = super::yaml::comment_block(header);
    out.push_str("# Install as /etc/systemd/system/kubelet.service.d/10-azure.conf, then\n");
    out.push_str("# `systemctl daemon-reload && systemctl restart kubelet`.\n");
    out.push_str("[Service]\nExecStart=\nExecStart=/usr/bin/kubelet");
    for flag in flags(o) {
        out.push_str(" \\\n  ");
        out.push_str(&flag);
    }
    out.push('\n');
    out
}

/// `kubelet.config.k8s.io/v1beta1` KubeletConfiguration: the subset this generator sets.
/// Unknown fields are refused on read so a typo in the generator fails the round-trip test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KubeletConfiguration {
    /// `kubelet.config.k8s.io/v1beta1`.
    pub api_version: String,
    /// `KubeletConfiguration`.
    pub kind: String,
    /// Client authentication.
    pub authentication: KubeletAuthentication,
    /// Authorization mode.
    pub authorization: KubeletAuthorization,
    /// cgroup driver.
    pub cgroup_driver: String,
    /// Cluster DNS service IPs.
    #[serde(rename = "clusterDNS")]
    pub cluster_dns: Vec<String>,
    /// Cluster domain.
    pub cluster_domain: String,
    /// CRI socket (a config field since 1.27).
    pub container_runtime_endpoint: String,
    /// Client certificate rotation.
    pub rotate_certificates: bool,
    /// Static pod directory.
    pub static_pod_path: String,
}

/// `authentication` block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KubeletAuthentication {
    /// Anonymous requests.
    pub anonymous: Enabled,
    /// Webhook token authentication.
    pub webhook: Enabled,
    /// Client certificates.
    pub x509: X509,
}

/// `{enabled: bool}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Enabled {
    /// On or off.
    pub enabled: bool,
}

/// `x509` block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct X509 {
    /// CA for client certificates.
    #[serde(rename = "clientCAFile")]
    pub client_ca_file: String,
}

/// `authorization` block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KubeletAuthorization {
    /// `Webhook`.
    pub mode: String,
}

/// KubeletConfiguration for the options (cluster DNS = 10th address of the first service CIDR).
pub fn config(o: &Options) -> KubeletConfiguration {
    let dns = o
        .service_cidrs
        .first()
        .and_then(|c| c.address(CLUSTER_DNS_INDEX))
        .map_or_else(|| "10.0.0.10".to_string(), |ip| ip.to_string());
    KubeletConfiguration {
        api_version: "kubelet.config.k8s.io/v1beta1".to_string(),
        kind: "KubeletConfiguration".to_string(),
        authentication: KubeletAuthentication {
            anonymous: Enabled { enabled: false },
            webhook: Enabled { enabled: true },
            x509: X509 {
                client_ca_file: format!("{}/ca.crt", paths::PKI),
            },
        },
        authorization: KubeletAuthorization {
            mode: "Webhook".to_string(),
        },
        cgroup_driver: "systemd".to_string(),
        cluster_dns: vec![dns],
        cluster_domain: "cluster.local".to_string(),
        container_runtime_endpoint: "unix:///run/containerd/containerd.sock".to_string(),
        rotate_certificates: true,
        static_pod_path: paths::STATIC_PODS.to_string(),
    }
}

/// `kubelet.config.k8s.io/v1` CredentialProviderConfig.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CredentialProviderConfig {
    /// `kubelet.config.k8s.io/v1`.
    pub api_version: String,
    /// `CredentialProviderConfig`.
    pub kind: String,
    /// Plugins.
    pub providers: Vec<CredentialProvider>,
}

/// One credential provider plugin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CredentialProvider {
    /// Binary name in the bin dir.
    pub name: String,
    /// Image globs the plugin serves.
    pub match_images: Vec<String>,
    /// Cache duration when the plugin does not say.
    pub default_cache_duration: String,
    /// CredentialProviderRequest/Response API version.
    pub api_version: String,
    /// Plugin arguments.
    pub args: Vec<String>,
}

/// Configuration that points `acr-credential-provider` at the node's azure.json.
pub fn credential_provider_config() -> CredentialProviderConfig {
    CredentialProviderConfig {
        api_version: "kubelet.config.k8s.io/v1".to_string(),
        kind: "CredentialProviderConfig".to_string(),
        providers: vec![CredentialProvider {
            name: "acr-credential-provider".to_string(),
            match_images: ACR_MATCH_IMAGES.iter().map(|s| s.to_string()).collect(),
            default_cache_duration: "10m".to_string(),
            api_version: "credentialprovider.kubelet.k8s.io/v1".to_string(),
            args: vec![paths::AZURE_JSON.to_string()],
        }],
    }
}
