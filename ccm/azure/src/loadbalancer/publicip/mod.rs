//! Public IPs of Services (anchor-ccm.md §4.8): [`tags`] reads and writes the ownership tags
//! (current and legacy keys), [`plan`] decides per Service which PIPs to create, re-tag or delete.

pub mod plan;
pub mod tags;

#[cfg(test)]
mod tests;

pub use plan::{Ownership, PipContext, PipError, PipPlan, WantedPip, ownership, plan};
