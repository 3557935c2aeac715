//! The seam between the cloud controllers and a cloud: the Rust counterpart of
//! `k8s.io/cloud-provider`'s `InstancesV2`, `Zones`, `LoadBalancer` and `Routes` interfaces, their
//! plain data types and one typed [`CloudError`].
//!
//! Nothing here does I/O or names Azure: the controllers are written against these traits and the
//! Azure provider (`ccm-azure`) implements them, so the controllers can be tested with an in-memory
//! provider and the harness's in-tree emulation can run the same code.
//!
//! # Why native `async fn` in traits (and not `async-trait`)
//! The controllers are generic over the provider (`Controller<P: Provider>`), never
//! `dyn Provider`, so object safety is not needed and a boxed future per call would buy nothing.
//! The methods are declared as `fn ... -> impl Future<Output = ...> + Send` (return-position
//! `impl Trait` in traits, stable since Rust 1.75) rather than bare `async fn` so that every
//! implementation's future is `Send` and can run on tokio's multi-threaded runtime; implementors
//! still write plain `async fn`. If a `dyn` seam is ever needed, a small boxing adapter can be
//! added on top without changing the traits.
//!
//! # Errors
//! Every method returns [`CloudError<E>`] where `E` is the provider's own error type
//! (`Provider::Error`), so the `#[source]` chain stays typed end to end (no `Box<dyn Error>`)
//! while the controllers classify failures only through [`CloudError::is_retryable`],
//! [`CloudError::retry_after`] and the [`CloudError::InstanceNotFound`] case.
//!
//! Sources for the method set and semantics: `k8s.io/cloud-provider` `cloud.go` (interfaces
//! `InstancesV2`, `Zones`, `LoadBalancer`, `Routes`, `ErrInstanceNotFound`), read through the public
//! kubernetes/cloud-provider repository.

pub mod error;
pub mod instances;
pub mod load_balancer;
pub mod node_view;
pub mod not_offered;
pub mod provider;
pub mod routes;
pub mod shared_set;
pub mod zones;

pub use error::{CloudError, Retry};
pub use instances::{InstanceMetadata, InstancesV2};
pub use load_balancer::LoadBalancer;
pub use node_view::NodeView;
pub use not_offered::NotOffered;
pub use provider::Provider;
pub use routes::{Route, Routes};
pub use zones::{Zone, Zones};
