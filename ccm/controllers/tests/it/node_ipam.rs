//! The node-ipam controller against the embedded API server (a real process).

use std::time::Duration;

use ccm_controllers::node_ipam::{IpamConfig, NodeIpamController};
use k8s_openapi::api::core::v1::{Event, Node};
use kube::Client;
use kube::api::{Api, DeleteParams, ListParams, PostParams};
use serde_json::json;

use crate::kube_api::{KubeApi, wait_for};

async fn create_node(client: &Client, name: &str, pod_cidrs: &[&str]) {
    let spec = match pod_cidrs.first() {
        Some(first) => json!({"podCIDR": first, "podCIDRs": pod_cidrs}),
        None => json!({}),
    };
    let node: Node = serde_json::from_value(json!({
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name},
        "spec": spec,
    }))
    .unwrap();
    Api::<Node>::all(client.clone())
        .create(&PostParams::default(), &node)
        .await
        .unwrap();
}

fn spawn_ipam(client: &Client, cluster_cidr: &str) {
    let config = IpamConfig::from_flags(cluster_cidr, None, None, "").unwrap();
    let controller = NodeIpamController::new(client.clone(), &config, Duration::from_millis(200));
    tokio::spawn(controller.run());
}

/// `(spec.podCIDR, spec.podCIDRs)` of a node.
async fn pod_cidrs(client: &Client, name: &str) -> (Option<String>, Vec<String>) {
    let node = Api::<Node>::all(client.clone()).get(name).await.unwrap();
    let spec = node.spec.unwrap_or_default();
    (spec.pod_cidr, spec.pod_cidrs.unwrap_or_default())
}

async fn wait_for_cidrs(client: &Client, name: &str) -> Vec<String> {
    wait_for(&format!("podCIDRs of {name}"), || async {
        let (single, list) = pod_cidrs(client, name).await;
        (!list.is_empty()).then(|| {
            assert_eq!(single.as_deref(), Some(list[0].as_str()));
            list
        })
    })
    .await
}

/// Messages of events of `type_` about `node` with `reason`, from `cidrAllocator`.
async fn events(client: &Client, type_: &str, node: &str, reason: &str) -> Vec<String> {
    Api::<Event>::namespaced(client.clone(), "default")
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter(|e| e.involved_object.name.as_deref() == Some(node))
        .filter(|e| e.reason.as_deref() == Some(reason) && e.type_.as_deref() == Some(type_))
        .inspect(|e| {
            let source = e.source.as_ref().and_then(|s| s.component.as_deref());
            assert_eq!(source, Some("cidrAllocator"));
        })
        .filter_map(|e| e.message)
        .collect()
}

#[tokio::test]
async fn new_nodes_get_dual_stack_cidrs_and_existing_ones_are_kept() {
    let api = KubeApi::start().await;
    create_node(&api.client, "old", &["10.244.0.0/24", "fd00::/64"]).await;
    spawn_ipam(&api.client, "10.244.0.0/16,fd00::/48");
    create_node(&api.client, "n1", &[]).await;
    create_node(&api.client, "n2", &[]).await;

    let n1 = wait_for_cidrs(&api.client, "n1").await;
    let n2 = wait_for_cidrs(&api.client, "n2").await;
    let mut v4 = vec![n1[0].clone(), n2[0].clone()];
    v4.sort();
    assert_eq!(v4, ["10.244.1.0/24", "10.244.2.0/24"]);
    let mut v6 = vec![n1[1].clone(), n2[1].clone()];
    v6.sort();
    assert_eq!(v6, ["fd00:0:0:1::/64", "fd00:0:0:2::/64"]);
    assert_eq!(
        pod_cidrs(&api.client, "old").await.1,
        ["10.244.0.0/24", "fd00::/64"]
    );
}

#[tokio::test]
async fn stray_cidr_is_reported_and_exhaustion_waits_for_a_release() {
    let api = KubeApi::start().await;
    create_node(&api.client, "stray", &["10.9.0.0/24"]).await;
    spawn_ipam(&api.client, "10.0.0.0/24");

    create_node(&api.client, "a", &[]).await;
    assert_eq!(wait_for_cidrs(&api.client, "a").await, ["10.0.0.0/24"]);
    create_node(&api.client, "b", &[]).await;
    let exhausted = wait_for("CIDRNotAvailable on b", || async {
        let w = events(&api.client, "Normal", "b", "CIDRNotAvailable").await;
        (!w.is_empty()).then_some(w)
    })
    .await;
    assert_eq!(exhausted, ["Node b status is now: CIDRNotAvailable"]);
    assert!(pod_cidrs(&api.client, "b").await.1.is_empty());

    let stray = events(&api.client, "Warning", "stray", "PodCIDRConflict").await;
    assert_eq!(
        stray,
        ["podCIDR 10.9.0.0/24 is outside --cluster-cidr; left unchanged"]
    );
    assert_eq!(pod_cidrs(&api.client, "stray").await.1, ["10.9.0.0/24"]);

    Api::<Node>::all(api.client.clone())
        .delete("a", &DeleteParams::default())
        .await
        .unwrap();
    assert_eq!(wait_for_cidrs(&api.client, "b").await, ["10.0.0.0/24"]);
}

#[tokio::test]
async fn two_nodes_sharing_a_cidr_are_both_left_unchanged() {
    let api = KubeApi::start().await;
    create_node(&api.client, "first", &["10.1.3.0/24"]).await;
    create_node(&api.client, "second", &["10.1.3.0/24"]).await;
    spawn_ipam(&api.client, "10.1.0.0/16");
    create_node(&api.client, "fresh", &[]).await;

    assert_eq!(wait_for_cidrs(&api.client, "fresh").await, ["10.1.0.0/24"]);
    let overlap = events(&api.client, "Warning", "second", "PodCIDRConflict").await;
    assert_eq!(
        overlap,
        ["podCIDR 10.1.3.0/24 overlaps node first; left unchanged"]
    );
    assert_eq!(pod_cidrs(&api.client, "first").await.1, ["10.1.3.0/24"]);
    assert_eq!(pod_cidrs(&api.client, "second").await.1, ["10.1.3.0/24"]);
}

/// Kubernetes' range allocator (the stand-in KCM's node-ipam) never records a podCIDR another
/// allocator writes after its start, so it hands the same block out again: migration.md P12.
#[tokio::test]
async fn upstream_range_allocator_hands_out_a_block_another_writer_gave() {
    let api = KubeApi::start().await;
    let config = IpamConfig::from_flags("10.244.0.0/16", None, None, "")
        .unwrap()
        .upstream_range_allocator();
    let controller =
        NodeIpamController::new(api.client.clone(), &config, Duration::from_millis(200));
    tokio::spawn(controller.run());
    create_node(&api.client, "first", &[]).await;
    // Running: it gave the first block.
    assert_eq!(
        wait_for_cidrs(&api.client, "first").await,
        ["10.244.0.0/24"]
    );
    // Another allocator (e.g. the CCM's) gives the next block to a node.
    create_node(&api.client, "theirs", &["10.244.1.0/24"]).await;
    create_node(&api.client, "ours", &[]).await;
    assert_eq!(wait_for_cidrs(&api.client, "ours").await, ["10.244.1.0/24"]);
}
