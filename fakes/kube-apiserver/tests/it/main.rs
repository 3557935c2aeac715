//! Integration tests: the server on a real loopback socket, driven by the real `kubectl` binary
//! and by kube-rs.

mod common;
mod dry_run;
mod field_validation;
mod kube_rs;
mod kubectl;
mod pod_validation;
mod protobuf;
mod restart;
mod scale;
