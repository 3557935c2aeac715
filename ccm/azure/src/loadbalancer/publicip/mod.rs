//! Public IPs of Services (anchor-ccm.md §4.8): [`tags`] reads and writes the ownership tags
//! (current and legacy keys), [`plan`] decides per Service which PIPs to create, re-tag or delete.

pub mod plan;
pub mod tags;

#[cfg(test)]
mod tests;

/// Test support shared with the other load-balancer modules' unit tests.
#[cfg(test)]
pub(crate) mod tests_support {
    pub(crate) use super::tests::service;
}

pub use plan::{Ownership, PipContext, PipError, PipPlan, WantedPip, ownership, plan};
