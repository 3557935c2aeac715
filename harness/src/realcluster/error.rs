//! Why a command on a real cluster could not read it.

use std::path::PathBuf;

/// A real cluster could not be read.
#[derive(Debug, thiserror::Error)]
pub enum RealClusterError {
    /// A file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The azure.json is not one the CCM accepts.
    #[error("--cloud-config {path}: {reason}")]
    CloudConfig {
        /// The file.
        path: PathBuf,
        /// What is wrong (never a secret value: the CCM's errors name keys only).
        reason: String,
    },
    /// Cloud, credential or ARM client setup failed.
    #[error("--cloud-config {path}: setting up Azure: {reason}")]
    Azure {
        /// The file.
        path: PathBuf,
        /// The cause.
        reason: String,
    },
    /// An ARM read failed.
    #[error("ARM read {what}: {reason}")]
    Arm {
        /// What was read.
        what: String,
        /// The ARM error.
        reason: String,
    },
    /// A Kubernetes read failed.
    #[error("Kubernetes: listing {kind}: {reason}")]
    Kube {
        /// What was listed.
        kind: &'static str,
        /// The client error.
        reason: String,
    },
    /// The kubeconfig could not be used.
    #[error(transparent)]
    Cluster(Box<crate::cluster::ClusterError>),
}

impl From<crate::cluster::ClusterError> for RealClusterError {
    fn from(e: crate::cluster::ClusterError) -> Self {
        RealClusterError::Cluster(Box::new(e))
    }
}
