//! Why a fake cloud could not start or stop cleanly.

use std::net::SocketAddr;

/// Start-up / shutdown failure; every variant names the file, address or field involved.
#[derive(Debug, thiserror::Error)]
pub enum CloudError {
    /// CA or server certificate problem (names the TLS directory file).
    #[error("TLS: {0}")]
    Tls(#[from] fake_tls::TlsError),
    /// Token signing key problem.
    #[error(transparent)]
    Issuer(#[from] crate::entra::IssuerError),
    /// The topology file is invalid (names file, line, field and accepted values).
    #[error(transparent)]
    Topology(#[from] crate::topology::TopologyError),
    /// The snapshot file cannot be used.
    #[error(transparent)]
    Snapshot(#[from] crate::snapshot::SnapshotError),
    /// The initial fault schedule is invalid.
    #[error("fault schedule: {0}")]
    Faults(#[from] crate::faults::RuleError),
    /// The listen address cannot be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// Address.
        addr: SocketAddr,
        /// Cause.
        source: std::io::Error,
    },
    /// The server task failed.
    #[error("HTTPS server: {0}")]
    Serve(std::io::Error),
}
