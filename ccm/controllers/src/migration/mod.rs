//! Leader Migration (KEP-2436), actually enforced: configuration, per-controller classification
//! and the two-lease gate.
//!
//! Verified (sources in `shared/reference/migration.md` section 2 and upstream
//! `k8s.io/controller-manager`): the group `controllermanager.config.k8s.io` and its versions
//! v1alpha1/v1beta1 (`leaderName`, `resourceLock`, `controllerLeaders[]{name, component}`) and v1
//! (no `resourceLock`, `config/v1/types.go`); validation of `leaderName`, `name`, `component`
//! (`config.go`); the default config (`default.go`: `cloud-provider-extraction-migration`,
//! `route`/`service`/`cloud-node-lifecycle` with component `*`, the same for both managers);
//! `*` matches any component and a controller listed for another component is not started
//! (`NewLeaderMigrator`/`FilterResult`); main lease first, then the migration lease; losing either
//! exits; migration only with `--leader-elect=true`.
//!
//! Deliberate differences and inferences:
//! - Names are matched through aliases (`names.rs`), so ≤1.27 keys (`route`), ≥1.28 default names
//!   (`route-controller`) and canonical names (`node-route-controller`) all mean one controller;
//!   upstream compares strings and can let a controller double-run.
//! - [infer] A config file without `--enable-leader-migration` is refused (KEP text), although the
//!   vendored `ApplyTo` ignores it.
//! - [infer] `resourceLock` must be `leases` (client-go dropped `endpoints` locks); under v1 a
//!   `resourceLock: leases` line, as in the upstream docs' examples, is accepted, anything else refused.
//!   A missing `resourceLock` under v1alpha1/v1beta1 means `leases`.
//! - [infer] Two entries naming the same controller (after aliases) are refused.

mod classify;
mod config;
mod error;
mod gate;
mod names;
mod options;

pub use classify::{Classification, ControllerClass, classify};
pub use config::{
    ANY_COMPONENT, ConfigSource, ControllerLeader, GROUP, KIND, LeaderMigrationConfig,
    RESOURCE_LOCK_LEASES,
};
pub use error::MigrationConfigError;
pub use gate::{GateState, LeaseGate};
pub use names::canonical;
pub use options::MigrationFlags;
