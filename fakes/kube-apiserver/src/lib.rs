//! Embedded Kubernetes API server: the default cluster of the migration harness, faithful to the
//! real server's semantics (resourceVersions, watches and 410s, conflicts, patches, server-side
//! apply, finalizers, status subresources, Service allocation) for the kinds the cloud controller
//! manager and kubectl use.
//!
//! Stated limitations: there is no kubelet and no garbage collector. A Pod bound to a node and
//! deleted with a grace period stays Terminating until a delete with `gracePeriodSeconds=0` (what
//! the kubelet sends) removes it; a terminating namespace removes its content at once.
//! `propagationPolicy` is validated, but dependents are not tracked: every policy deletes the
//! object as if it had none (no `orphan` or `foregroundDeletion` finalizer is added).

mod auth;
pub mod cli;
mod config;
mod discovery;
mod error;
pub mod field_validation;
mod handlers;
pub mod kinds;
mod kubeconfig;
mod openapi;
pub mod patch;
mod protobuf;
pub mod selectors;
mod server;
pub mod status;
pub mod store;
pub mod table;
mod timestamps;

pub use config::ApiServerConfig;
pub use error::Error;
pub use kinds::service_alloc::ServiceCidr;
pub use kubeconfig::{ADMIN_CONTEXT, AdminCredentials, TOKEN_CONTEXT};
pub use server::{RunningApiServer, SYSTEM_NAMESPACES, start};
