//! The fakes as processes (shared `fake-process` crate) and the binary under test.

use std::process::Command;

pub use fake_process::{
    ApiServer, FakeAzure, LoggedProcess, agent_nodes, example, has_ingress, ingress_ip,
    load_balancer_service, small_azure_json, small_cluster, tcp_port, with_app,
};
use k8s_openapi::api::core::v1::{Node, NodeSpec, Taint};
use kube::api::ObjectMeta;

/// The taint a Node keeps until a cloud-node controller initialises it.
pub const UNINITIALIZED: &str = "node.cloudprovider.kubernetes.io/uninitialized";

/// A Node as the kubelet registers it with `--cloud-provider=external`.
pub fn tainted_node(name: &str) -> Node {
    Node {
        metadata: ObjectMeta {
            name: Some(name.to_owned()),
            ..Default::default()
        },
        spec: Some(NodeSpec {
            taints: Some(vec![Taint {
                key: UNINITIALIZED.to_owned(),
                value: Some("true".to_owned()),
                effect: "NoSchedule".to_owned(),
                ..Default::default()
            }]),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// The `cloud-node-manager` binary of this package.
pub fn cloud_node_manager() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cloud-node-manager"))
}

/// The `cloud-controller-manager` binary of this package.
pub fn cloud_controller_manager() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cloud-controller-manager"))
}
