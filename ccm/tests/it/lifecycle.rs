//! The cloud-node-lifecycle controller of `cloud-controller-manager` on mixed.yaml (every VM
//! kind), with a 1 s `--node-monitor-period` and the Ready condition written through the status
//! subresource as a kubelet does: a NotReady node whose VM is gone is deleted (`DeletingNode`); a
//! NotReady node whose VM is shut down gets the shutdown taint and Azure's out-of-service taint,
//! both removed once it is Ready; a Ready node is kept whatever the cloud says, an ARM error
//! never deletes a NotReady node, and neither do cached VM lists read before the node's VM existed.

use k8s_openapi::api::core::v1::{Event, Node, NodeSpec};
use kube::Api;
use kube::api::{ListParams, ObjectMeta, Patch, PatchParams, PostParams};
use reqwest::Method;
use serde_json::json;

use crate::cloud_controller_manager::{Manager, wait_for};
use crate::processes::ApiServer;
use crate::topology::{Cloud, Vm};

const SHUTDOWN: &str = "node.cloudprovider.kubernetes.io/shutdown";
const OUT_OF_SERVICE: &str = "node.kubernetes.io/out-of-service";

/// Short cache TTLs: the lifecycle pass sees an admin change within a second or two.
const SHORT_TTLS: &str = r#", "vmCacheTTLInSeconds": 1, "vmssCacheTTLInSeconds": 1,
  "vmssVirtualMachinesCacheTTLInSeconds": 1, "vmssFlexCacheTTLInSeconds": 1"#;

/// The fake, the API server, the Node API and a CCM running only cloud-node-lifecycle.
struct Lifecycle {
    cloud: Cloud,
    api: ApiServer,
    nodes: Api<Node>,
    manager: Manager,
}

impl Lifecycle {
    async fn start() -> Lifecycle {
        Self::start_with(SHORT_TTLS).await
    }

    /// With `extra` azure.json keys.
    async fn start_with(extra: &str) -> Lifecycle {
        let cloud = Cloud::start("mixed.yaml", &[]).await;
        let api = ApiServer::start();
        let nodes: Api<Node> = Api::all(api.client().await);
        let config = cloud.azure_json(extra);
        let manager = Manager::start(
            &cloud.fake,
            &api,
            &config,
            &[
                "--leader-elect=false",
                "--controllers=cloud-node-lifecycle",
                "--node-monitor-period=1s",
            ],
        );
        Lifecycle {
            cloud,
            api,
            nodes,
            manager,
        }
    }

    async fn vm(&self, node: &str) -> Vm {
        self.cloud.vm(node).await.expect("a VM of mixed.yaml")
    }

    /// Registers an initialised Node of `vm` (providerID set) with its Ready condition.
    async fn register(&self, vm: &Vm, ready: bool) {
        let node = Node {
            metadata: ObjectMeta {
                name: Some(vm.node_name.clone()),
                ..Default::default()
            },
            spec: Some(NodeSpec {
                provider_id: Some(vm.provider_id.clone()),
                ..Default::default()
            }),
            ..Default::default()
        };
        self.nodes
            .create(&PostParams::default(), &node)
            .await
            .expect("create node");
        self.set_ready(&vm.node_name, ready).await;
    }

    async fn set_ready(&self, node: &str, ready: bool) {
        set_ready(&self.nodes, node, ready).await;
    }

    async fn delete_vm(&self, node: &str) {
        let (status, body) = self
            .cloud
            .fake
            .admin(
                Method::DELETE,
                &format!("/admin/compute/nodes/{node}"),
                None,
            )
            .await;
        assert_eq!(status / 100, 2, "delete {node}: {body}");
    }

    async fn set_power(&self, node: &str, state: &str) {
        let (status, body) = self
            .cloud
            .fake
            .admin(
                Method::POST,
                &format!("/admin/compute/nodes/{node}/power-state"),
                Some(json!({ "state": state })),
            )
            .await;
        assert_eq!(status / 100, 2, "{node} {state}: {body}");
    }

