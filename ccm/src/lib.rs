//! Azure cloud provider: the package behind `cloud-controller-manager` and `cloud-node-manager`.
//!
//! The library halves live in their own crates (`ccm-names`, `ccm-cloud`, `ccm-azure`, see
//! `ccm/README.md`); this package will hold the two binaries.

/// The names tables, re-exported so `azure_ccm::names` keeps working for existing users.
pub use ccm_names as names;
