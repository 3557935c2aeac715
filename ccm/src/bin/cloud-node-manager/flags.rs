//! The command line, with upstream cloud-node-manager's flag names and defaults
//! (`cmd/cloud-node-manager/app/options/options.go`, anchor-ccm.md 1.4). Boolean flags take
//! `--flag`, `--flag=true` or `--flag=false` like Go's `pflag`.

use std::path::PathBuf;
use std::time::Duration;

use azure_ccm::delegated_auth::DelegatedAuthArgs;
use azure_ccm::go_duration;
use azure_ccm::logging::LogFormat;
use clap::{ArgAction, Parser};

fn duration(text: &str) -> Result<Duration, String> {
    go_duration::parse(text).map_err(|e| e.to_string())
}

/// cloud-node-manager: initialises this node's Node object from the Azure Instance Metadata
/// Service (providerID, labels, addresses, uninitialized taint removal) and keeps its addresses up
/// to date.
#[derive(Debug, Parser)]
#[command(name = "cloud-node-manager", version)]
pub struct Flags {
    /// Name of the Node this process manages [default: the host name, lower-cased].
    #[arg(long, value_name = "NAME")]
    pub node_name: Option<String>,

    /// Path to azure.json; only used with --use-instance-metadata=false (ARM mode).
    #[arg(long, value_name = "FILE")]
    pub cloud_config: Option<PathBuf>,

    /// Read node metadata from the local Instance Metadata Service (true) or from ARM (false).
    #[arg(long, action = ArgAction::Set, num_args = 0..=1, require_equals = true,
          default_value = "true", default_missing_value = "true", value_name = "BOOL")]
    pub use_instance_metadata: bool,

    /// Set NetworkUnavailable=True (reason NodeInitialization) on the node at initialisation,
    /// for clusters whose route controller clears it.
    #[arg(long, action = ArgAction::Set, num_args = 0..=1, require_equals = true,
          default_value = "false", default_missing_value = "true", value_name = "BOOL")]
    pub wait_routes: bool,

    /// Period of the node address refresh (Go duration, e.g. 5m, 30s).
    #[arg(long, value_parser = duration, default_value = "5m", value_name = "DURATION")]
    pub node_status_update_frequency: Duration,

    /// Also set the deprecated beta topology labels (failure-domain.beta.kubernetes.io/*).
    #[arg(long, action = ArgAction::Set, num_args = 0..=1, require_equals = true,
          default_value = "false", default_missing_value = "true", value_name = "BOOL")]
    pub enable_deprecated_beta_topology_labels: bool,

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
    pub kube_api_burst: u32,

    /// Content type of requests to the API server (JSON is always used; protobuf is accepted
    /// for compatibility).
    #[arg(long, default_value = "application/vnd.kubernetes.protobuf", value_name = "TYPE",
          value_parser = ["application/json", "application/vnd.kubernetes.protobuf"])]
    pub kube_api_content_type: String,

    /// Minimum resync period of the informers (Go duration).
    #[arg(long, value_parser = duration, default_value = "0", value_name = "DURATION")]
    pub min_resync_period: Duration,

    /// HTTPS port for /healthz (and /livez, /readyz, /metrics); 0 (the default) serves nothing.
    #[arg(long, default_value_t = 0, value_name = "PORT")]
    pub secure_port: u16,

    /// Address the secure port listens on.
    #[arg(long, default_value = "0.0.0.0", value_name = "IP")]
    pub bind_address: std::net::IpAddr,

    /// Serving certificate (PEM); without it a self-signed one for localhost is generated.
    #[arg(long, value_name = "FILE")]
    pub tls_cert_file: Option<PathBuf>,

    /// Private key of --tls-cert-file (PEM).
    #[arg(long, value_name = "FILE")]
    pub tls_private_key_file: Option<PathBuf>,

    /// Directory keeping the generated serving certificate (ignored with --tls-cert-file).
    #[arg(long, value_name = "DIR")]
    pub cert_dir: Option<PathBuf>,

    /// `--authentication-*`, `--client-ca-file` and `--authorization-*` (delegated authn/z of the
    /// secure port).
    #[command(flatten)]
    pub auth: DelegatedAuthArgs,

    /// Base URL of the Instance Metadata Service [env: AZURE_IMDS_ENDPOINT; default:
    /// http://169.254.169.254].
    #[arg(long, value_name = "URL")]
    pub imds_endpoint: Option<String>,

    /// Log format.
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,

    /// Log verbosity (klog levels: 0-1 info, 2-4 debug, 5+ trace).
    #[arg(short = 'v', long = "v", default_value_t = 0, value_name = "LEVEL")]
    pub verbosity: u8,
}
