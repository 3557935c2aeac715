//! Cloud-agnostic Kubernetes controllers for the cloud-controller-manager, with leader election and
//! Leader Migration, shared by the CCM binaries and the harness's emulated in-tree controller manager.
//!
//! The controllers see only the `ccm-cloud` provider traits, never Azure.
//!
//! Leader election is implemented here on kube 5 rather than with `kube-lease-manager`, to keep
//! client-go's exact Lease semantics (expiry from local observation, renew deadline, release on
//! shutdown, resourceVersion concurrency); the reasons are in [`leader`].

pub mod event_post;
pub mod host;
pub mod leader;
pub mod migration;
pub mod node;
pub mod node_cache;
pub mod node_ipam;
pub mod node_lifecycle;
pub mod route;
pub mod service;
