//! The real `/usr/bin/kubectl` against the server: get (tables, selectors, output formats),
//! describe, apply (client- and server-side), the three patch types, label/annotate, delete with
//! finalizers, wait and `get -w`.

use std::process::Stdio;
use std::time::Duration;

use tokio::io::AsyncReadExt;

use super::fixture::{Fixture, assert_ok, json_of};

const WEB: &str = r#"
apiVersion: v1
kind: Node
metadata:
  name: node-1
  labels: {kubernetes.io/hostname: node-1, node-role.kubernetes.io/agent: ""}
spec:
  taints: [{key: node.cloudprovider.kubernetes.io/uninitialized, value: "true", effect: NoSchedule}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: app, image: "nginx:1.27", ports: [{containerPort: 80}]}
      - {name: sidecar, image: "busybox:1.36"}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default, labels: {app: web}}
spec:
  type: LoadBalancer
  externalTrafficPolicy: Local
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: 8080}]
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn get_describe_label_annotate() {
    let f = Fixture::start().await;
    let out = f.apply(WEB, &[]).await;
    assert!(out.contains("service/web created"), "{out}");

    let svc = f.get_json(&["svc", "web"]).await;
    let spec = &svc["spec"];
    assert!(spec["clusterIP"].as_str().unwrap().starts_with("10.0."));
    let node_port = spec["ports"][0]["nodePort"].as_u64().unwrap();
    assert!((30000..=32767).contains(&node_port), "{node_port}");
    assert!(spec["healthCheckNodePort"].as_u64().is_some(), "{spec}");
    assert_ne!(spec["healthCheckNodePort"].as_u64(), Some(node_port));

    // Server-side printing: kubectl asks for a Table and prints our columns.
    let table = f.kubectl_ok(&["get", "svc", "-o", "wide"]).await;
    let header = table.lines().next().unwrap();
    assert!(
        header.split_whitespace().collect::<Vec<_>>()
            == [
                "NAME",
                "TYPE",
                "CLUSTER-IP",
                "EXTERNAL-IP",
                "PORT(S)",
                "AGE",
                "SELECTOR"
            ],
        "{table}"
    );
    assert!(table.contains(&format!("80:{node_port}/TCP")), "{table}");
    let nodes = f.kubectl_ok(&["get", "nodes"]).await;
    assert!(
        nodes.lines().nth(1).unwrap().starts_with("node-1"),
        "{nodes}"
    );
    let deploy = f
        .kubectl_ok(&["get", "deploy", "web", "--no-headers"])
        .await;
    assert!(deploy.starts_with("web "), "{deploy}");

    let describe = f.kubectl_ok(&["describe", "svc", "web"]).await;
    assert!(
        describe.contains("External Traffic Policy:  Local"),
        "{describe}"
    );
    assert!(describe.contains("HealthCheck NodePort:"), "{describe}");
    let describe = f.kubectl_ok(&["describe", "node", "node-1"]).await;
    assert!(
        describe.contains("node.cloudprovider.kubernetes.io/uninitialized=true:NoSchedule"),
        "{describe}"
    );

    f.kubectl_ok(&["label", "svc", "web", "tier=frontend"])
        .await;
    f.kubectl_ok(&["annotate", "svc", "web", "example.com/owner=team-a"])
        .await;
    let by_label = f
        .kubectl_ok(&["get", "svc", "-l", "tier=frontend", "-o", "name"])
        .await;
    assert_eq!(by_label.trim(), "service/web");
    let none = f
        .kubectl_ok(&["get", "svc", "-l", "tier!=frontend", "-o", "name"])
        .await;
    assert_eq!(none.trim(), "service/kubernetes");
    let by_field = f
        .kubectl_ok(&[
            "get",
            "svc",
            "-A",
            "--field-selector",
            "spec.type=LoadBalancer",
            "-o",
            "name",
        ])
        .await;
    assert_eq!(by_field.trim(), "service/web");
    let annotations = f
        .kubectl_ok(&[
            "get",
            "svc",
            "web",
            "-o",
            "jsonpath={.metadata.annotations.example\\.com/owner}",
        ])
        .await;
    assert_eq!(annotations, "team-a");
    // Overwriting a label needs --overwrite, like the real server's client-side check.
    let out = f.kubectl(&["label", "svc", "web", "tier=backend"]).await;
    assert!(!out.status.success());
    f.kubectl_ok(&["label", "svc", "web", "tier-"]).await;
    let labels = f
        .kubectl_ok(&["get", "svc", "web", "-o", "jsonpath={.metadata.labels}"])
        .await;
    assert_eq!(json_of(&labels), serde_json::json!({"app": "web"}));

    // A bad field selector is a 400 naming the field.
    let out = f
        .kubectl(&["get", "svc", "--field-selector", "spec.nope=x"])
        .await;
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("spec.nope"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn apply_and_the_three_patch_types() {
    let f = Fixture::start().await;
    f.apply(WEB, &[]).await;
    let again = f.apply(WEB, &[]).await;
    assert!(again.contains("deployment.apps/web unchanged"), "{again}");

    // Strategic merge: containers merge by name, so the sidecar survives.
    f.kubectl_ok(&[
        "patch",
        "deploy",
        "web",
        "-p",
        r#"{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"nginx:1.28"}]}}}}"#,
    ])
    .await;
    let d = f.get_json(&["deploy", "web"]).await;
    let containers = d["spec"]["template"]["spec"]["containers"]
        .as_array()
        .unwrap();
    assert_eq!(containers.len(), 2);
    assert_eq!(containers[0]["image"], "nginx:1.28");
    assert_eq!(containers[1]["name"], "sidecar");
    assert_eq!(d["metadata"]["generation"], 2);

    // JSON merge patch replaces lists whole.
    f.merge_patch("deploy", "web", r#"{"spec":{"replicas":5}}"#)
        .await;
    // JSON patch, including a failing test op (422, object unchanged).
    f.kubectl_ok(&[
        "patch",
        "deploy",
        "web",
        "--type=json",
        "-p",
        r#"[{"op":"test","path":"/spec/replicas","value":5},{"op":"replace","path":"/spec/replicas","value":3}]"#,
    ])
    .await;
    let out = f
        .kubectl(&[
            "patch",
            "deploy",
            "web",
            "--type=json",
            "-p",
            r#"[{"op":"test","path":"/spec/replicas","value":99}]"#,
        ])
        .await;
    assert!(!out.status.success());
    let d = json_of(
        &f.kubectl_ok(&[
            "get",
            "deploy",
            "web",
            "-o",
            "json",
            "--show-managed-fields",
        ])
        .await,
    );
    assert_eq!(d["spec"]["replicas"], 3);
    assert_eq!(d["metadata"]["generation"], 4);
    let managers: Vec<&str> = d["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["manager"].as_str().unwrap())
        .collect();
    assert_eq!(managers, ["kubectl-client-side-apply", "kubectl-patch"]);

    // Status subresource: a patch of status through the main resource is ignored.
    f.merge_patch(
        "svc",
        "web",
        r#"{"status":{"loadBalancer":{"ingress":[{"ip":"1.2.3.4"}]}}}"#,
    )
    .await;
    let ip = f
        .kubectl_ok(&[
            "get",
            "svc",
            "web",
            "-o",
            "jsonpath={.status.loadBalancer.ingress}",
        ])
        .await;
    assert_eq!(ip, "");
    f.merge_patch_status(
        "svc",
        "web",
        r#"{"status":{"loadBalancer":{"ingress":[{"ip":"1.2.3.4"}]}}}"#,
    )
    .await;
    let table = f.kubectl_ok(&["get", "svc", "web", "--no-headers"]).await;
    assert!(table.contains("1.2.3.4"), "{table}");

    // Invalid patches: 422 naming the field, nothing changes.
    let out = f
        .kubectl(&[
            "patch",
            "node",
            "node-1",
            "--type=merge",
            "-p",
            r#"{"spec":{"taints":[{"key":"x","effect":"Sometimes"}]}}"#,
        ])
        .await;
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("spec.taints[0].effect: Unsupported value: \"Sometimes\""),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_side_apply_with_field_managers() {
    let f = Fixture::start().await;
    let cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ssa, namespace: default}\ndata: {a: \"1\", b: \"1\"}\n";
    let out = f
        .apply(cm, &["--server-side", "--field-manager=alice"])
        .await;
    assert!(out.contains("configmap/ssa serverside-applied"), "{out}");
    // The Service's port list is keyed by port+protocol; an unchanged re-apply is a no-op.
    f.apply(WEB, &["--server-side"]).await;
    f.apply(WEB, &["--server-side"]).await;
    let ports = f
        .kubectl_ok(&["get", "svc", "web", "-o", "jsonpath={.spec.ports[*].port}"])
        .await;
    assert_eq!(ports, "80");

    let bob = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ssa, namespace: default}\ndata: {a: \"2\"}\n";
    let out = f
        .kubectl_stdin(
            &["apply", "--server-side", "--field-manager=bob", "-f", "-"],
            Some(bob),
        )
        .await;
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("conflict with \"alice\""), "{err}");
    assert!(err.contains(".data.a"), "{err}");

    f.apply(
        bob,
        &["--server-side", "--field-manager=bob", "--force-conflicts"],
    )
    .await;
    let live = f.get_json(&["cm", "ssa", "--show-managed-fields"]).await;
    assert_eq!(live["data"], serde_json::json!({"a": "2", "b": "1"}));
    let entries = live["metadata"]["managedFields"].as_array().unwrap();
    let alice = entries.iter().find(|e| e["manager"] == "alice").unwrap();
    assert_eq!(alice["operation"], "Apply");
    assert_eq!(
        alice["fieldsV1"],
        serde_json::json!({"f:data": {"f:b": {}}})
    );

    // Alice stops applying b: it is removed because nobody else owns it.
    let alice2 =
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ssa, namespace: default}\ndata: {}\n";
    f.apply(alice2, &["--server-side", "--field-manager=alice"])
        .await;
    let data = f
        .kubectl_ok(&["get", "cm", "ssa", "-o", "jsonpath={.data}"])
        .await;
    assert_eq!(json_of(&data), serde_json::json!({"a": "2"}));
}

async fn read_until(out: &mut tokio::process::ChildStdout, buf: &mut String, needle: &str) -> bool {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
    let mut chunk = [0u8; 4096];
    while !buf.contains(needle) {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        match tokio::time::timeout(left, out.read(&mut chunk)).await {
            Ok(Ok(n)) if n > 0 => buf.push_str(&String::from_utf8_lossy(&chunk[..n])),
            _ => return false,
        }
    }
    true
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delete_with_finalizers_wait_and_watch() {
    let f = Fixture::start().await;
    let mut watch = f
        .kubectl_command(&["get", "configmaps", "-w", "--output-watch-events"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = watch.stdout.take().unwrap();
    let mut seen = String::new();
    // Nothing exists yet; the header appears with the first event.
    let held = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: held, namespace: default, finalizers: [example.com/hold]}\ndata: {k: v}\n";
    f.apply(held, &[]).await;
    assert!(
        read_until(&mut stdout, &mut seen, "ADDED").await,
        "watch output: {seen}"
    );

    let out = f
        .kubectl_ok(&["delete", "cm", "held", "--wait=false"])
        .await;
    assert!(out.contains("deleted"), "{out}");
    let ts = f
        .kubectl_ok(&[
            "get",
            "cm",
            "held",
            "-o",
            "jsonpath={.metadata.deletionTimestamp}",
        ])
        .await;
    assert!(ts.ends_with('Z'), "{ts}");
    // New finalizers cannot be added while deleting.
    let out = f
        .kubectl(&[
            "patch",
            "cm",
            "held",
            "--type=json",
            "-p",
            r#"[{"op":"add","path":"/metadata/finalizers/-","value":"example.com/more"}]"#,
        ])
        .await;
    assert!(!out.status.success());

    let waiter = f
        .kubectl_command(&["wait", "--for=delete", "cm/held", "--timeout=20s"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    f.kubectl_ok(&[
        "patch",
        "cm",
        "held",
        "--type=json",
        "-p",
        r#"[{"op":"remove","path":"/metadata/finalizers"}]"#,
    ])
    .await;
    let waited = tokio::time::timeout(Duration::from_secs(30), waiter.wait_with_output())
        .await
        .unwrap()
        .unwrap();
    assert_ok(&["wait"], &waited);
    let out = f.kubectl(&["get", "cm", "held"]).await;
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("Error from server (NotFound): configmaps \"held\" not found"),
        "{err}"
    );
    assert!(
        read_until(&mut stdout, &mut seen, "DELETED").await,
        "watch output: {seen}"
    );
    watch.kill().await.unwrap();
    let events: Vec<&str> = seen
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().next().unwrap_or_default())
        .collect();
    assert_eq!(events.first(), Some(&"ADDED"), "{seen}");
    assert_eq!(events.last(), Some(&"DELETED"), "{seen}");
    assert!(events.contains(&"MODIFIED"), "{seen}");

    // wait --for=condition and --for=jsonpath on a status field set through /status.
    let node = "apiVersion: v1\nkind: Node\nmetadata: {name: n2}\n";
    f.apply(node, &[]).await;
    f.merge_patch_status("node", "n2", r#"{"status":{"conditions":[{"type":"Ready","status":"True","reason":"KubeletReady","message":"ok","lastHeartbeatTime":"2025-01-01T00:00:00Z","lastTransitionTime":"2025-01-01T00:00:00Z"}]}}"#)
        .await;
    f.kubectl_ok(&["wait", "--for=condition=Ready", "node/n2", "--timeout=10s"])
        .await;
    let nodes = f.kubectl_ok(&["get", "node", "n2", "--no-headers"]).await;
    assert!(nodes.contains(" Ready "), "{nodes}");
    f.kubectl_ok(&["delete", "node", "n2"]).await;
}
