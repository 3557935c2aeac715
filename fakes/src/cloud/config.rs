//! What a [`super::FakeCloud`] is started with.

use std::net::SocketAddr;
use std::path::PathBuf;

use fake_arm::ArmConfig;

use crate::entra::{DEFAULT_LIFETIME_SECS, Registry};
use crate::faults::FaultPlan;
use crate::throttle::ThrottleConfig;

/// Default capacity of the request journal (entries; counters are unbounded).
pub const DEFAULT_JOURNAL_CAPACITY: usize = 100_000;

/// Start-up configuration of one fake cloud.
#[derive(Debug, Clone)]
pub struct CloudConfig {
    /// Address to listen on (port 0 picks a free port).
    pub listen: SocketAddr,
    /// Directory of the CA, server certificate and token signing key (kept across restarts).
    pub tls_dir: PathBuf,
    /// Extra DNS names / IPs for the server certificate.
    pub extra_hosts: Vec<String>,
    /// Topology seed file; without one the cloud starts empty.
    pub topology: Option<PathBuf>,
    /// Snapshot file: restored at start when it exists (instead of seeding ARM), written at shutdown.
    pub state_file: Option<PathBuf>,
    /// Initial fault schedule.
    pub faults: FaultPlan,
    /// ARM request limits.
    pub throttle: ThrottleConfig,
    /// fake-arm knobs (LRO polls, page size); `default_location` is taken from the topology.
    pub arm: ArmConfig,
    /// Request journal capacity.
    pub journal_capacity: usize,
    /// Lifetime of issued tokens, seconds.
    pub token_lifetime_secs: i64,
    /// App registrations added to the topology's.
    pub registry: Registry,
    /// Per-VM IMDS rate limits on (the real 5 req/s; turn off for load tests).
    pub imds_rate_limits: bool,
    /// Address of the HTTPS CONNECT proxy tunnelling the public Entra hosts to the fake
    /// (`crate::proxy`); `None`: no such proxy (per-host proxies, which also tunnel, are started
    /// through the admin API either way).
    pub proxy_listen: Option<SocketAddr>,
}

impl Default for CloudConfig {
    fn default() -> Self {
        Self {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            tls_dir: PathBuf::from("target/fake-azure"),
            extra_hosts: Vec::new(),
            topology: None,
            state_file: None,
            faults: FaultPlan::default(),
            throttle: ThrottleConfig::default(),
            arm: ArmConfig::default(),
            journal_capacity: DEFAULT_JOURNAL_CAPACITY,
            token_lifetime_secs: DEFAULT_LIFETIME_SECS,
            registry: Registry::default(),
            imds_rate_limits: true,
            proxy_listen: None,
        }
    }
}
