//! What can go wrong deploying the managers or switching them.

use std::path::PathBuf;

use crate::cluster::ClusterError;
use crate::intree::kubelet::KubeletError;
use crate::supervisor::SupervisorError;

/// A deployment or switch failure, naming the process, node, file or flag involved.
#[derive(Debug, thiserror::Error)]
pub enum SwitchError {
    /// The plan asks for something the generator or the stand-ins cannot run.
    #[error("scenario {scenario}: {reason}")]
    Plan {
        /// Scenario name.
        scenario: String,
        /// What is wrong.
        reason: String,
    },
    /// Starting, stopping or killing a manager process failed.
    #[error(transparent)]
    Process(Box<SupervisorError>),
    /// The cluster failed (API server restart, client).
    #[error(transparent)]
    Cluster(Box<ClusterError>),
    /// A simulated kubelet refused an operation.
    #[error(transparent)]
    Kubelet(#[from] KubeletError),
    /// A file of the deployment could not be written.
    #[error("{what} {}: {source}", path.display())]
    Io {
        /// What was being done.
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A fact the procedure waits for did not come in time (or a process it needs died).
    #[error("waiting for {what}: {reason}")]
    Timeout {
        /// The awaited fact.
        what: String,
        /// Last observation, or the dead process and its log tail.
        reason: String,
    },
    /// The operation does not apply in the deployment's current state.
    #[error("{0}")]
    State(String),
    /// A manager the run counted on ended on its own (not stopped or killed by the harness).
    #[error("manager {0}")]
    Exited(super::process::Exited),
}

impl From<SupervisorError> for SwitchError {
    fn from(e: SupervisorError) -> Self {
        SwitchError::Process(Box::new(e))
    }
}

impl From<ClusterError> for SwitchError {
    fn from(e: ClusterError) -> Self {
        SwitchError::Cluster(Box::new(e))
    }
}
