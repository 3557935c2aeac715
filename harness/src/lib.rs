//! The parity suite as a library: what `harness` runs (modules per DESIGN.md's harness layout),
//! so the binary stays a thin command line and integration tests reach each piece.

pub mod checks;
pub mod cluster;
pub mod compare;
pub mod expectations;
pub mod figures;
pub mod intree;
pub mod kube_controller_manager;
pub mod outcome;
pub mod preflight;
pub mod realcluster;
pub mod record;
pub mod report;
pub mod roster;
pub mod run;
pub mod scenario;
pub mod snapshot;
pub mod supervisor;
pub mod switch;
pub mod timeline;
