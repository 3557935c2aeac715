//! Fake Azure for offline tests: ARM, IMDS and Entra ID served over HTTPS from one state.

pub mod admin;
pub mod arm_auth;
pub mod cloud;
pub mod entra;
pub mod faults;
pub mod imds;
pub mod journal;
pub mod metadata_endpoints;
pub mod proxy;
pub mod request_ids;
pub mod snapshot;
pub mod stable_guid;
pub mod throttle;
pub mod token_cache;
pub mod topology;

/// The embedded Kubernetes API server lives in its own crate so it compiles in parallel.
pub use fake_kube_apiserver as kube;
