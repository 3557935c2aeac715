//! One Node watch per process: `cloud-controller-manager` running cloud-node, the service
//! controller and cloud-node-lifecycle (1 s `--node-monitor-period`) against the embedded API
//! server with an audit log. Every Node consumer reads the one shared cache, so the process makes
//! one Node LIST (the watch's initial list) and one Node WATCH however many controllers read the
//! Nodes and however many lifecycle periods pass. The test itself never lists or watches Nodes,
//! so every such request in the log is the manager's.

use std::collections::BTreeSet;
use std::path::Path;

use k8s_openapi::api::core::v1::{Node, Service, Taint};
use kube::Api;
use kube::api::{Patch, PatchParams, PostParams};
use serde_json::{Value, json};

use crate::ccm_services::create_web_until_served;
use crate::cloud_controller_manager::{Manager, wait_for};
use crate::lifecycle::set_ready;
use crate::processes::{
    ApiServer, FakeAzure, UNINITIALIZED, agent_nodes, example, small_azure_json,
};

/// Taint cloud-node-lifecycle removes from a Ready node.
const SHUTDOWN: &str = "node.cloudprovider.kubernetes.io/shutdown";

/// Distinct `verb` requests on Nodes in the audit log (a watch is logged when it starts and
/// when it ends, under one audit ID).
fn node_requests(log: &Path, verb: &str) -> usize {
    let text = std::fs::read_to_string(log).expect("audit log");
    let ids: BTreeSet<String> = text
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).expect("an audit event"))
        .filter(|e| e["verb"] == verb && e["objectRef"]["resource"] == "nodes")
        .map(|e| e["auditID"].as_str().unwrap_or_default().to_owned())
        .collect();
    ids.len()
}

fn taint_keys(node: &Node) -> Vec<String> {
    let taints = node.spec.as_ref().and_then(|s| s.taints.as_ref());
    taints
        .into_iter()
        .flatten()
        .map(|t| t.key.clone())
        .collect()
}

/// Puts the shutdown taint on a Ready node and waits until a lifecycle pass has removed it: one
/// pass that read the node's change from the cache.
async fn lifecycle_pass_seen(nodes: &Api<Node>, name: &str, manager: &Manager) {
    let taint = Taint {
        key: SHUTDOWN.to_owned(),
        effect: "NoSchedule".to_owned(),
        ..Default::default()
    };
    let patch = json!({"spec": {"taints": [taint]}});
    nodes
        .patch(name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .expect("taint the node");
    wait_for(
        "lifecycle removes the shutdown taint of a Ready node",
        &[manager],
        || async {
            let node = nodes.get(name).await.ok()?;
            (!taint_keys(&node).iter().any(|k| k == SHUTDOWN)).then_some(())
        },
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_node_consumer_reads_one_watch_and_lifecycle_lists_nothing() {
    let fake = FakeAzure::start(&example("small.yaml"), &["--lro-polls", "0"]);
    let dir = tempfile::tempdir().expect("tempdir");
    let audit = dir.path().join("audit.log");
    let api = ApiServer::start_with(&["--audit-log-path", audit.to_str().expect("utf-8 path")]);
    let config = small_azure_json(&fake, dir.path(), None);
    let client = api.client().await;
    let nodes: Api<Node> = Api::all(client.clone());
    let mut names = Vec::new();
    for mut node in agent_nodes(&fake).await {
        node.spec.get_or_insert_default().taints = Some(vec![Taint {
            key: UNINITIALIZED.to_owned(),
            value: Some("true".to_owned()),
            effect: "NoSchedule".to_owned(),
            ..Default::default()
        }]);
        let name = node.metadata.name.clone().expect("name");
        nodes
            .create(&PostParams::default(), &node)
            .await
            .expect("node");
        set_ready(&nodes, &name, true).await;
        names.push(name);
    }
    let manager = Manager::start(
        &fake,
        &api,
        &config,
        &[
            "--leader-elect=false",
            "--controllers=cloud-node,cloud-node-lifecycle,service",
            "--node-monitor-period=1s",
        ],
    );

    // cloud-node initialises every node from the shared cache.
    wait_for("cloud-node initialises the nodes", &[&manager], || async {
        for name in &names {
            let node = nodes.get(name).await.ok()?;
            if taint_keys(&node).iter().any(|k| k == UNINITIALIZED) {
                return None;
            }
        }
        Some(())
    })
    .await;
    // The service controller gives the load balancer the cached nodes.
    let services: Api<Service> = Api::namespaced(client, "default");
    create_web_until_served(&services, &[&manager]).await;
    // Two lifecycle passes at least, each acting on a change it could only see in the cache.
    lifecycle_pass_seen(&nodes, &names[0], &manager).await;
    lifecycle_pass_seen(&nodes, &names[0], &manager).await;

    assert_eq!(
        node_requests(&audit, "list"),
        1,
        "one Node LIST (the shared watch's initial list), none per lifecycle period\n{}",
        manager.logs()
    );
    assert_eq!(node_requests(&audit, "watch"), 1, "one Node WATCH");
    let exit = manager.terminate();
    assert!(exit.success(), "{exit:?}\n{}", manager.logs());
}
