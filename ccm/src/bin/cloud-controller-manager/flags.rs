//! The command line: every flag of upstream's cloud-controller-manager with its name and default
//! (anchor-ccm.md §1.3). Boolean flags take `--flag`, `--flag=true` or `--flag=false` like Go's
//! `pflag`; durations take Go syntax (`10s`, `5m`, `12h`). Whether each flag is honoured is decided
//! in `not_implemented.rs`.

use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

use azure_ccm::cloud_shared_args::KubeCloudSharedArgs;
use azure_ccm::delegated_auth::DelegatedAuthArgs;
use azure_ccm::election_args::ElectionArgs;
use azure_ccm::go_duration;
use azure_ccm::logging::LogFormat;
use clap::{ArgAction, Parser, ValueEnum};

fn duration(text: &str) -> Result<Duration, String> {
    go_duration::parse(text).map_err(|e| e.to_string())
}

/// `--cidr-allocator-type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CidrAllocatorType {
    /// One block per node from `--cluster-cidr` (implemented).
    #[value(name = "RangeAllocator")]
    Range,
    /// Per-VM-set mask sizes from VMSS/VMAS tags (not implemented yet).
    #[value(name = "CloudAllocator")]
    Cloud,
}

/// cloud-controller-manager: runs the Azure cloud controllers (cloud-node, node lifecycle,
/// Service load balancers, routes, node IPAM) under leader election.
#[derive(Debug, Parser)]
#[command(name = "cloud-controller-manager", version)]
pub struct Flags {
    /// Cloud provider; only `azure` exists in this binary.
    #[arg(long, default_value = "azure", value_name = "NAME")]
    pub cloud_provider: String,

    /// Path to azure.json; required unless --enable-dynamic-reloading with a Secret.
    #[arg(long, value_name = "FILE")]
    pub cloud_config: Option<PathBuf>,

    /// Controllers to run: `*` for all, `name` to enable, `-name` to disable (aliases accepted).
    #[arg(long, value_delimiter = ',', default_value = "*", value_name = "NAMES")]
    pub controllers: Vec<String>,

    /// `--cluster-name`, `--cluster-cidr`, node-ipam and route flags shared with the KCM.
    #[command(flatten)]
    pub shared: KubeCloudSharedArgs,

