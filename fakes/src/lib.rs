//! Fake Azure for offline tests: ARM, IMDS and Entra ID served over HTTPS from one state.

/// The embedded Kubernetes API server lives in its own crate so it compiles in parallel.
pub use fake_kube_apiserver as kube;
