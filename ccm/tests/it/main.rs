//! Integration tests of the package's binaries, run as processes against `azure-fakes serve`
//! (fake Azure) and `azure-fakes kube-apiserver` (embedded API server).

mod ccm_services;
mod cloud_controller_manager;
mod cloud_node_manager;
mod config_reload;
mod processes;
mod rbac;
mod rbac_authorizer;
