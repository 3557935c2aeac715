//! Integration tests: the server on a real loopback socket, driven by the real `kubectl` binary
//! and by kube-rs.

mod audit;
mod auth;
mod ccm_paths;
mod dry_run;
mod field_validation;
mod fixture;
mod graceful_delete;
mod kube_rs;
mod kubectl;
mod pod_status;
mod pod_validation;
mod protobuf;
mod restart;
mod reviews;
mod round_trip;
mod scale;
mod service_type_change;
mod status_metadata;
mod strategic_merge;