    /// Waits until every node of `names` is gone.
    async fn wait_deleted(&self, what: &str, names: &[&str]) {
        wait_for(what, &[&self.manager], || async {
            for name in names {
                if self.nodes.get_opt(name).await.ok()?.is_some() {
                    return None;
                }
            }
            Some(())
        })
        .await;
    }

    /// The node's taints as `key:effect`.
    async fn taints(&self, node: &str) -> Vec<String> {
        let node = self.nodes.get(node).await.expect("get node");
        node.spec
            .and_then(|s| s.taints)
            .unwrap_or_default()
            .iter()
            .map(|t| format!("{}:{}", t.key, t.effect))
            .collect()
    }

    /// Waits until every node of `names` satisfies `check` on its taints.
    async fn wait_taints(&self, what: &str, names: &[&str], check: fn(&[String]) -> bool) {
        wait_for(what, &[&self.manager], || async {
            for name in names {
                let taints = self.nodes.get(name).await.ok()?.spec?.taints;
                let taints: Vec<String> = taints
                    .unwrap_or_default()
                    .iter()
                    .map(|t| format!("{}:{}", t.key, t.effect))
                    .collect();
                if !check(&taints) {
                    return None;
                }
            }
            Some(())
        })
        .await;
    }

    /// `reason` Events about `node`.
    async fn events(&self, node: &str, reason: &str) -> Vec<Event> {
        let events: Api<Event> = Api::all(self.api.client().await);
        events
            .list(&ListParams::default())
            .await
            .expect("list events")
            .items
            .into_iter()
            .filter(|e| {
                e.reason.as_deref() == Some(reason)
                    && e.involved_object.name.as_deref() == Some(node)
            })
            .collect()
    }
}

