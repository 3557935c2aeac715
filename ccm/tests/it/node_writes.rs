//! The cloud-node controller's writes as the API server sees them (its audit log): the real
//! `cloud-controller-manager` initialises a tainted Node with one merge patch computed from its
//! watch cache (no GET of the Node first), then the status patch of the addresses; a Node changed
//! after the controller cached it makes that patch fail with 409, and the controller reads it
//! fresh, recomputes and ends with the Node initialised and the other writer's label and taint
//! kept.

use std::path::Path;

use k8s_openapi::api::core::v1::Node;
use kube::Api;
use kube::api::{Patch, PatchParams, PostParams};
use serde_json::{Value, json};

use crate::cloud_controller_manager::{Manager, wait_for};
use crate::processes::{
    ApiServer, FakeAzure, UNINITIALIZED, example, small_azure_json, tainted_node,
};

/// The identity the manager authenticates with, so its calls are told from the test's.
const CCM_USER: &str = "system:serviceaccount:kube-system:cloud-controller-manager";

/// One call on a Node in the audit log: verb, subresource, response code.
type NodeCall = (String, String, u64);

/// The calls `user` made on Node `name`, in the order the server answered them.
fn node_calls(log: &Path, user: &str, name: &str) -> Vec<NodeCall> {
    let text = std::fs::read_to_string(log).expect("audit log");
    text.lines()
        .map(|line| serde_json::from_str::<Value>(line).expect("audit event"))
        .filter(|e| e["user"]["username"] == user && e["stage"] == "ResponseComplete")
        .filter(|e| e["objectRef"]["resource"] == "nodes" && e["objectRef"]["name"] == name)
        .map(|e| {
            (
                e["verb"].as_str().unwrap_or_default().to_owned(),
                e["objectRef"]["subresource"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                e["responseStatus"]["code"].as_u64().unwrap_or_default(),
            )
        })
        .collect()
}

fn call(verb: &str, subresource: &str, code: u64) -> NodeCall {
    (verb.to_owned(), subresource.to_owned(), code)
}

fn taint_keys(node: &Node) -> Vec<String> {
    node.spec
        .as_ref()
        .and_then(|s| s.taints.as_ref())
        .map(|t| t.iter().map(|t| t.key.clone()).collect())
        .unwrap_or_default()
}

/// Initialised: no uninitialized taint, a providerID and addresses.
fn initialised(node: &Node) -> bool {
    !taint_keys(node).iter().any(|k| k == UNINITIALIZED)
        && node
            .spec
            .as_ref()
            .and_then(|s| s.provider_id.as_ref())
            .is_some()
        && node
            .status
            .as_ref()
            .and_then(|s| s.addresses.as_ref())
            .is_some_and(|a| !a.is_empty())
}

/// The agent node names of small.yaml.
fn agents(fake: &FakeAzure) -> Vec<String> {
    fake.imds
        .iter()
        .map(|(name, _)| name.clone())
        .filter(|name| name.contains("agentpool"))
        .collect()
}

/// A cloud-node-only manager authenticating as [`CCM_USER`].
async fn start_manager(fake: &FakeAzure, api: &ApiServer, dir: &Path) -> Manager {
    let config = small_azure_json(fake, dir, None);
    let kubeconfig = api
        .kubeconfig_for(CCM_USER, Some("system:serviceaccounts"))
        .await;
    let args = [
        format!("--cloud-config={}", config.display()),
        format!("--kubeconfig={}", kubeconfig.display()),
        "--leader-elect=false".to_owned(),
        "--controllers=cloud-node".to_owned(),
        "--configure-cloud-routes=false".to_owned(),
    ];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    Manager::start_raw(fake, &args)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tainted_node_is_patched_from_the_cache_without_a_read_first() {
    let dir = tempfile::tempdir().expect("tempdir");
    let audit = dir.path().join("audit.log");
    let fake = FakeAzure::start(&example("small.yaml"), &["--lro-polls", "0"]);
    let api = ApiServer::start_with(&["--audit-log-path", audit.to_str().expect("utf-8 path")]);
    let nodes: Api<Node> = Api::all(api.client().await);
    let names = agents(&fake);
    for name in &names {
        nodes
            .create(&PostParams::default(), &tainted_node(name))
            .await
            .expect("create node");
    }
    let manager = start_manager(&fake, &api, dir.path()).await;
    for name in &names {
        wait_for("the node is initialised", &[&manager], || async {
            nodes.get(name).await.ok().filter(initialised)
        })
        .await;
    }
    let exit = manager.terminate();
    assert!(exit.success(), "{exit:?}\n{}", manager.logs());

    for name in &names {
        // Three calls per initialisation: this patch, the status patch and the Event; never a GET
        // or an Update of the Node.
        assert_eq!(
            node_calls(&audit, CCM_USER, name),
            vec![call("patch", "", 200), call("patch", "status", 200)],
            "{name}"
        );
    }
}

/// ARM requests the fake delays ([`hold_arm`]) that have arrived so far.
async fn held_arm_requests(fake: &FakeAzure) -> u64 {
    let (status, faults) = fake
        .admin(reqwest::Method::GET, "/admin/faults", None)
        .await;
    assert_eq!(status, 200, "{faults}");
    faults["rules"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| r["applied"].as_u64().unwrap_or_default())
        .sum()
}

/// Delays the first ARM request by 10 s: the controller's only sync waits on its instance lookup
/// while the test changes the Node (a hang guard sized far above the test's one patch, not a
/// timing assertion).
async fn hold_arm(fake: &FakeAzure) {
    let rule = json!({"rules": [{
        "id": "hold-first-arm-call",
        "surface": "arm",
        "path": "/subscriptions/**",
        "fault": {"kind": "latency", "ms": 10_000},
        "count": 1,
    }]});
    let (status, body) = fake
        .admin(reqwest::Method::POST, "/admin/faults", Some(rule))
        .await;
    assert!(status < 300, "{status} {body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_changed_after_it_was_cached_is_reread_and_keeps_the_other_writes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let audit = dir.path().join("audit.log");
    let fake = FakeAzure::start(&example("small.yaml"), &["--lro-polls", "0"]);
    let api = ApiServer::start_with(&["--audit-log-path", audit.to_str().expect("utf-8 path")]);
    let nodes: Api<Node> = Api::all(api.client().await);
    let name = agents(&fake).into_iter().next().expect("an agent");
    nodes
        .create(&PostParams::default(), &tainted_node(&name))
        .await
        .expect("create node");
    hold_arm(&fake).await;
    let manager = start_manager(&fake, &api, dir.path()).await;

    // The only sync has the Node from the watch cache and waits on ARM: change the Node now.
    wait_for("the sync's ARM lookup is held", &[&manager], || async {
        (held_arm_requests(&fake).await > 0).then_some(())
    })
    .await;
    let other_writer = json!({
        "metadata": {"labels": {"team": "blue"}},
        "spec": {"taints": [
            {"key": UNINITIALIZED, "value": "true", "effect": "NoSchedule"},
            {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"},
        ]},
    });
    nodes
        .patch(&name, &PatchParams::default(), &Patch::Merge(&other_writer))
        .await
        .expect("the other writer's patch");

    let node = wait_for("the node is initialised", &[&manager], || async {
        nodes.get(&name).await.ok().filter(initialised)
    })
    .await;
    let exit = manager.terminate();
    assert!(exit.success(), "{exit:?}\n{}", manager.logs());

    let labels = node.metadata.labels.clone().unwrap_or_default();
    assert_eq!(
        labels.get("team").map(String::as_str),
        Some("blue"),
        "{labels:?}"
    );
    assert!(
        labels.contains_key("node.kubernetes.io/instance-type"),
        "{labels:?}"
    );
    assert_eq!(taint_keys(&node), vec!["dedicated".to_owned()]);
    assert_eq!(
        node_calls(&audit, CCM_USER, &name),
        vec![
            call("patch", "", 409),
            call("get", "", 200),
            call("patch", "", 200),
            call("patch", "status", 200),
        ]
    );
}
