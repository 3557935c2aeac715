//! Metadata written through `/status` follows each kind's real status strategy: Service, Node,
//! Namespace, DaemonSet and PodDisruptionBudget keep it, Pod keeps all but ownerReferences and
//! Deployment all but labels. The cloud-provider service controller adds and removes its cleanup
//! finalizer this way.

use serde_json::{Value, json};

use super::fixture::Fixture;

const CLEANUP: &str = "service.kubernetes.io/load-balancer-cleanup";

const OBJECTS: &str = r#"
apiVersion: v1
kind: Service
metadata: {name: lb, namespace: default}
spec:
  type: LoadBalancer
  selector: {app: web}
  ports: [{port: 80}]
---
apiVersion: v1
kind: Node
metadata: {name: node-1}
---
apiVersion: v1
kind: Namespace
metadata: {name: team}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  containers: [{name: c, image: busybox:1.36}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default, labels: {app: web}}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: ds, namespace: default}
spec:
  selector: {matchLabels: {app: ds}}
  template:
    metadata: {labels: {app: ds}}
    spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: pdb, namespace: default}
spec:
  minAvailable: 1
  selector: {matchLabels: {app: web}}
"#;

async fn status_patch(f: &Fixture, path: &str, content_type: &str, body: Value) -> Value {
    let r = f
        .raw(
            "PATCH",
            &format!("{path}/status"),
            content_type,
            &body.to_string(),
        )
        .await;
    assert_eq!(r.status, 200, "{path}: {}", r.body);
    let got = f.raw("GET", path, "application/json", "").await;
    assert_eq!(got.status, 200, "{path}: {}", got.body);
    got.body
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metadata_sent_to_status_follows_each_kinds_strategy() {
    let f = Fixture::start().await;
    f.apply(OBJECTS, &[]).await;
    let meta = json!({"labels": {"via": "status"}, "annotations": {"via": "status"},
        "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "owner",
            "uid": "6f1d1f8e-1111-2222-3333-444455556666"}]});
    // (path, labels kept, ownerReferences kept)
    let cases = [
        ("/api/v1/namespaces/default/services/lb", true, true),
        ("/api/v1/nodes/node-1", true, true),
        ("/api/v1/namespaces/team", true, true),
        ("/api/v1/namespaces/default/pods/p", true, false),
        (
            "/apis/apps/v1/namespaces/default/deployments/web",
            false,
            true,
        ),
        ("/apis/apps/v1/namespaces/default/daemonsets/ds", true, true),
        (
            "/apis/policy/v1/namespaces/default/poddisruptionbudgets/pdb",
            true,
            true,
        ),
    ];
    for (path, labels_kept, owners_kept) in cases {
        let body = json!({"metadata": meta, "spec": {"unschedulable": true, "paused": true}});
        let obj = status_patch(&f, path, "application/merge-patch+json", body).await;
        let m = &obj["metadata"];
        assert_eq!(m["annotations"]["via"], "status", "{path}: {m}");
        assert_eq!(m["labels"]["via"] == "status", labels_kept, "{path}: {m}");
        assert_eq!(m["ownerReferences"].is_array(), owners_kept, "{path}: {m}");
        // The spec stays as it was, whatever the kind.
        assert!(obj["spec"].get("unschedulable").is_none(), "{path}: {obj}");
        assert!(obj["spec"].get("paused").is_none(), "{path}: {obj}");
        // The writer owns what it wrote, recorded against the status subresource.
        let entry = m["managedFields"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["subresource"] == "status")
            .unwrap_or_else(|| panic!("{path}: {m}"));
        assert!(
            entry["fieldsV1"]["f:metadata"]["f:annotations"].is_object(),
            "{entry}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_load_balancer_cleanup_finalizer_is_added_and_removed_through_status() {
    let f = Fixture::start().await;
    f.apply(OBJECTS, &[]).await;
    let path = "/api/v1/namespaces/default/services/lb";
    // What servicehelper.PatchService sends: a strategic two-way patch to /status.
    let svc = status_patch(
        &f,
        path,
        "application/strategic-merge-patch+json",
        json!({"metadata": {"finalizers": [CLEANUP]}}),
    )
    .await;
    assert_eq!(svc["metadata"]["finalizers"], json!([CLEANUP]), "{svc}");

    let deleted = f.raw("DELETE", path, "application/json", "").await;
    assert_eq!(deleted.status, 200, "{}", deleted.body);
    let live = f.raw("GET", path, "application/json", "").await;
    assert!(
        live.body["metadata"]["deletionTimestamp"].is_string(),
        "{}",
        live.body
    );

    let last = f
        .raw(
            "PATCH",
            &format!("{path}/status"),
            "application/strategic-merge-patch+json",
            r#"{"metadata":{"finalizers":null}}"#,
        )
        .await;
    assert_eq!(last.status, 200, "{}", last.body);
    let gone = f.raw("GET", path, "application/json", "").await;
    assert_eq!(gone.status, 404, "{}", gone.body);
}
