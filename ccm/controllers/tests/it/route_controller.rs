//! The route controller against the embedded API server (a real process) with the in-memory
//! route table.

use std::sync::Arc;
use std::time::Duration;

use ccm_cloud::Route;
use ccm_controllers::route::{RouteController, RouteControllerConfig, RouteMetrics};
use k8s_openapi::api::core::v1::{Event, Node};
use kube::Client;
use kube::api::{Api, DeleteParams, ListParams, PostParams};
use serde_json::json;

use crate::kube_api::{KubeApi, wait_for};
use crate::memory_cloud::MemoryCloud;

fn spawn(client: &Client, cloud: &Arc<MemoryCloud>) {
    let config = RouteControllerConfig::from_flags(
        "kubernetes",
        "10.244.0.0/16,fd00::/48",
        Duration::from_millis(200),
    )
    .unwrap();
    let controller = RouteController::new(
        client.clone(),
        cloud.clone(),
        config,
        RouteMetrics::default(),
    )
    .unwrap();
    tokio::spawn(controller.run());
}

async fn create_node(client: &Client, name: &str, pod_cidrs: &[&str]) {
    let node: Node = serde_json::from_value(json!({
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name},
        "spec": {"podCIDR": pod_cidrs.first(), "podCIDRs": pod_cidrs},
    }))
    .unwrap();
    Api::<Node>::all(client.clone())
        .create(&PostParams::default(), &node)
        .await
        .unwrap();
}

/// `(status, reason, message)` of the node's NetworkUnavailable condition.
async fn network_unavailable(client: &Client, name: &str) -> Option<(String, String, String)> {
    let node = Api::<Node>::all(client.clone()).get(name).await.unwrap();
    node.status?
        .conditions?
        .into_iter()
        .find(|c| c.type_ == "NetworkUnavailable")
        .map(|c| {
            (
                c.status,
                c.reason.unwrap_or_default(),
                c.message.unwrap_or_default(),
            )
        })
}

fn cidrs_of(cloud: &MemoryCloud, node: &str) -> Vec<String> {
    let mut cidrs: Vec<String> = cloud
        .routes()
        .iter()
        .filter(|r| r.target_node == node)
        .map(|r| r.destination_cidr.to_string())
        .collect();
    cidrs.sort();
    cidrs
}

fn created() -> (String, String, String) {
    (
        "False".into(),
        "RouteCreated".into(),
        "RouteController created a route".into(),
    )
}

#[tokio::test]
async fn each_pod_cidr_gets_a_route_and_deleted_nodes_lose_theirs() {
    let api = KubeApi::start().await;
    let cloud = Arc::new(MemoryCloud::default());
    create_node(&api.client, "n1", &["10.244.0.0/24", "fd00::/64"]).await;
    create_node(&api.client, "n2", &["10.244.1.0/24"]).await;
    // Not inside --cluster-cidr: never ours to delete.
    cloud.put_route(Route {
        name: "foreign".into(),
        target_node: "elsewhere".into(),
        target_node_addresses: vec![],
        destination_cidr: "192.168.5.0/24".parse().unwrap(),
        blackhole: false,
    });
    spawn(&api.client, &cloud);

    for node in ["n1", "n2"] {
        let condition = wait_for(&format!("{node} available"), || async {
            network_unavailable(&api.client, node).await
        })
        .await;
        assert_eq!(condition, created());
    }
    assert_eq!(cidrs_of(&cloud, "n1"), ["10.244.0.0/24", "fd00::/64"]);
    assert_eq!(cidrs_of(&cloud, "n2"), ["10.244.1.0/24"]);
    let n1 = Api::<Node>::all(api.client.clone())
        .get("n1")
        .await
        .unwrap();
    let route = cloud
        .routes()
        .into_iter()
        .find(|r| r.target_node == "n1" && r.destination_cidr.to_string() == "10.244.0.0/24")
        .unwrap();
    assert_eq!(route.name, format!("n1-{}", n1.metadata.uid.unwrap()));

    Api::<Node>::all(api.client.clone())
        .delete("n2", &DeleteParams::default())
        .await
        .unwrap();
    wait_for("route of n2 deleted", || async {
        cidrs_of(&cloud, "n2").is_empty().then_some(())
    })
    .await;
    assert_eq!(cidrs_of(&cloud, "n1"), ["10.244.0.0/24", "fd00::/64"]);
    assert_eq!(cidrs_of(&cloud, "elsewhere"), ["192.168.5.0/24"]);
}

#[tokio::test]
async fn failed_creation_marks_the_node_and_records_an_event() {
    let api = KubeApi::start().await;
    let cloud = Arc::new(MemoryCloud::default());
    cloud.fail_routes("bad");
    create_node(&api.client, "bad", &["10.244.7.0/24"]).await;
    spawn(&api.client, &cloud);

    let condition = wait_for("bad unavailable", || async {
        network_unavailable(&api.client, "bad").await
    })
    .await;
    assert_eq!(
        condition,
        (
            "True".into(),
            "NoRouteCreated".into(),
            "RouteController failed to create a route".into()
        )
    );
    let events = wait_for("FailedToCreateRoute", || async {
        let found: Vec<Event> = Api::<Event>::namespaced(api.client.clone(), "default")
            .list(&ListParams::default())
            .await
            .unwrap()
            .items
            .into_iter()
            .filter(|e| e.reason.as_deref() == Some("FailedToCreateRoute"))
            .collect();
        (!found.is_empty()).then_some(found)
    })
    .await;
    let event = &events[0];
    assert_eq!(event.type_.as_deref(), Some("Warning"));
    assert_eq!(event.involved_object.name.as_deref(), Some("bad"));
    assert_eq!(
        event.source.as_ref().and_then(|s| s.component.as_deref()),
        Some("route_controller")
    );
    let message = event.message.clone().unwrap_or_default();
    assert!(
        message.starts_with("Could not create route ")
            && message.contains(" 10.244.7.0/24 for node bad after "),
        "{message}"
    );
    assert!(cidrs_of(&cloud, "bad").is_empty());

    // Once the cloud accepts it, the next pass creates the route and flips the condition.
    cloud.heal_routes("bad");
    wait_for("bad available", || async {
        (network_unavailable(&api.client, "bad").await == Some(created())).then_some(())
    })
    .await;
    assert_eq!(cidrs_of(&cloud, "bad"), ["10.244.7.0/24"]);
}
