//! Configuration of one embedded API server.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use crate::kinds::service_alloc::ServiceCidr;

/// Everything `start` needs; `Default` gives an in-memory server on a free loopback port.
#[derive(Debug, Clone)]
pub struct ApiServerConfig {
    /// Address to bind (port 0 picks a free port).
    pub listen: SocketAddr,
    /// Persist objects here (restarts keep state and keep counting resourceVersions).
    pub data_file: Option<PathBuf>,
    /// Keep the CA (and the token) here so restarts stay trusted; `None` = in-memory CA.
    pub tls_dir: Option<PathBuf>,
    /// Write a kubeconfig here once serving.
    pub kubeconfig_out: Option<PathBuf>,
    /// Range for Service cluster IPs.
    pub service_cidr: ServiceCidr,
    /// Changes kept for watch resumption; older resourceVersions get 410.
    pub history_capacity: usize,
    /// Events buffered per watcher before it is closed as too slow.
    pub watch_buffer: usize,
    /// Interval between bookmarks on watches that allow them.
    pub bookmark_interval: Duration,
    /// Watch length when the client gives no timeoutSeconds.
    pub default_watch_timeout: Duration,
    /// Delay that batches writes of the data file.
    pub persist_interval: Duration,
    /// Append an `audit.k8s.io/v1` Event per request here (`--audit-log-path`).
    pub audit_log: Option<PathBuf>,
    /// Static bearer tokens accepted besides the admin token (`--token-auth-file`).
    pub token_auth_file: Option<PathBuf>,
}

impl Default for ApiServerConfig {
    fn default() -> Self {
        Self {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            data_file: None,
            tls_dir: None,
            kubeconfig_out: None,
            service_cidr: ServiceCidr::default(),
            history_capacity: 20_000,
            watch_buffer: 10_000,
            bookmark_interval: Duration::from_secs(10),
            default_watch_timeout: Duration::from_secs(1800),
            persist_interval: Duration::from_millis(100),
            audit_log: None,
            token_auth_file: None,
        }
    }
}
