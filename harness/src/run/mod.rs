//! The parity run: [`suite`] (the `harness run` command: load, schedule, report), [`scenario`]
//! (one scenario's phases), [`workload`] and [`service`] (the scenario's actions), [`settle`]
//! (waiting for the cluster after each phase), [`shard`] (`--shard I/N`), [`artifacts`] (a scenario's JSON files), [`scrub`]
//! (credentials out of the artifacts) and
//! [`up`] (`harness up`: a scenario's in-tree cluster for a person at a terminal).

pub mod artifacts;
pub mod periods;
pub mod scenario;
pub mod scrub;
pub mod service;
pub mod settle;
pub mod shard;
pub mod suite;
pub mod up;
pub mod workload;

pub use scenario::{RunError, RunOptions, run_scenario};
pub use suite::RunArgs;
