//! `--audit-log-path`: one `audit.k8s.io/v1` Event per request, with the Kubernetes verb the real
//! server's RequestInfo computes, the authenticated user, the objectRef and the response code; a
//! watch is logged when it starts and again when it ends.

use std::time::{Duration, Instant};

use futures::StreamExt;
use k8s_openapi::api::core::v1::{ConfigMap, Node};
use kube::Api;
use kube::api::{DeleteParams, ListParams, Patch, PatchParams, PostParams, WatchParams};
use serde_json::{Value, json};

use super::fixture::Fixture;

fn read_log(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// The events whose verb and resource (and subresource) are as given.
fn find<'a>(log: &'a [Value], verb: &str, resource: &str, sub: Option<&str>) -> Vec<&'a Value> {
    log.iter()
        .filter(|e| {
            e["verb"] == verb
                && e["objectRef"]["resource"] == resource
                && e["objectRef"]["subresource"].as_str() == sub
        })
        .collect()
}

fn config_map(name: &str) -> ConfigMap {
    serde_json::from_value(json!({"metadata": {"name": name}, "data": {"k": "v"}})).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_request_is_logged_with_its_kubernetes_verb_user_and_object() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("logs/audit.log");
    let audit_path = path.clone();
    let f = Fixture::start_with(move |c| c.audit_log = Some(audit_path)).await;
    let client = f.client().await;
    let maps: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    let nodes: Api<Node> = Api::all(client.clone());

    maps.create(&PostParams::default(), &config_map("a"))
        .await
        .unwrap();
    let got = maps.get("a").await.unwrap();
    maps.list(&ListParams::default()).await.unwrap();
    maps.replace("a", &PostParams::default(), &got)
        .await
        .unwrap();
    maps.patch(
        "a",
        &PatchParams::default(),
        &Patch::Merge(json!({"data": {"k": "w"}})),
    )
    .await
    .unwrap();
    assert!(maps.get_opt("missing").await.unwrap().is_none());
    maps.delete("a", &DeleteParams::default()).await.unwrap();
    maps.create(&PostParams::default(), &config_map("b"))
        .await
        .unwrap();
    let deleted = maps
        .delete_collection(&DeleteParams::default(), &ListParams::default())
        .await
        .unwrap();
    let names: Vec<_> = deleted
        .left()
        .expect("the deleted objects")
        .items
        .into_iter()
        .filter_map(|m| m.metadata.name)
        .collect();
    assert_eq!(names, ["b"]);
    let node: Node = serde_json::from_value(json!({"metadata": {"name": "n1"}})).unwrap();
    nodes.create(&PostParams::default(), &node).await.unwrap();
    nodes
        .patch_status(
            "n1",
            &PatchParams::default(),
            &Patch::Merge(
                json!({"status": {"addresses": [{"type": "InternalIP", "address": "10.0.0.4"}]}}),
            ),
        )
        .await
        .unwrap();
    // A watch of one Node by field selector: it starts, delivers, and ends when dropped.
    let mut stream = nodes
        .watch(&WatchParams::default().fields("metadata.name=n1"), "0")
        .await
        .unwrap()
        .boxed();
    assert!(stream.next().await.is_some());
    drop(stream);

    let deadline = Instant::now() + Duration::from_secs(30);
    let log = loop {
        let log = read_log(&path);
        let watch_done = find(&log, "watch", "nodes", None)
            .iter()
            .any(|e| e["stage"] == "ResponseComplete");
        if watch_done {
            break log;
        }
        assert!(
            Instant::now() < deadline,
            "no watch ResponseComplete: {log:#?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };

    for e in &log {
        assert_eq!(e["kind"], "Event", "{e}");
        assert_eq!(e["apiVersion"], "audit.k8s.io/v1", "{e}");
        assert_eq!(e["level"], "Metadata", "{e}");
        assert!(
            e["auditID"].as_str().is_some_and(|id| !id.is_empty()),
            "{e}"
        );
        assert!(
            e["requestURI"].as_str().is_some_and(|u| u.starts_with('/')),
            "{e}"
        );
        assert_eq!(e["user"]["username"], "kubernetes-admin", "{e}");
        assert_eq!(e["user"]["groups"], json!(["system:masters"]), "{e}");
        assert!(
            e["stageTimestamp"]
                .as_str()
                .is_some_and(|t| t.ends_with('Z')),
            "{e}"
        );
    }
    let one = |verb: &str, resource: &str, sub: Option<&str>| {
        let found = find(&log, verb, resource, sub);
        assert!(
            !found.is_empty(),
            "no {verb} {resource} {sub:?} in {log:#?}"
        );
        found[0].clone()
    };
    let create = one("create", "configmaps", None);
    assert_eq!(
        create["objectRef"],
        json!({"resource": "configmaps", "namespace": "default", "apiVersion": "v1"})
    );
    assert_eq!(create["stage"], "ResponseComplete");
    assert_eq!(create["responseStatus"]["code"], 201);
    assert_eq!(one("get", "configmaps", None)["objectRef"]["name"], "a");
    assert!(
        one("list", "configmaps", None)["objectRef"]
            .get("name")
            .is_none()
    );
    assert_eq!(
        one("update", "configmaps", None)["responseStatus"]["code"],
        200
    );
    assert_eq!(one("patch", "configmaps", None)["objectRef"]["name"], "a");
    let missing = find(&log, "get", "configmaps", None)
        .into_iter()
        .find(|e| e["objectRef"]["name"] == "missing")
        .expect("the 404 get");
    assert_eq!(missing["responseStatus"]["code"], 404);
    assert_eq!(one("delete", "configmaps", None)["objectRef"]["name"], "a");
    one("deletecollection", "configmaps", None);
    let status = one("patch", "nodes", Some("status"));
    assert_eq!(
        status["objectRef"],
        json!({"resource": "nodes", "name": "n1", "apiVersion": "v1", "subresource": "status"})
    );
    let watches = find(&log, "watch", "nodes", None);
    let stages: Vec<&str> = watches.iter().filter_map(|e| e["stage"].as_str()).collect();
    assert_eq!(
        stages,
        ["ResponseStarted", "ResponseComplete"],
        "{watches:#?}"
    );
    assert_eq!(watches[0]["auditID"], watches[1]["auditID"]);
    // The field selector names the object, as it does for the real authorizer.
    assert_eq!(watches[0]["objectRef"]["name"], "n1");
    assert!(
        watches[0]["requestURI"]
            .as_str()
            .unwrap()
            .contains("watch=true")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn non_resource_requests_have_no_object_and_no_log_without_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.log");
    let audit_path = path.clone();
    let f = Fixture::start_with(move |c| c.audit_log = Some(audit_path)).await;
    let r = f.raw("GET", "/apis", "application/json", "").await;
    assert_eq!(r.status, 200);
    let log = read_log(&path);
    let apis = log
        .iter()
        .find(|e| e["requestURI"] == "/apis")
        .expect("GET /apis logged");
    assert_eq!(apis["verb"], "get");
    assert!(apis.get("objectRef").is_none(), "{apis}");

    let plain = Fixture::start().await;
    plain.raw("GET", "/apis", "application/json", "").await;
    let files: Vec<_> = std::fs::read_dir(plain.dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains("audit"))
        .collect();
    assert!(files.is_empty(), "{files:?}");
}
