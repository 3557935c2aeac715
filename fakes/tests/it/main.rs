//! Integration tests: spawn the real `azure-fakes` binary and talk to it over HTTPS.

mod api_server;
mod support;

mod admin;
mod arm;
mod auth;
mod ccm_service_lifecycle;
mod cli;
mod compute_fidelity;
mod entra;
mod error_codes;
mod faults;
mod imds;
mod journal;
mod kube_apiserver_cli;
mod metadata;
mod node_proxy;
mod proxy;
mod service_faults;
mod snapshot;
mod throttle;
mod topology;
mod validations;
mod validations_lb;
mod validations_lifecycle;
