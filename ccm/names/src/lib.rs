//! Names the anchor CCM publishes (labels, annotations, taints, finalizers) kept in one place so
//! the controllers, the manifest generator and the reference docs can never disagree.
//!
//! Everything here is plain `const`/`static` data: no I/O, no dependencies, so any crate (and the
//! documentation generator) can import it cheaply.

pub mod access;
pub mod controllers;
pub mod events;
pub mod finalizers;
pub mod labels;
pub mod leases;
pub mod metadata_key;
pub mod node_annotations;
pub mod resource_tags;
pub mod service_annotations;
pub mod taints;

pub use access::{Access, Actor};
