//! Manifest generator for in-tree and out-of-tree Azure clusters, the version-aware manifest
//! lint, and the node/service reference pages built from `azure_ccm::names`.

pub mod catalog;
pub mod cidr;
pub mod cli;
pub mod component;
pub mod docs;
pub mod generate;
pub mod lint;
pub mod options;
pub mod roundtrip;
pub mod version;

pub use generate::{Bundle, GenerateError, generate, write_all};
pub use options::{AuthMode, Mode, Options};
pub use version::KubeVersion;