    /// Pod CIDR allocator of node-ipam.
    #[arg(
        long,
        value_enum,
        default_value = "RangeAllocator",
        value_name = "TYPE"
    )]
    pub cidr_allocator_type: CidrAllocatorType,

    /// Node pod CIDR mask size for a single-stack cluster (upstream ignores it in favour of the
    /// per-family flags).
    #[arg(long, default_value_t = 24, value_name = "BITS")]
    pub node_cidr_mask_size: u8,

    /// Period of the cloud-node controller's address refresh.
    #[arg(long, value_parser = duration, default_value = "5m", value_name = "DURATION")]
    pub node_status_update_frequency: Duration,

    /// Nodes the cloud-node controller synchronises at once (at least 1). Upstream's option
    /// defaults to 1; this default keeps the API client's rate limit busy during a mass
    /// registration while holding only that many syncs in flight.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..),
          default_value_t = ccm_controllers::node::DEFAULT_CONCURRENT_NODE_SYNCS, value_name = "N")]
    pub concurrent_node_syncs: u16,

    /// Workers of the service controller; upstream accepts only 1.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub concurrent_service_syncs: i32,

    /// `--leader-elect*`, `--enable-leader-migration`, `--leader-migration-config`.
    #[command(flatten)]
    pub election: ElectionArgs,

    /// Address of the secure port.
    #[arg(long, default_value = "0.0.0.0", value_name = "IP")]
    pub bind_address: IpAddr,

    /// HTTPS port of /healthz, /readyz, /livez, /metrics and /configz; 0 disables serving.
    #[arg(long, default_value_t = 10258, value_name = "PORT")]
    pub secure_port: u16,

    /// Directory of the generated self-signed certificate (ignored with --tls-cert-file).
    #[arg(long, value_name = "DIR")]
    pub cert_dir: Option<PathBuf>,

    /// PEM certificate (chain) of the secure port.
    #[arg(long, value_name = "FILE")]
    pub tls_cert_file: Option<PathBuf>,

    /// PEM private key of the secure port.
    #[arg(long, value_name = "FILE")]
    pub tls_private_key_file: Option<PathBuf>,

    /// `--authentication-*`, `--client-ca-file` and `--authorization-*` (delegated authn/z of the
    /// secure port).
    #[command(flatten)]
    pub auth: DelegatedAuthArgs,

    /// Path to a kubeconfig; without it the in-cluster configuration is used.
    #[arg(long, value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,

    /// Address of the Kubernetes API server (overrides the kubeconfig's server).
    #[arg(long, value_name = "URL")]
    pub master: Option<String>,

    /// Queries per second to the API server.
    #[arg(long, default_value_t = 20.0, value_name = "QPS")]
    pub kube_api_qps: f32,

    /// Burst of queries to the API server.
    #[arg(long, default_value_t = 30, value_name = "N")]
    pub kube_api_burst: i32,

    /// Content type of requests to the API server.
    #[arg(long, default_value = "application/vnd.kubernetes.protobuf", value_name = "TYPE",
          value_parser = ["application/json", "application/vnd.kubernetes.protobuf"])]
    pub kube_api_content_type: String,

    /// Minimum resync period of the informers.
    #[arg(long, value_parser = duration, default_value = "12h", value_name = "DURATION")]
    pub min_resync_period: Duration,

    /// Pause between starting two controllers.
    #[arg(long, value_parser = duration, default_value = "0", value_name = "DURATION")]
    pub controller_start_interval: Duration,

    /// Give each controller its own service account credentials.
    #[arg(long, action = ArgAction::Set, num_args = 0..=1, require_equals = true,
          default_value = "false", default_missing_value = "true", value_name = "BOOL")]
    pub use_service_account_credentials: bool,

    /// Allow a cloud without a cluster ID (always present on Azure).
    #[arg(long, action = ArgAction::Set, num_args = 0..=1, require_equals = true,
          default_value = "false", default_missing_value = "true", value_name = "BOOL")]
    pub allow_untagged_cloud: bool,

    /// Volume plugin of an external cloud (generic flag, unused on Azure).
    #[arg(long, default_value = "", value_name = "NAME")]
    pub external_cloud_volume_plugin: String,

    /// Serve /debug/pprof.
    #[arg(long, action = ArgAction::Set, num_args = 0..=1, require_equals = true,
          default_value = "true", default_missing_value = "true", value_name = "BOOL")]
    pub profiling: bool,

    /// Lock contention profiling (with --profiling).
    #[arg(long, action = ArgAction::Set, num_args = 0..=1, require_equals = true,
          default_value = "false", default_missing_value = "true", value_name = "BOOL")]
    pub contention_profiling: bool,

    /// Restart the controllers when the cloud config file or Secret changes.
    #[arg(long, action = ArgAction::Set, num_args = 0..=1, require_equals = true,
          default_value = "false", default_missing_value = "true", value_name = "BOOL")]
    pub enable_dynamic_reloading: bool,

    /// Secret holding the cloud config (with --enable-dynamic-reloading and no --cloud-config).
    #[arg(long, default_value = "", value_name = "NAME")]
    pub cloud_config_secret_name: String,

    /// Namespace of --cloud-config-secret-name.
    #[arg(long, default_value = "kube-system", value_name = "NAMESPACE")]
    pub cloud_config_secret_namespace: String,

    /// Key of the cloud config inside the Secret's data.
    #[arg(long, default_value = "cloud-config", value_name = "KEY")]
    pub cloud_config_key: String,

    /// Label selector restricting the Nodes (and other informers) this process manages.
    #[arg(long, default_value = "", value_name = "SELECTOR")]
    pub node_filter_requirements: String,

    /// Feature gates, `Name=bool` comma separated.
    #[arg(long, value_delimiter = ',', value_name = "GATES")]
    pub feature_gates: Vec<String>,

    /// Log format.
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,

    /// Maximum seconds between log flushes (logs are written unbuffered).
    #[arg(long, value_parser = duration, default_value = "5s", value_name = "DURATION")]
    pub log_flush_frequency: Duration,

    /// Log verbosity (klog levels: 0-1 info, 2-4 debug, 5+ trace).
    #[arg(short = 'v', long = "v", default_value_t = 0, value_name = "LEVEL")]
    pub verbosity: u8,
}
