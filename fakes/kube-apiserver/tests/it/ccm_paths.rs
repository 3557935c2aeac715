//! The requests a cloud controller manager makes, as k8s.io/cloud-provider and client-go send
//! them, through kube-rs: Node status patches (`$patch: replace` of addresses, conditions merged
//! by type), Service status patches, Lease updates with resourceVersion preconditions,
//! `events.k8s.io/v1` Events with a series, and client-go's streaming-list watch.

use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{Node, Service};
use k8s_openapi::api::events::v1::Event;
use kube::api::{Api, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

use super::fixture::Fixture;

fn pp(manager: &str) -> PatchParams {
    PatchParams {
        field_manager: Some(manager.into()),
        ..PatchParams::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn node_status_addresses_are_replaced_and_conditions_merged_by_type() {
    let f = Fixture::start().await;
    let nodes: Api<Node> = Api::all(f.client().await);
    let node = serde_json::from_value(json!({"metadata": {"name": "n1"}})).unwrap();
    nodes.create(&PostParams::default(), &node).await.unwrap();
    let first = json!({"status": {
        "addresses": [{"type": "InternalIP", "address": "10.1.0.4"}, {"type": "Hostname", "address": "n1"}],
        "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}]}});
    nodes
        .patch_status("n1", &pp("kubelet"), &Patch::Strategic(first))
        .await
        .unwrap();

    // What nodeutil.PatchNodeStatus sends when addresses change: the new list closed by a
    // `$patch: replace` element, because addresses merge by type otherwise.
    let replace = json!({"status": {"addresses": [
        {"type": "InternalIP", "address": "10.1.0.5"}, {"$patch": "replace"}]}});
    let n = nodes
        .patch_status(
            "n1",
            &pp("cloud-node-controller"),
            &Patch::Strategic(replace),
        )
        .await
        .unwrap();
    let addresses = serde_json::to_value(n.status.as_ref().unwrap().addresses.as_ref()).unwrap();
    assert_eq!(
        addresses,
        json!([{"type": "InternalIP", "address": "10.1.0.5"}])
    );

    // The route controller's condition: merged into the list by type, Ready untouched.
    let cond = json!({"status": {"conditions": [{"type": "NetworkUnavailable", "status": "False",
        "reason": "RouteCreated", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}});
    let n = nodes
        .patch_status("n1", &pp("route-controller"), &Patch::Strategic(cond))
        .await
        .unwrap();
    let types: Vec<String> = n
        .status
        .unwrap()
        .conditions
        .unwrap()
        .into_iter()
        .map(|c| format!("{}={}", c.type_, c.status))
        .collect();
    assert_eq!(types, ["Ready=True", "NetworkUnavailable=False"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn service_status_patches_merge_and_strategic_default_the_ip_mode() {
    let f = Fixture::start().await;
    let services: Api<Service> = Api::namespaced(f.client().await, "default");
    let svc = serde_json::from_value(json!({"metadata": {"name": "lb"},
        "spec": {"type": "LoadBalancer", "ports": [{"port": 80}]}}))
    .unwrap();
    services.create(&PostParams::default(), &svc).await.unwrap();
    let ingress = |ip: &str| json!({"status": {"loadBalancer": {"ingress": [{"ip": ip}]}}});
    let s = services
        .patch_status(
            "lb",
            &pp("service-controller"),
            &Patch::Merge(ingress("20.0.0.1")),
        )
        .await
        .unwrap();
    let got = serde_json::to_value(&s.status).unwrap();
    assert_eq!(
        got["loadBalancer"]["ingress"],
        json!([{"ip": "20.0.0.1", "ipMode": "VIP"}]),
        "{got}"
    );
    // Strategic: ingress has no merge key, so the list is replaced whole.
    let s = services
        .patch_status(
            "lb",
            &pp("service-controller"),
            &Patch::Strategic(ingress("20.0.0.2")),
        )
        .await
        .unwrap();
    let got = serde_json::to_value(&s.status).unwrap();
    assert_eq!(
        got["loadBalancer"]["ingress"],
        json!([{"ip": "20.0.0.2", "ipMode": "VIP"}]),
        "{got}"
    );
    // Clearing the status (what the controller does on deletion) leaves `loadBalancer: {}`.
    let s = services
        .patch_status(
            "lb",
            &pp("service-controller"),
            &Patch::Merge(json!({"status": {"loadBalancer": {"ingress": null}}})),
        )
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&s.status).unwrap(),
        json!({"loadBalancer": {}})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lease_updates_with_a_stale_resource_version_conflict() {
    let f = Fixture::start().await;
    let leases: Api<Lease> = Api::namespaced(f.client().await, "kube-system");
    let lease: Lease =
        serde_json::from_value(json!({"metadata": {"name": "cloud-controller-manager"},
        "spec": {"holderIdentity": "a", "leaseDurationSeconds": 15}}))
        .unwrap();
    let created = leases.create(&PostParams::default(), &lease).await.unwrap();
    let mut renewed = created.clone();
    renewed.spec.as_mut().unwrap().holder_identity = Some("a".into());
    renewed.spec.as_mut().unwrap().lease_transitions = Some(1);
    let stored = leases
        .replace("cloud-controller-manager", &PostParams::default(), &renewed)
        .await
        .unwrap();
    assert_ne!(
        stored.metadata.resource_version,
        created.metadata.resource_version
    );
    // A second candidate still holding the first version loses.
    let mut stale = created.clone();
    stale.spec.as_mut().unwrap().holder_identity = Some("b".into());
    match leases
        .replace("cloud-controller-manager", &PostParams::default(), &stale)
        .await
    {
        Err(kube::Error::Api(s)) => {
            assert_eq!((s.code, s.reason.as_str()), (409, "Conflict"), "{s:?}");
        }
        other => panic!("expected 409, got {other:?}"),
    }
    let live = leases.get("cloud-controller-manager").await.unwrap();
    assert_eq!(live.spec.unwrap().holder_identity.as_deref(), Some("a"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_v1_with_a_series_are_created_and_patched() {
    let f = Fixture::start().await;
    let events: Api<Event> = Api::namespaced(f.client().await, "default");
    let event: Event = serde_json::from_value(json!({
        "metadata": {"name": "lb.1"},
        "eventTime": "2026-01-01T00:00:00.000000Z",
        "reportingController": "service-controller",
        "reportingInstance": "ccm-1",
        "action": "EnsuringLoadBalancer",
        "reason": "EnsuringLoadBalancer",
        "type": "Normal",
        "note": "Ensuring load balancer",
        "regarding": {"kind": "Service", "namespace": "default", "name": "lb", "apiVersion": "v1"}
    }))
    .unwrap();
    events.create(&PostParams::default(), &event).await.unwrap();
    // client-go's events recorder turns a repeated event into a series with a strategic patch.
    let series = json!({"series": {"count": 2, "lastObservedTime": "2026-01-01T00:00:05.000000Z"}});
    let patched = events
        .patch("lb.1", &PatchParams::default(), &Patch::Strategic(series))
        .await
        .unwrap();
    let s = patched.series.unwrap();
    assert_eq!(s.count, 2);
    let series = json!({"series": {"count": 3, "lastObservedTime": "2026-01-01T00:00:09.000000Z"}});
    let patched = events
        .patch("lb.1", &PatchParams::default(), &Patch::Strategic(series))
        .await
        .unwrap();
    assert_eq!(patched.series.unwrap().count, 3);
    assert_eq!(patched.note.as_deref(), Some("Ensuring load balancer"));
}

/// The lines of a watch response that ends by its own timeout.
async fn watch_lines(f: &Fixture, path: &str) -> Vec<Value> {
    let request = http::Request::builder()
        .method("GET")
        .uri(path)
        .body(kube::client::Body::empty())
        .unwrap();
    let response = f.client().await.send(request).await.unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let bytes = response.into_body().collect_bytes().await.unwrap();
    String::from_utf8_lossy(&bytes)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_go_streaming_list_watch_of_nodes() {
    let f = Fixture::start().await;
    let nodes: Api<Node> = Api::all(f.client().await);
    for name in ["n1", "n2"] {
        let node = serde_json::from_value(json!({"metadata": {"name": name}})).unwrap();
        nodes.create(&PostParams::default(), &node).await.unwrap();
    }
    // client-go's reflector with WatchListClient: no resourceVersion, NotOlderThan.
    let lines = watch_lines(
        &f,
        "/api/v1/nodes?allowWatchBookmarks=true&resourceVersion=&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&timeoutSeconds=1&watch=true",
    )
    .await;
    let kinds: Vec<&str> = lines.iter().map(|l| l["type"].as_str().unwrap()).collect();
    assert_eq!(kinds[..3], ["ADDED", "ADDED", "BOOKMARK"], "{lines:?}");
    let bookmark = &lines[2]["object"]["metadata"];
    assert_eq!(bookmark["annotations"]["k8s.io/initial-events-end"], "true");
    assert!(bookmark["resourceVersion"].is_string());
}
