//! Protobuf request bodies: the real kubectl's imperative commands (`create namespace|configmap|
//! secret|serviceaccount|service|deployment|clusterrole|...`), which send
//! `application/vnd.kubernetes.protobuf` through client-go's typed clients, are stored exactly as
//! their JSON equivalents would be; `--dry-run=server` stores nothing; malformed bodies get 400
//! and kinds without a protobuf schema get 415.

use base64::Engine as _;
use serde_json::Value;

use super::fixture::{Fixture, json_of};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_create_core_kinds() {
    let f = Fixture::start().await;
    let out = f.kubectl_ok(&["create", "namespace", "pb"]).await;
    assert_eq!(out.trim(), "namespace/pb created");
    let ns = f.get_json(&["namespace", "pb"]).await;
    assert_eq!(ns["status"]["phase"], "Active", "{ns}");

    f.kubectl_ok(&[
        "create",
        "configmap",
        "settings",
        "-n",
        "pb",
        "--from-literal=a=b",
    ])
    .await;
    let cm = f.get_json(&["configmap", "settings", "-n", "pb"]).await;
    assert_eq!(cm["data"], serde_json::json!({"a": "b"}), "{cm}");

    let literal = "s3cr3t value";
    f.kubectl_ok(&[
        "create",
        "secret",
        "generic",
        "creds",
        "-n",
        "pb",
        &format!("--from-literal=password={literal}"),
    ])
    .await;
    let secret = f.get_json(&["secret", "creds", "-n", "pb"]).await;
    assert_eq!(secret["type"], "Opaque");
    assert_eq!(
        secret["data"]["password"],
        base64::engine::general_purpose::STANDARD.encode(literal)
    );

    f.kubectl_ok(&["create", "serviceaccount", "robot", "-n", "pb"])
        .await;
    let sa = f.get_json(&["serviceaccount", "robot", "-n", "pb"]).await;
    assert_eq!(sa["metadata"]["namespace"], "pb");

    f.kubectl_ok(&[
        "create",
        "service",
        "clusterip",
        "api",
        "-n",
        "pb",
        "--tcp=80:8080",
    ])
    .await;
    let svc = f.get_json(&["service", "api", "-n", "pb"]).await;
    let spec = &svc["spec"];
    assert_eq!(spec["type"], "ClusterIP");
    assert_eq!(spec["selector"], serde_json::json!({"app": "api"}));
    assert_eq!(spec["ports"][0]["port"], 80);
    assert_eq!(spec["ports"][0]["targetPort"], 8080);
    assert_eq!(spec["ports"][0]["protocol"], "TCP");
    assert!(
        spec["clusterIP"].as_str().unwrap().starts_with("10.0."),
        "{spec}"
    );

    f.kubectl_ok(&[
        "create",
        "service",
        "nodeport",
        "np",
        "-n",
        "pb",
        "--tcp=443:8443",
    ])
    .await;
    let np = f.get_json(&["service", "np", "-n", "pb"]).await;
    let node_port = np["spec"]["ports"][0]["nodePort"].as_u64().unwrap();
    assert!((30000..=32767).contains(&node_port), "{np}");

    f.kubectl_ok(&[
        "create",
        "service",
        "loadbalancer",
        "lb",
        "-n",
        "pb",
        "--tcp=80:80",
    ])
    .await;
    let lb = f.get_json(&["service", "lb", "-n", "pb"]).await;
    assert_eq!(lb["spec"]["type"], "LoadBalancer", "{lb}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_create_workloads_rbac_and_policy() {
    let f = Fixture::start().await;
    f.kubectl_ok(&[
        "create",
        "deployment",
        "web",
        "--image=nginx:1.27",
        "--replicas=2",
        "--port=80",
    ])
    .await;
    let deploy = f.get_json(&["deployment", "web"]).await;
    let spec = &deploy["spec"];
    assert_eq!(spec["replicas"], 2);
    assert_eq!(
        spec["selector"]["matchLabels"],
        serde_json::json!({"app": "web"})
    );
    let container = &spec["template"]["spec"]["containers"][0];
    assert_eq!(container["name"], "nginx");
    assert_eq!(container["image"], "nginx:1.27");
    assert_eq!(container["ports"][0]["containerPort"], 80);
    // Defaulted by the server as for a JSON body: the protobuf zero values were left unset.
    assert_eq!(container["terminationMessagePath"], "/dev/termination-log");
    assert_eq!(container["imagePullPolicy"], "IfNotPresent");
    assert_eq!(spec["strategy"]["type"], "RollingUpdate", "{spec}");

    f.kubectl_ok(&["run", "one", "--image=busybox:1.36", "--", "sleep", "3600"])
        .await;
    let pod = f.get_json(&["pod", "one"]).await;
    assert_eq!(
        pod["spec"]["containers"][0]["args"],
        serde_json::json!(["sleep", "3600"]),
        "{pod}"
    );

    f.kubectl_ok(&[
        "create",
        "clusterrole",
        "pod-reader",
        "--verb=get,list,watch",
        "--resource=pods,deployments.apps",
    ])
    .await;
    let role = f.get_json(&["clusterrole", "pod-reader"]).await;
    let rules = role["rules"].as_array().unwrap();
    assert!(
        rules
            .iter()
            .any(|r| r["apiGroups"] == serde_json::json!(["apps"])
                && r["resources"] == serde_json::json!(["deployments"])
                && r["verbs"] == serde_json::json!(["get", "list", "watch"])),
        "{role}"
    );
    f.kubectl_ok(&[
        "create",
        "clusterrolebinding",
        "read-pods",
        "--clusterrole=pod-reader",
        "--user=alice",
        "--serviceaccount=default:robot",
    ])
    .await;
    let crb = f.get_json(&["clusterrolebinding", "read-pods"]).await;
    assert_eq!(crb["roleRef"]["name"], "pod-reader");
    assert_eq!(crb["roleRef"]["kind"], "ClusterRole");
    let subjects = crb["subjects"].as_array().unwrap();
    assert_eq!(subjects.len(), 2, "{crb}");
    assert!(
        subjects
            .iter()
            .any(|s| s["kind"] == "User" && s["name"] == "alice")
    );
    assert!(
        subjects
            .iter()
            .any(|s| s["kind"] == "ServiceAccount" && s["namespace"] == "default")
    );
    f.kubectl_ok(&[
        "create",
        "role",
        "cm-editor",
        "--verb=update",
        "--resource=configmaps",
    ])
    .await;
    f.kubectl_ok(&[
        "create",
        "rolebinding",
        "edit-cm",
        "--role=cm-editor",
        "--group=devs",
    ])
    .await;
    let rb = f.get_json(&["rolebinding", "edit-cm"]).await;
    assert_eq!(rb["subjects"][0]["kind"], "Group", "{rb}");

    f.kubectl_ok(&[
        "create",
        "priorityclass",
        "high",
        "--value=1000",
        "--description=important",
    ])
    .await;
    let pc = f.get_json(&["priorityclass", "high"]).await;
    assert_eq!(
        (pc["value"].as_i64(), pc["description"].as_str()),
        (Some(1000), Some("important"))
    );
    assert_eq!(pc["preemptionPolicy"], "PreemptLowerPriority", "{pc}");

    f.kubectl_ok(&[
        "create",
        "pdb",
        "web",
        "--selector=app=web",
        "--min-available=1",
    ])
    .await;
    let pdb = f.get_json(&["pdb", "web"]).await;
    assert_eq!(pdb["spec"]["minAvailable"], 1, "{pdb}");
    assert_eq!(pdb["spec"]["selector"]["matchLabels"]["app"], "web");
    f.kubectl_ok(&[
        "create",
        "pdb",
        "web-pct",
        "--selector=app=web",
        "--max-unavailable=50%",
    ])
    .await;
    let pct = f.get_json(&["pdb", "web-pct"]).await;
    assert_eq!(pct["spec"]["maxUnavailable"], "50%", "{pct}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_create_dry_run_server_stores_nothing() {
    let f = Fixture::start().await;
    let out = f
        .kubectl_ok(&[
            "create",
            "configmap",
            "dry",
            "--from-literal=k=v",
            "--dry-run=server",
            "-o",
            "json",
        ])
        .await;
    let cm = json_of(&out);
    assert_eq!(cm["data"]["k"], "v");
    assert!(cm["metadata"]["uid"].is_string(), "{cm}");
    let get = f.kubectl(&["get", "configmap", "dry"]).await;
    assert!(!get.status.success());
    assert!(
        String::from_utf8_lossy(&get.stderr).contains("NotFound"),
        "{}",
        String::from_utf8_lossy(&get.stderr)
    );
    // Validation runs on decoded bodies exactly as on JSON ones.
    let bad = f
        .kubectl(&[
            "create",
            "deployment",
            "Bad_Name",
            "--image=nginx",
            "--dry-run=server",
        ])
        .await;
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert!(!bad.status.success());
    assert!(stderr.contains("Invalid"), "{stderr}");
}

/// POSTs a raw protobuf body and returns the status code and the Status message.
async fn post_protobuf(f: &Fixture, path: &str, body: Vec<u8>) -> (u16, String) {
    send_protobuf(f, "POST", path, body).await
}

/// Sends a raw protobuf body and returns the status code and the Status message.
async fn send_protobuf(f: &Fixture, method: &str, path: &str, body: Vec<u8>) -> (u16, String) {
    let request = http::Request::builder()
        .method(method)
        .uri(path)
        .header("content-type", "application/vnd.kubernetes.protobuf")
        .body(kube::client::Body::from(body))
        .unwrap();
    let response = f.client().await.send(request).await.unwrap();
    let status = response.status().as_u16();
    let bytes = response.into_body().collect_bytes().await.unwrap();
    let body: Value = serde_json::from_slice(&bytes).unwrap();
    (
        status,
        body["message"].as_str().unwrap_or_default().to_string(),
    )
}

/// The envelope around `raw`: `k8s\0` then runtime.Unknown{typeMeta, raw}.
fn envelope(api_version: &str, kind: &str, raw: &[u8]) -> Vec<u8> {
    fn record(field: u8, payload: &[u8]) -> Vec<u8> {
        assert!(payload.len() < 128);
        let mut out = vec![(field << 3) | 2, payload.len() as u8];
        out.extend_from_slice(payload);
        out
    }
    let type_meta = [
        record(1, api_version.as_bytes()),
        record(2, kind.as_bytes()),
    ]
    .concat();
    [b"k8s\x00".to_vec(), record(1, &type_meta), record(2, raw)].concat()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_and_unsupported_bodies() {
    let f = Fixture::start().await;
    let path = "/api/v1/namespaces/default/configmaps";
    // ConfigMap{metadata{name: "ok"}, data{"a": "b"}}.
    let good = [
        vec![0x0a, 0x04, 0x0a, 0x02, b'o', b'k'],
        vec![0x12, 0x06, 0x0a, 0x01, b'a', 0x12, 0x01, b'b'],
    ]
    .concat();
    let (code, message) = post_protobuf(&f, path, envelope("v1", "ConfigMap", &good)).await;
    assert_eq!(code, 201, "{message}");
    let cm = f.get_json(&["configmap", "ok"]).await;
    assert_eq!(cm["data"]["a"], "b");

    // Field 7 does not exist in ConfigMap: rejected, never dropped.
    let unknown = [good.clone(), vec![0x38, 0x01]].concat();
    let (code, message) = post_protobuf(&f, path, envelope("v1", "ConfigMap", &unknown)).await;
    assert_eq!(code, 400);
    assert_eq!(
        message,
        "error decoding request body: k8s.io.api.core.v1.ConfigMap has no field number 7 (wire type 0)"
    );

    let (code, message) = post_protobuf(&f, path, b"k8s\x00\x0a\x05\x0a".to_vec()).await;
    assert_eq!(
        (code, message.as_str()),
        (400, "error decoding request body: truncated record")
    );

    let (code, message) = post_protobuf(&f, path, envelope("v1", "LimitRange", &[])).await;
    assert_eq!(code, 415, "{message}");
    assert!(
        message.starts_with(
            "the body of the request was in an unknown format - accepted media types include: application/json"
        ),
        "{message}"
    );

    // Typed clients send DeleteOptions as protobuf under their own group version.
    let dry_run_all = [vec![0x2a, 0x03], b"All".to_vec()].concat();
    let (code, message) = send_protobuf(
        &f,
        "DELETE",
        &format!("{path}/ok"),
        envelope("v1", "DeleteOptions", &dry_run_all),
    )
    .await;
    assert_eq!(code, 200, "{message}");
    f.get_json(&["configmap", "ok"]).await;
    let (code, message) = send_protobuf(
        &f,
        "DELETE",
        &format!("{path}/ok"),
        envelope("v1", "DeleteOptions", &[]),
    )
    .await;
    assert_eq!(code, 200, "{message}");
    let gone = f.kubectl(&["get", "configmap", "ok"]).await;
    assert!(!gone.status.success());
}
