//! Manifest generator for in-tree and out-of-tree Azure clusters.

pub mod cli;
