//! The fakes as processes (shared `fake-process` crate) and the binary under test.

use std::process::Command;

pub use fake_process::{ApiServer, FakeAzure, example};

/// The `cloud-node-manager` binary of this package.
pub fn cloud_node_manager() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cloud-node-manager"))
}

/// The `cloud-controller-manager` binary of this package.
pub fn cloud_controller_manager() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cloud-controller-manager"))
}
