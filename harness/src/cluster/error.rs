//! What can go wrong providing or tearing down a cluster.

use std::path::PathBuf;

use super::admin::AdminError;
use crate::supervisor::SupervisorError;

/// A cluster provider failure, naming the file, process or call involved.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    /// Starting or stopping a child process failed.
    #[error(transparent)]
    Process(#[from] SupervisorError),
    /// A file of the cluster could not be read or written.
    #[error("{what} {}: {source}", path.display())]
    Io {
        /// What was being done.
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A process did not print a line it promises.
    #[error("{process} did not print '{missing}:' before it was ready (log {})", log.display())]
    Printed {
        /// The process.
        process: String,
        /// The missing key.
        missing: String,
        /// Its log file.
        log: PathBuf,
    },
    /// The fake's admin API failed.
    #[error(transparent)]
    Admin(#[from] AdminError),
    /// The fake's state lacks what azure.json needs.
    #[error("reading the cluster settings from the fake: {0}")]
    Settings(String),
    /// The kubeconfig is unusable.
    #[error("kubeconfig {}: {reason}", kubeconfig.display())]
    Kube {
        /// The kubeconfig file.
        kubeconfig: PathBuf,
        /// Why.
        reason: String,
    },
    /// Some processes did not stop cleanly (they were killed).
    #[error("teardown: {}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Teardown(Vec<SupervisorError>),
}
