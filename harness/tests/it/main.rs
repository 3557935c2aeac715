//! Integration tests of the `harness` binary. One module per command family, plus the scratch
//! directory and binary runner they share.

mod ccm_binary;
mod cluster;
mod kubelet;
mod leader_migration;
mod manifests_cli;
mod outcomes;
mod parity;
mod real_cluster;
mod report;
mod run;
mod scenario_cli;
mod scratch;
mod shard_merge;
mod snapshot;
mod supervisor;
mod switch;
mod testgrid_cli;
mod timeline;
mod timeline_screenshot;
mod upstream;
