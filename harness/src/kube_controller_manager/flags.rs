//! The stand-in's command line: the subset of the real kube-controller-manager's flags that
//! concerns the in-tree cloud controllers, with upstream's names and defaults (KCM
//! `--leader-elect-resource-name` defaults to `kube-controller-manager`).

use std::path::PathBuf;

use azure_ccm::cloud_shared_args::KubeCloudSharedArgs;
use azure_ccm::election_args::ElectionArgs;
use clap::Args;

use crate::intree::kcm_profile;
use crate::intree::kubelet::profile::KubeVersion;

/// Parses `--in-tree-profile`: a version with an in-tree provider profile (1.27, 1.28, 1.29).
fn in_tree_profile(text: &str) -> Result<KubeVersion, String> {
    let version: KubeVersion = text.parse().map_err(|e| format!("{e}"))?;
    kcm_profile::check(version).map_err(|e| e.to_string())
}

/// `harness kube-controller-manager` flags.
#[derive(Debug, Args)]
pub struct KcmArgs {
    /// Path to a kubeconfig; without it the in-cluster configuration is used.
    #[arg(long, value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,

    /// In-tree cloud provider; only `azure` is emulated.
    #[arg(long, default_value = "", value_name = "NAME")]
    pub cloud_provider: String,

    /// Path to azure.json.
    #[arg(long, value_name = "FILE")]
    pub cloud_config: Option<PathBuf>,

    /// Controllers: `*`, `name`, `-name`. Only the cloud ones run here; other KCM names are
    /// accepted and not emulated.
    #[arg(long, value_delimiter = ',', default_value = "*", value_name = "NAMES")]
    pub controllers: Vec<String>,

    /// `--cluster-name`, `--cluster-cidr`, node-ipam and route flags (the route controller
    /// runs only with both `--allocate-node-cidrs` and `--configure-cloud-routes`, as in-tree).
    #[command(flatten)]
    pub shared: KubeCloudSharedArgs,

    /// Workers of the service controller.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub concurrent_service_syncs: u16,

    /// `--leader-elect*`, `--enable-leader-migration`, `--leader-migration-config`.
    #[command(flatten)]
    pub election: ElectionArgs,

    /// HTTPS port of `/healthz`, `/livez` and `/readyz` (self-signed certificate; 0: none).
    #[arg(long, default_value_t = 10257, value_name = "PORT")]
    pub secure_port: u16,

    /// Address the secure port listens on.
    #[arg(long, default_value = "0.0.0.0", value_name = "IP")]
    pub bind_address: std::net::IpAddr,

    /// The Kubernetes release whose in-tree Azure provider to reproduce (not an upstream KCM
    /// flag; the harness always passes it): where it wrote load balancers, public IPs and NSG
    /// rules differently from today's CCM (`harness::intree::kcm_profile`).
    #[arg(long, default_value_t = kcm_profile::DEFAULT_VERSION, value_parser = in_tree_profile, value_name = "1.N")]
    pub in_tree_profile: KubeVersion,

    /// Log verbosity (klog levels: 0-1 info, 2-4 debug, 5+ trace).
    #[arg(short = 'v', long = "v", default_value_t = 0, value_name = "LEVEL")]
    pub verbosity: u8,
}
