//! Cloud-agnostic Kubernetes controllers for the cloud-controller-manager, with leader election and
//! Leader Migration, shared by the CCM binaries and the harness's emulated in-tree controller manager.
//!
//! The controllers see only the `ccm-cloud` provider traits, never Azure.

pub mod leader;
pub mod migration;
pub mod node;
pub mod node_lifecycle;
