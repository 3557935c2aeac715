//! Why a pool-membership call failed.

use crate::arm::ArmError;
use crate::arm::resources::SelectionError;
use crate::instances::InstanceError;

use super::membership::PoolWrites;

/// Why a pool-membership call failed (or finished only in part).
#[derive(Debug, thiserror::Error)]
pub enum PoolError {
    /// A pool id that is not `.../loadBalancers/<lb>/backendAddressPools/<pool>`.
    #[error("not a backend pool id: {0:?}")]
    NotAPool(String),
    /// Resolving a node to its instance failed.
    #[error(transparent)]
    Instance(#[from] InstanceError),
    /// An ARM read or write failed.
    #[error(transparent)]
    Arm(#[from] ArmError),
    /// A NIC or scale-set model has no primary NIC / ipconfig of the pool's family.
    #[error(transparent)]
    Selection(#[from] SelectionError),
    /// A cached document member did not decode again, or a PUT body did not encode.
    #[error("the cached or edited document of {resource:?} does not (de)serialize: {source}")]
    Json {
        /// The instance or NIC name.
        resource: String,
        /// Why.
        source: serde_json::Error,
    },
    /// A write task ended without an answer (it panicked or was cancelled).
    #[error("a backend pool write task failed: {0}")]
    Task(String),
    /// Some steps failed; the others were done (`done` counts their writes).
    #[error("backend pool membership incomplete ({} failed, {done:?} done): {}", .errors.len(), first(.errors))]
    Incomplete {
        /// The writes that succeeded.
        done: PoolWrites,
        /// Every failure, in the order met.
        errors: Vec<PoolError>,
    },
}

fn first(errors: &[PoolError]) -> String {
    errors.first().map(ToString::to_string).unwrap_or_default()
}
