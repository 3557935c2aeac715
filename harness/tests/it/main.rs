//! Integration tests of the `harness` binary. One module per command family, plus the scratch
//! directory and binary runner they share.

mod cluster;
mod kubelet;
mod leader_migration;
mod manifests_cli;
mod parity;
mod real_cluster;
mod report;
mod run;
mod scenario_cli;
mod scratch;
mod snapshot;
mod supervisor;
mod switch;
mod testgrid_cli;
