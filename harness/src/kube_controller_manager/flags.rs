//! The stand-in's command line: the subset of the real kube-controller-manager's flags that
//! concerns the in-tree cloud controllers, with upstream's names and defaults (KCM
//! `--leader-elect-resource-name` defaults to `kube-controller-manager`).

use std::path::PathBuf;
use std::time::Duration;

use azure_ccm::election_args::ElectionArgs;
use azure_ccm::go_duration;
use clap::{ArgAction, Args};

fn duration(text: &str) -> Result<Duration, String> {
    go_duration::parse(text).map_err(|e| e.to_string())
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

    /// Cluster name: prefix of load balancer, backend pool and public IP names.
    #[arg(long, default_value = "kubernetes", value_name = "NAME")]
    pub cluster_name: String,

    /// Pod CIDRs of the cluster, comma separated.
    #[arg(long, default_value = "", value_name = "CIDRS")]
    pub cluster_cidr: String,

    /// Allocate pod CIDRs to Nodes (node-ipam); the route controller needs it in-tree.
    #[arg(long, action = ArgAction::Set, num_args = 0..=1, require_equals = true,
          default_value = "false", default_missing_value = "true", value_name = "BOOL")]
    pub allocate_node_cidrs: bool,

    /// Node pod CIDR mask size for IPv4 (0 means 24).
    #[arg(long, default_value_t = 0, value_name = "BITS")]
    pub node_cidr_mask_size_ipv4: u8,

    /// Node pod CIDR mask size for IPv6 (0 means 64).
    #[arg(long, default_value_t = 0, value_name = "BITS")]
    pub node_cidr_mask_size_ipv6: u8,

    /// Service CIDRs, never handed to Nodes.
    #[arg(long, default_value = "", value_name = "CIDRS")]
    pub service_cluster_ip_range: String,

    /// Create routes for the Nodes' pod CIDRs (with --allocate-node-cidrs, as in-tree).
    #[arg(long, action = ArgAction::Set, num_args = 0..=1, require_equals = true,
          default_value = "true", default_missing_value = "true", value_name = "BOOL")]
    pub configure_cloud_routes: bool,

    /// Period of the route reconciliation.
    #[arg(long, value_parser = duration, default_value = "10s", value_name = "DURATION")]
    pub route_reconciliation_period: Duration,

    /// Period of the node lifecycle pass.
    #[arg(long, value_parser = duration, default_value = "5s", value_name = "DURATION")]
    pub node_monitor_period: Duration,

    /// Workers of the service controller.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub concurrent_service_syncs: u16,

    /// `--leader-elect*`, `--enable-leader-migration`, `--leader-migration-config`.
    #[command(flatten)]
    pub election: ElectionArgs,

    /// HTTPS port; the stand-in serves nothing, whatever the value (0 is the honest one).
    #[arg(long, default_value_t = 10257, value_name = "PORT")]
    pub secure_port: u16,

    /// Log verbosity (klog levels: 0-1 info, 2-4 debug, 5+ trace).
    #[arg(short = 'v', long = "v", default_value_t = 0, value_name = "LEVEL")]
    pub verbosity: u8,
}
