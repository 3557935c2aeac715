//! Hosting a controller manager's cloud controllers: build them from a provider, classify them
//! under Leader Migration, campaign for the main Lease and then the migration Lease, start each
//! controller only while the lease that governs it is held, and on shutdown stop them before the
//! leases are released. The production `cloud-controller-manager` and the harness's stand-in
//! in-tree `kube-controller-manager` both run their controllers through this module; only the
//! provider, the flags and the provider's cluster feeds differ.
//!
//! Verified (migration.md §2.1, §2.4; k8s.io/controller-manager `leadermigration`): main lease
//! first, then the migration lease; migrated controllers only while holding it, unowned ones
//! never, the others under the main lease; losing either lease ends the process.
//! \[infer\] A controller that stops ends the process with an error, like a lost lease; controllers
//! are restarted only as a whole set, when a new provider replaces the old one (dynamic reloading).

mod build;
mod controllers_flag;
mod error;
mod feeds;
mod leases;
mod running;
mod set;
mod settings;
mod signals;

pub use build::{BuildInputs, Work, build};
pub use controllers_flag::{FlagName, UnknownController, enabled};
pub use error::HostError;
pub use feeds::{ClusterFeeds, NoFeeds};
pub use leases::Leases;
pub use running::RunningControllers;
pub use set::{ControllerSet, Host, HostPlan, Roster};
pub use settings::{ControllerMetrics, ControllerSettings};
pub use signals::termination;
