//! Azure cloud provider: the package behind `cloud-controller-manager` and `cloud-node-manager`.
//!
//! The library halves live in their own crates (`ccm-names`, `ccm-cloud`, `ccm-azure`,
//! `ccm-controllers`, see `ccm/README.md`); this package holds the binaries and the small pieces
//! only they need.

pub mod azure_feeds;
pub mod azure_inputs;
pub mod cloud_config;
pub mod cloud_shared_args;
pub mod delegated_auth;
pub mod election_args;
pub mod go_duration;
pub mod heap_release;
pub mod https_server;
pub mod imds_provider;
pub mod kube_client;
pub mod kube_rate_limit;
pub mod logging;
pub mod process_main;
pub mod process_metrics;
pub mod serving_cert;

/// The names tables, re-exported so `azure_ccm::names` keeps working for existing users.
pub use ccm_names as names;