/// Writes the Node's Ready condition through the status subresource, as the kubelet does.
pub async fn set_ready(nodes: &Api<Node>, node: &str, ready: bool) {
    let (status, reason) = if ready {
        ("True", "KubeletReady")
    } else {
        ("False", "KubeletNotReady")
    };
    let now = k8s_openapi::jiff::Timestamp::now().to_string();
    let patch = json!({"status": {"conditions": [{
        "type": "Ready", "status": status, "reason": reason,
        "message": format!("kubelet reports {reason}"),
        "lastHeartbeatTime": now, "lastTransitionTime": now,
    }]}});
    nodes
        .patch_status(node, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .expect("patch node status");
}

fn shut_down(taints: &[String]) -> bool {
    taints
        .iter()
        .any(|t| *t == format!("{SHUTDOWN}:NoSchedule"))
        && taints
            .iter()
            .any(|t| *t == format!("{OUT_OF_SERVICE}:NoExecute"))
}

fn untainted(taints: &[String]) -> bool {
    !taints
        .iter()
        .any(|t| t.starts_with(SHUTDOWN) || t.starts_with(OUT_OF_SERVICE))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_not_ready_node_whose_vm_is_deleted_is_deleted() {
    let lc = Lifecycle::start().await;
    let gone = [
        "mixed-master-0",
        "vmas-agent-0",
        "uniformpool000000",
        "flexpool000000",
    ];
    for name in gone {
        let vm = lc.vm(name).await;
        lc.register(&vm, false).await;
    }
    // NotReady with its VM running: kept, untainted.
    let alive = lc.vm("vmas-agent-1").await;
    lc.register(&alive, false).await;
    for name in gone {
        lc.delete_vm(name).await;
    }
    lc.wait_deleted("the NotReady nodes whose VM is gone are deleted", &gone)
        .await;
    for name in gone {
        let events = lc.events(name, "DeletingNode").await;
        assert_eq!(events.len(), 1, "{name}: {events:#?}");
        let event = &events[0];
        assert_eq!(event.type_.as_deref(), Some("Normal"));
        assert_eq!(
            event.message.as_deref(),
            Some(
                format!("Deleting node {name} because it does not exist in the cloud provider")
                    .as_str()
            )
        );
        assert_eq!(
            event.source.as_ref().and_then(|s| s.component.as_deref()),
            Some("cloud-node-lifecycle-controller")
        );
    }
    assert!(
        lc.nodes
            .get_opt("vmas-agent-1")
            .await
            .expect("get")
            .is_some(),
        "a NotReady node whose VM runs was deleted"
    );
    assert!(untainted(&lc.taints("vmas-agent-1").await));
    let exit = lc.manager.terminate();
    assert!(exit.success(), "{exit:?}\n{}", lc.manager.logs());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shut_down_vm_taints_its_not_ready_node_until_it_is_ready() {
    let lc = Lifecycle::start().await;
    // One per VM kind; stopped-agent is seeded deallocated.
    let shut = [
        ("vmas-agent-0", Some("stopped")),
        ("uniformpool000001", Some("deallocated")),
        ("flexpool000001", Some("deallocated")),
        ("stopped-agent", None),
    ];
    let names: Vec<&str> = shut.iter().map(|(n, _)| *n).collect();
    for (name, _) in shut {
        let vm = lc.vm(name).await;
        lc.register(&vm, false).await;
    }
    let running = lc.vm("flexpool000002").await;
    lc.register(&running, false).await;
    for (name, state) in shut {
        if let Some(state) = state {
            lc.set_power(name, state).await;
        }
    }
    // The implemented rule (anchor-ccm.md 3.5, Azure's updateNodeTaint): NotReady with the
    // shutdown taint also gets node.kubernetes.io/out-of-service:NoExecute.
    lc.wait_taints(
        "shut-down NotReady nodes get the shutdown and out-of-service taints",
        &names,
        shut_down,
    )
    .await;
    for name in &names {
        assert!(
            lc.nodes.get_opt(name).await.expect("get").is_some(),
            "{name}: a shut-down node was deleted"
        );
    }
    assert!(
        untainted(&lc.taints("flexpool000002").await),
        "a NotReady node whose VM runs was tainted"
    );

    // Ready again (the VM was started and the kubelet reports): both taints go.
    for name in &names {
        lc.set_ready(name, true).await;
    }
    lc.wait_taints("Ready nodes lose both taints", &names, untainted)
        .await;
    let exit = lc.manager.terminate();
    assert!(exit.success(), "{exit:?}\n{}", lc.manager.logs());
}

/// How many lifecycle passes kept `node` because the cloud's answer was an error (the
/// controller's log line).
fn kept_on_error(manager: &Manager, node: &str) -> usize {
    manager
        .logs()
        .lines()
        .filter(|l| l.contains("instance existence unknown, node kept"))
        .filter(|l| l.contains(&format!("node={node}")))
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ready_nodes_and_arm_errors_never_delete_a_node() {
    let lc = Lifecycle::start().await;
    // A Ready node whose VM is deleted, next to a NotReady witness whose VM is deleted too.
    let ready = lc.vm("vmas-agent-0").await;
    let witness = lc.vm("vmas-agent-1").await;
    lc.register(&ready, true).await;
    lc.register(&witness, false).await;
    lc.delete_vm(&ready.node_name).await;
    lc.delete_vm(&witness.node_name).await;
    lc.wait_deleted("the NotReady witness is deleted", &[&witness.node_name])
        .await;
    assert!(
        lc.nodes
            .get_opt(&ready.node_name)
            .await
            .expect("get")
            .is_some(),
        "a Ready node was deleted because its VM is gone"
    );

    // Every compute read fails (403, as with a missing role assignment: not retried, so passes
    // are quick): a NotReady node whose VM is gone is kept while ARM errs.
    let faulted = lc.vm("uniformpool000000").await;
    lc.register(&faulted, false).await;
    let (status, body) = lc
        .cloud
        .fake
        .admin(
            Method::POST,
            "/admin/faults",
            Some(json!({
                "id": "compute-reads-fail", "surface": "arm", "method": "GET",
                "path": "/subscriptions/*/resourceGroups/*/providers/Microsoft.Compute/**",
                "fault": {"kind": "status", "status": 403, "code": "AuthorizationFailed"},
            })),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    lc.delete_vm(&faulted.node_name).await;
    wait_for(
        "two lifecycle passes keep the node on an ARM error",
        &[&lc.manager],
        || async { (kept_on_error(&lc.manager, &faulted.node_name) >= 2).then_some(()) },
    )
    .await;
    for name in [&faulted.node_name, &ready.node_name] {
        assert!(
            lc.nodes.get_opt(name).await.expect("get").is_some(),
            "{name} deleted on an ARM error"
        );
    }
    assert!(
        lc.events(&faulted.node_name, "DeletingNode")
            .await
            .is_empty()
    );

    // ARM answers again: now the NotReady node whose VM is gone goes; the Ready one stays.
    let (status, body) = lc
        .cloud
        .fake
        .admin(Method::DELETE, "/admin/faults/compute-reads-fail", None)
        .await;
    assert_eq!(status / 100, 2, "{body}");
    lc.wait_deleted(
        "the NotReady node is deleted once ARM answers",
        &[&faulted.node_name],
    )
    .await;
    assert!(
        lc.nodes
            .get_opt(&ready.node_name)
            .await
            .expect("get")
            .is_some()
    );
    let exit = lc.manager.terminate();
    assert!(exit.success(), "{exit:?}\n{}", lc.manager.logs());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_not_ready_node_of_a_vm_created_after_the_lists_were_read_is_kept() {
    // azure.json's default cache TTLs: the VM lists read for the first node are still fresh
    // when the new VMs appear.
    let lc = Lifecycle::start_with("").await;
    let first = lc.vm("vmas-agent-0").await;
    lc.register(&first, false).await;
    wait_for(
        "the lifecycle pass lists the VMs",
        &[&lc.manager],
        || async {
            let (_, counters) = lc
                .cloud
                .fake
                .admin(Method::GET, "/admin/counters", None)
                .await;
            counters
                .to_string()
                .contains("GET Microsoft.Compute/virtualMachines")
                .then_some(())
        },
    )
    .await;

    // New VMs (standalone, uniform and flex) whose kubelets register NotReady, as at boot.
    for (path, body) in [
        ("/admin/compute/vms", json!({"name": "late-vm"})),
        (
            "/admin/compute/scale-sets/uniformpool/scale",
            json!({"instances": 4}),
        ),
        (
            "/admin/compute/scale-sets/flexpool/scale",
            json!({"instances": 4}),
        ),
    ] {
        let (status, answer) = lc.cloud.fake.admin(Method::POST, path, Some(body)).await;
        assert_eq!(status / 100, 2, "{path}: {answer}");
    }
    let new_nodes = ["late-vm", "uniformpool000003", "flexpool000003"];
    for name in new_nodes {
        let vm = lc.vm(name).await;
        lc.register(&vm, false).await;
    }
    // A witness registered after them, with no VM at all: once it is deleted, a pass has
    // looked at the new nodes too.
    let ghost = Vm {
        node_name: "ghost-node".to_owned(),
        provider_id: format!(
            "azure:///subscriptions/{}/resourceGroups/mixed-nodes-rg/providers/Microsoft.Compute/virtualMachines/ghost-node",
            lc.cloud.fake.subscription
        ),
        ..first.clone()
    };
    lc.register(&ghost, false).await;
    lc.wait_deleted("the witness without a VM is deleted", &["ghost-node"])
        .await;
    for name in new_nodes {
        assert!(
            lc.nodes.get_opt(name).await.expect("get").is_some(),
            "{name}: a new node was deleted while its VM exists"
        );
        assert!(lc.events(name, "DeletingNode").await.is_empty(), "{name}");
    }
    let exit = lc.manager.terminate();
    assert!(exit.success(), "{exit:?}\n{}", lc.manager.logs());
}
