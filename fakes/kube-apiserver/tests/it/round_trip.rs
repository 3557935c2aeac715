//! The typed round trip every write goes through on the real server (empty `omitempty` lists and
//! maps disappear, with the managedFields that named them), driven by the real kubectl: client-side
//! apply, the three patch types and server-side apply of one manifest, in every order.

use super::fixture::Fixture;

const NODE: &str = r#"
apiVersion: v1
kind: Node
metadata:
  name: NAME
  labels: {team: a}
spec:
  taints: [{key: dedicated, value: "true", effect: NoSchedule}]
"#;

const SERVICE: &str = r#"
apiVersion: v1
kind: Service
metadata: {name: NAME, namespace: default, labels: {team: a}}
spec:
  type: LoadBalancer
  selector: {app: web}
  loadBalancerSourceRanges: [10.0.0.0/8]
  ports: [{name: http, port: 80, targetPort: 8080}]
"#;

/// The patches each manifest gets: strategic, merge and json, each emptying or touching a list or
/// map the manifest sets.
fn patches(kind: &str) -> [(&'static str, &'static str); 3] {
    match kind {
        "node" => [
            ("strategic", r#"{"spec":{"taints":[]}}"#),
            ("merge", r#"{"metadata":{"labels":{"patched":"yes"}}}"#),
            (
                "json",
                r#"[{"op":"add","path":"/spec/taints","value":[]},{"op":"add","path":"/metadata/annotations","value":{}}]"#,
            ),
        ],
        _ => [
            ("strategic", r#"{"spec":{"loadBalancerSourceRanges":[]}}"#),
            (
                "merge",
                r#"{"spec":{"externalIPs":[]},"metadata":{"labels":{}}}"#,
            ),
            (
                "json",
                r#"[{"op":"add","path":"/spec/loadBalancerSourceRanges","value":[]}]"#,
            ),
        ],
    }
}

#[derive(Debug, Clone, Copy)]
enum Step {
    ClientApply,
    Patches,
    ServerApply,
}

async fn run(f: &Fixture, kind: &str, name: &str, manifest: &str, step: Step) {
    match step {
        Step::ClientApply => {
            f.apply(manifest, &[]).await;
        }
        Step::ServerApply => {
            f.apply(manifest, &["--server-side"]).await;
        }
        Step::Patches => {
            for (ty, patch) in patches(kind) {
                f.kubectl_ok(&["patch", kind, name, "--type", ty, "-p", patch])
                    .await;
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn apply_patch_and_server_side_apply_succeed_in_any_order() {
    use Step::{ClientApply, Patches, ServerApply};
    let f = Fixture::start().await;
    let orders = [
        [ClientApply, Patches, ServerApply],
        [ClientApply, ServerApply, Patches],
        [Patches, ClientApply, ServerApply],
        [Patches, ServerApply, ClientApply],
        [ServerApply, ClientApply, Patches],
        [ServerApply, Patches, ClientApply],
    ];
    for (kind, template) in [("node", NODE), ("service", SERVICE)] {
        for (i, order) in orders.iter().enumerate() {
            let name = format!("{kind}-{i}");
            let manifest = template.replace("NAME", &name);
            // Patches need an object: the order's first write creates it where patches come first.
            if matches!(order[0], Patches) {
                f.apply(&manifest, &["--server-side", "--field-manager=seed"])
                    .await;
            }
            for step in order.iter().chain(order.iter()) {
                run(&f, kind, &name, &manifest, *step).await;
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn empty_lists_and_maps_are_not_stored_and_nobody_owns_them() {
    let f = Fixture::start().await;
    let manifest = NODE.replace("NAME", "n1");
    f.apply(&manifest, &[]).await;
    let node = f.get_json(&["node", "n1", "--show-managed-fields"]).await;
    // Client-side apply is an Update: its manager owns every field it set, taints included.
    let csa = &node["metadata"]["managedFields"][0];
    assert_eq!(csa["manager"], "kubectl-client-side-apply", "{node}");
    assert!(
        csa["fieldsV1"]["f:spec"]["f:taints"].is_object(),
        "{}",
        csa["fieldsV1"]
    );

    f.kubectl_ok(&["patch", "node", "n1", "-p", r#"{"spec":{"taints":[]}}"#])
        .await;
    f.merge_patch(
        "node",
        "n1",
        r#"{"metadata":{"annotations":{}},"spec":{"podCIDRs":[],"unschedulable":false}}"#,
    )
    .await;
    let node = f.get_json(&["node", "n1", "--show-managed-fields"]).await;
    assert!(node["spec"].get("taints").is_none(), "{}", node["spec"]);
    assert!(node["spec"].get("podCIDRs").is_none(), "{}", node["spec"]);
    // A bool Go holds by value: false is the same as unset.
    assert!(
        node["spec"].get("unschedulable").is_none(),
        "{}",
        node["spec"]
    );
    // The client-side apply annotation is kept: only an empty map disappears.
    assert!(node["metadata"]["annotations"].is_object());
    let text = node["metadata"]["managedFields"].to_string();
    assert!(!text.contains("f:taints"), "{text}");
    assert!(!text.contains("f:podCIDRs"), "{text}");
    assert!(!text.contains("f:unschedulable"), "{text}");

    // What the issue found: server-side apply of the original manifest now succeeds.
    f.apply(&manifest, &["--server-side"]).await;
    let taints = f
        .kubectl_ok(&["get", "node", "n1", "-o", "jsonpath={.spec.taints[0].key}"])
        .await;
    assert_eq!(taints, "dedicated");

    // Unknown fields are dropped (Warn) or refused (Strict); empty maps vanish on create too.
    let created = f
        .raw(
            "POST",
            "/api/v1/namespaces/default/configmaps",
            "application/json",
            r#"{"metadata":{"name":"cm","labels":{}},"data":{},"bogus":1}"#,
        )
        .await;
    assert_eq!(created.status, 201, "{}", created.body);
    assert!(
        created.body["metadata"].get("labels").is_none(),
        "{}",
        created.body
    );
    assert!(created.body.get("data").is_none(), "{}", created.body);
    assert!(created.body.get("bogus").is_none(), "{}", created.body);
    let strict = f
        .raw(
            "POST",
            "/api/v1/namespaces/default/configmaps?fieldValidation=Strict",
            "application/json",
            r#"{"metadata":{"name":"cm2"},"bogus":1}"#,
        )
        .await;
    assert_eq!(strict.status, 400, "{}", strict.body);
}
