//! Integration tests of ccm-controllers against the embedded API server run as a real process.

mod kube_api;
mod memory_cloud;
mod node_controllers;
