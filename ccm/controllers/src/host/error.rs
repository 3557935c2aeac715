//! Why a hosted controller manager stopped or could not start.

use crate::leader::ElectionConfigError;

/// The failure that ends a host (the binary exits non-zero with it).
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// A controller could not be built from the provider and settings.
    #[error("{controller}: cannot start")]
    Build {
        /// Canonical name.
        controller: &'static str,
        /// Why.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A controller ended although nothing asked it to (its watch ended).
    #[error("{controller} stopped")]
    Stopped {
        /// Canonical name.
        controller: &'static str,
    },
    /// A controller failed.
    #[error("{controller} failed")]
    Failed {
        /// Canonical name.
        controller: &'static str,
        /// Why.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A controller task panicked or was cancelled.
    #[error("a controller task failed: {0}")]
    Task(String),
    /// The main or the migration Lease was lost (`namespace/name`).
    #[error("leader Lease {0} lost")]
    LeaseLost(String),
    /// The election settings are unsafe.
    #[error(transparent)]
    Election(#[from] ElectionConfigError),
    /// A signal handler could not be installed.
    #[error("installing the {signal} handler")]
    Signal {
        /// `SIGTERM` or `SIGINT`.
        signal: &'static str,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}
