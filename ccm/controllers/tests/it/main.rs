//! Integration tests of ccm-controllers against the embedded API server run as a real process.

mod api_server;
mod election;
mod kube_api;
mod memory_cloud;
mod migration;
mod node_controllers;
mod node_ipam;
mod proxy;
mod route_controller;
mod run_log;
mod service_controller;
