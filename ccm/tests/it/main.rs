//! Integration tests of the package's binaries, run as processes against `azure-fakes serve`
//! (fake Azure) and `azure-fakes kube-apiserver` (embedded API server).

mod ccm_services;
mod cloud_controller_manager;
mod cloud_node_manager;
mod config_reload;
mod drop_in;
mod failover;
mod lease_under_load;
mod lifecycle;
mod node_churn;
mod node_facts;
mod node_init;
mod node_watch;
mod node_writes;
mod processes;
mod provided_node_ip;
mod rbac;
mod routes_e2e;
mod secure_port_auth;
mod topology;
