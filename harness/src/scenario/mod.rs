//! Scenario files (`scenarios/*.yaml`): the spec (serde, unknown fields refused), its validation
//! (cross-field rules; every problem reported with file, line, field path and accepted values) and the
//! plan the runner executes. Same pipeline as the fake's topology loader (`fakes/src/topology`): parse
//! with serde-saphyr, keep spans on values checked later, collect every problem, produce a plain plan
//! only when there is none.
//!
//! Fault rules are the fake's own [`azure_fakes::faults::FaultRule`] and are compiled with its rule
//! compiler while validating, so a scenario accepts exactly the rules `azure-fakes` accepts. The topology
//! (a file under the repository, or inline and kept as an opaque document in the plan) is loaded with
//! the fake's topology loader while validating, and node churn must name its scale sets, availability
//! sets, subnets and nodes.
//!
//! Sources of the rules: the supported range 1.28–1.33 is the project's choice inside what
//! `ccm-manifests` generates (1.27–1.36); rollback and Leader Migration need an in-tree
//! kube-controller-manager, which exists up to 1.29 (the in-tree provider was deleted in 1.30,
//! kubernetes#122857; shared/reference/migration.md §5); the `time-to-ingress` and `taint-removal-delay`
//! defaults are KEP-2395's p99 < 60 s (migration.md §3, P3). The `downtime` and `arm-call-budget`
//! defaults are project choices documented in scenarios/README.md. Flags and annotations the shipped
//! scenarios use (`--wait-routes`, `--enable-deprecated-beta-topology-labels`, `--cluster-cidr`,
//! `azure-pip-name`, `azure-load-balancer-internal-subnet`, ...) are those of
//! shared/reference/anchor-ccm.md and migration.md §1.
//!
//! Inferred, not verified:
//! - [infer] which check each negative scenario fails is what its pitfall predicts (migration.md §3);
//!   the runner's per-scenario tests are what prove it.
//! - [infer] an unquoted `kubernetesVersion: 1.30` is read as the text written (serde-saphyr hands the
//!   plain scalar to a `String` field); quoting is still what the README asks for.

mod check;
pub mod cli;
mod duration;
mod error;
mod load;
mod model;
mod plan;
mod problems;
mod spec;
mod validate;
mod validate_topology;
mod validate_workload;
mod yaml_path;

#[cfg(test)]
mod tests;

pub use check::CheckName;
pub use duration::{Duration, DurationError};
pub use error::{LoadErrors, Problem, ScenarioError};
pub use load::{load, load_all, load_each, load_paths, load_str, repo_root, scenario_files};
pub use model::Scenario;
pub use plan::*;
pub use spec::*;
pub use validate::{LAST_IN_TREE_MINOR, MAX_MINOR, MIN_MINOR};
