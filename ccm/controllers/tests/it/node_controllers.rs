//! The cloud-node and cloud-node-lifecycle controllers against the embedded API server (a real
//! process) with an in-memory provider.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use ccm_cloud::InstanceMetadata;
use ccm_controllers::node::{CloudNodeConfig, CloudNodeController, NodeMetrics};
use ccm_controllers::node_lifecycle::NodeLifecycleController;
use ccm_names::labels::{BETA_ZONE, INSTANCE_TYPE, TOPOLOGY_REGION, TOPOLOGY_ZONE};
use ccm_names::taints::{OUT_OF_SERVICE, SHUTDOWN, UNINITIALIZED};
use k8s_openapi::api::core::v1::{Event, Node, NodeAddress};
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams};
use kube::{Client, ResourceExt};
use serde_json::json;

use crate::kube_api::{KubeApi, wait_for};
use crate::memory_cloud::{Instance, MemoryCloud};

fn addr(type_: &str, address: &str) -> NodeAddress {
    NodeAddress {
        type_: type_.into(),
        address: address.into(),
    }
}

fn instance(name: &str, shutdown: bool) -> Instance {
    Instance {
        metadata: InstanceMetadata {
            provider_id: format!("memory:///instances/{name}"),
            instance_type: "Standard_D2s_v3".into(),
            node_addresses: vec![addr("InternalIP", "10.240.0.4"), addr("Hostname", name)],
            zone: "eastus-1".into(),
            region: "eastus".into(),
            additional_labels: BTreeMap::new(),
        },
        shutdown,
    }
}

/// Creates a Node, tainted like a kubelet with `--cloud-provider=external` when `tainted`, and
/// sets its Ready condition.
async fn create_node(client: &Client, name: &str, tainted: bool, ready: bool) -> Node {
    let nodes: Api<Node> = Api::all(client.clone());
    let taints = if tainted {
        json!([{"key": UNINITIALIZED, "value": "true", "effect": "NoSchedule"}])
    } else {
        json!([])
    };
    let node: Node = serde_json::from_value(json!({
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "spec": {"taints": taints},
    }))
    .unwrap();
    nodes.create(&PostParams::default(), &node).await.unwrap();
    let status = if ready { "True" } else { "False" };
    let patch = json!({"status": {"conditions": [{"type": "Ready", "status": status}]}});
    nodes
        .patch_status(name, &PatchParams::default(), &Patch::Merge(patch))
        .await
        .unwrap()
}

fn addresses(node: &Node) -> Option<Vec<NodeAddress>> {
    node.status.as_ref().and_then(|s| s.addresses.clone())
}

fn taint_keys(node: &Node) -> Vec<String> {
    node.spec
        .as_ref()
        .and_then(|s| s.taints.as_ref())
        .map(|t| t.iter().map(|t| t.key.clone()).collect())
        .unwrap_or_default()
}

/// Events about `node` with this reason, as (type, message, source component).
async fn events(client: &Client, node: &str, reason: &str) -> Vec<(String, String, String)> {
    let api: Api<Event> = Api::namespaced(client.clone(), "default");
    api.list(&ListParams::default())
        .await
        .unwrap()
        .into_iter()
        .filter(|e| e.involved_object.name.as_deref() == Some(node))
        .filter(|e| e.reason.as_deref() == Some(reason))
        .map(|e| {
            (
                e.type_.unwrap_or_default(),
                e.message.unwrap_or_default(),
                e.source.and_then(|s| s.component).unwrap_or_default(),
            )
        })
        .collect()
}

fn spawn_node_controller(client: &Client, cloud: Arc<MemoryCloud>, metrics: NodeMetrics) {
    spawn_node_controller_for(client, cloud, metrics, None);
}

/// Starts a cloud-node controller with short periods; `node_name` restricts it to one Node.
fn spawn_node_controller_for(
    client: &Client,
    cloud: Arc<MemoryCloud>,
    metrics: NodeMetrics,
    node_name: Option<&str>,
) {
    spawn_with_refresh(
        client,
        cloud,
        metrics,
        node_name,
        Duration::from_millis(200),
    );
}

fn spawn_with_refresh(
    client: &Client,
    cloud: Arc<MemoryCloud>,
    metrics: NodeMetrics,
    node_name: Option<&str>,
    node_status_update_frequency: Duration,
) {
    let config = CloudNodeConfig {
        init_retry: Duration::from_millis(200),
        node_status_update_frequency,
        node_name: node_name.map(str::to_owned),
        ..CloudNodeConfig::default()
    };
    let controller = CloudNodeController::new(client.clone(), cloud, config, metrics).unwrap();
    tokio::spawn(controller.run());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tainted_node_is_initialised_and_synced_event_recorded() {
    let api = KubeApi::start().await;
    let cloud = Arc::new(MemoryCloud::default());
    cloud.put("vm-0", instance("vm-0", false));
    create_node(&api.client, "vm-0", true, true).await;
    let mut registry = prometheus_client::registry::Registry::default();
    let metrics = NodeMetrics::register(&mut registry);
    spawn_node_controller(&api.client, cloud, metrics);

    let nodes: Api<Node> = Api::all(api.client.clone());
    let node = wait_for("vm-0 initialised", || async {
        let node = nodes.get("vm-0").await.ok()?;
        let addressed = node
            .status
            .as_ref()
            .and_then(|s| s.addresses.as_ref())
            .is_some_and(|a| !a.is_empty());
        (!taint_keys(&node).contains(&UNINITIALIZED.to_owned()) && addressed).then_some(node)
    })
    .await;
    let labels = node.metadata.labels.clone().unwrap();
    assert_eq!(labels[INSTANCE_TYPE], "Standard_D2s_v3");
    assert_eq!(labels[TOPOLOGY_ZONE], "eastus-1");
    assert_eq!(labels[BETA_ZONE], "eastus-1");
    assert_eq!(labels[TOPOLOGY_REGION], "eastus");
    assert_eq!(
        node.spec.as_ref().unwrap().provider_id.as_deref(),
        Some("memory:///instances/vm-0")
    );
    assert_eq!(
        node.status.unwrap().addresses.unwrap(),
        vec![addr("InternalIP", "10.240.0.4"), addr("Hostname", "vm-0")]
    );
    let synced = wait_for("Synced event", || async {
        let found = events(&api.client, "vm-0", "Synced").await;
        (!found.is_empty()).then_some(found)
    })
    .await;
    assert_eq!(
        synced[0],
        (
            "Normal".to_owned(),
            "Node synced successfully".to_owned(),
            "cloud-node-controller".to_owned()
        )
    );
    let mut text = String::new();
    prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
    assert!(
        text.contains("cloud_provider_taint_removal_delay_seconds_count 1"),
        "{text}"
    );
    assert!(
        text.contains("initial_node_sync_delay_seconds_count 1"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unresolvable_node_keeps_its_taint_with_a_warning() {
    let api = KubeApi::start().await;
    let cloud = Arc::new(MemoryCloud::default());
    create_node(&api.client, "ghost", true, true).await;
    spawn_node_controller(&api.client, cloud.clone(), NodeMetrics::default());

    let warnings = wait_for("init failure warning", || async {
        let found = events(&api.client, "ghost", "NodeInitializationFailed").await;
        (!found.is_empty()).then_some(found)
    })
    .await;
    assert_eq!(warnings[0].0, "Warning");
    assert_eq!(
        warnings[0].1,
        "failed to initialize node ghost: instance not found"
    );
    let nodes: Api<Node> = Api::all(api.client.clone());
    let node = nodes.get("ghost").await.unwrap();
    assert_eq!(taint_keys(&node), vec![UNINITIALIZED.to_owned()]);
    assert!(node.spec.unwrap().provider_id.is_none());

    // Retries failing the same way record no new Event; once the instance appears, a retry
    // initialises the node.
    wait_for("two more failed retries", || async {
        (cloud.metadata_calls("ghost") >= 3).then_some(())
    })
    .await;
    cloud.put("ghost", instance("ghost", false));
    wait_for("ghost initialised after its instance appeared", || async {
        let node = nodes.get("ghost").await.ok()?;
        taint_keys(&node).is_empty().then_some(())
    })
    .await;
    assert_eq!(
        events(&api.client, "ghost", "NodeInitializationFailed")
            .await
            .len(),
        1,
        "the same failure is reported once"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn addresses_are_refreshed_when_the_cloud_changes_them() {
    let api = KubeApi::start().await;
    let cloud = Arc::new(MemoryCloud::default());
    cloud.put("vm-1", instance("vm-1", false));
    create_node(&api.client, "vm-1", true, true).await;
    spawn_node_controller(&api.client, cloud.clone(), NodeMetrics::default());
    let nodes: Api<Node> = Api::all(api.client.clone());
    wait_for("vm-1 initialised", || async {
        let node = nodes.get("vm-1").await.ok()?;
        addresses(&node).filter(|a| !a.is_empty())
    })
    .await;

    let mut moved = instance("vm-1", false);
    moved.metadata.node_addresses = vec![
        addr("InternalIP", "10.240.0.9"),
        addr("ExternalIP", "20.0.0.9"),
        addr("Hostname", "vm-1"),
    ];
    cloud.put("vm-1", moved.clone());
    let refreshed = wait_for("new addresses", || async {
        let node = nodes.get("vm-1").await.ok()?;
        addresses(&node).filter(|a| *a == moved.metadata.node_addresses)
    })
    .await;
    assert_eq!(refreshed.len(), 3, "the list is replaced, not merged");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nodes_initialised_elsewhere_are_refreshed_at_the_start() {
    // Upstream's `wait.Until` runs `UpdateNodeStatus` at once: a CCM taking over Nodes that
    // another process initialised (an in-tree kubelet, a previous leader) refreshes them without
    // waiting a whole `--node-status-update-frequency`.
    let api = KubeApi::start().await;
    let cloud = Arc::new(MemoryCloud::default());
    cloud.put("vm-3", instance("vm-3", false));
    create_node(&api.client, "vm-3", false, true).await;
    spawn_with_refresh(
        &api.client,
        cloud.clone(),
        NodeMetrics::default(),
        None,
        Duration::from_secs(3600),
    );
    let nodes: Api<Node> = Api::all(api.client.clone());
    let want = instance("vm-3", false).metadata.node_addresses;
    wait_for("vm-3 refreshed at the start", || async {
        let node = nodes.get("vm-3").await.ok()?;
        (addresses(&node).as_ref() == Some(&want)).then_some(())
    })
    .await;
    assert_eq!(
        cloud.metadata_calls("vm-3"),
        1,
        "one refresh, not one per event"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lifecycle_deletes_only_notready_nodes_whose_instance_is_gone() {
    let api = KubeApi::start().await;
    let cloud = Arc::new(MemoryCloud::default());
    create_node(&api.client, "gone-notready", false, false).await;
    create_node(&api.client, "gone-ready", false, true).await;
    create_node(&api.client, "erroring-notready", false, false).await;
    cloud.fail("erroring-notready");
    create_node(&api.client, "alive-notready", false, false).await;
    cloud.put("alive-notready", instance("alive-notready", false));

    let controller =
        NodeLifecycleController::new(api.client.clone(), cloud, Duration::from_secs(5)).unwrap();
    controller.pass().await.unwrap();

    let nodes: Api<Node> = Api::all(api.client.clone());
    let mut left: Vec<String> = nodes
        .list(&ListParams::default())
        .await
        .unwrap()
        .into_iter()
        .filter(|n| n.metadata.deletion_timestamp.is_none())
        .filter_map(|n| n.metadata.name)
        .collect();
    left.sort();
    assert_eq!(left, ["alive-notready", "erroring-notready", "gone-ready"]);
    assert_eq!(
        events(&api.client, "gone-notready", "DeletingNode").await,
        vec![(
            "Normal".to_owned(),
            "Deleting node gone-notready because it does not exist in the cloud provider"
                .to_owned(),
            "cloud-node-lifecycle-controller".to_owned()
        )]
    );
    assert!(
        events(&api.client, "gone-ready", "DeletingNode")
            .await
            .is_empty()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_and_out_of_service_taints_follow_power_state_and_readiness() {
    let api = KubeApi::start().await;
    let cloud = Arc::new(MemoryCloud::default());
    create_node(&api.client, "stopped", false, false).await;
    cloud.put("stopped", instance("stopped", true));
    let controller =
        NodeLifecycleController::new(api.client.clone(), cloud, Duration::from_secs(5)).unwrap();
    let nodes: Api<Node> = Api::all(api.client.clone());

    controller.pass().await.unwrap();
    let node = nodes.get("stopped").await.unwrap();
    assert_eq!(
        taint_keys(&node),
        vec![SHUTDOWN.to_owned(), OUT_OF_SERVICE.to_owned()]
    );
    let effects: Vec<String> = node
        .spec
        .unwrap()
        .taints
        .unwrap()
        .into_iter()
        .map(|t| t.effect)
        .collect();
    assert_eq!(effects, ["NoSchedule", "NoExecute"]);

    let ready = json!({"status": {"conditions": [{"type": "Ready", "status": "True"}]}});
    nodes
        .patch_status("stopped", &PatchParams::default(), &Patch::Merge(ready))
        .await
        .unwrap();
    // The pass reads the Node cache: it acts once the watch has brought the Ready condition.
    wait_for("taints removed once Ready", || async {
        controller.pass().await.unwrap();
        let node = nodes.get("stopped").await.ok()?;
        taint_keys(&node).is_empty().then_some(())
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_scoped_controller_only_touches_its_node() {
    let api = KubeApi::start().await;
    let cloud = Arc::new(MemoryCloud::default());
    for name in ["mine", "other"] {
        cloud.put(name, instance(name, false));
        create_node(&api.client, name, true, true).await;
    }
    spawn_node_controller_for(
        &api.client,
        cloud.clone(),
        NodeMetrics::default(),
        Some("mine"),
    );
    // Initialisation plus two address refreshes of "mine": "other" came from the same watch and
    // would have been synced meanwhile if it were watched.
    wait_for("mine synced three times", || async {
        (cloud.metadata_calls("mine") >= 3).then_some(())
    })
    .await;
    assert_eq!(cloud.metadata_calls("other"), 0);
    let nodes: Api<Node> = Api::all(api.client.clone());
    assert!(taint_keys(&nodes.get("mine").await.unwrap()).is_empty());
    assert_eq!(
        taint_keys(&nodes.get("other").await.unwrap()),
        vec![UNINITIALIZED.to_owned()]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn node_events_reconcile_labels_without_cloud_calls() {
    let api = KubeApi::start().await;
    let cloud = Arc::new(MemoryCloud::default());
    cloud.put("vm-2", instance("vm-2", false));
    create_node(&api.client, "vm-2", true, true).await;
    let hour = Duration::from_secs(3600);
    spawn_with_refresh(
        &api.client,
        cloud.clone(),
        NodeMetrics::default(),
        None,
        hour,
    );
    let nodes: Api<Node> = Api::all(api.client.clone());
    wait_for("vm-2 initialised", || async {
        let node = nodes.get("vm-2").await.ok()?;
        taint_keys(&node).is_empty().then_some(())
    })
    .await;

    for zone in ["2", "3"] {
        let patch = json!({"metadata": {"labels": {BETA_ZONE: zone}}});
        nodes
            .patch("vm-2", &PatchParams::default(), &Patch::Merge(patch))
            .await
            .unwrap();
        wait_for("GA zone label reconciled to the beta one", || async {
            let node = nodes.get("vm-2").await.ok()?;
            (node.labels().get(TOPOLOGY_ZONE).map(String::as_str) == Some(zone)).then_some(())
        })
        .await;
    }
    assert_eq!(
        cloud.metadata_calls("vm-2"),
        1,
        "only the initialisation asked the cloud"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_that_turns_ready_while_the_cloud_is_asked_is_kept() {
    let api = KubeApi::start().await;
    let cloud = Arc::new(MemoryCloud::default());
    create_node(&api.client, "recovering", false, false).await;
    let nodes: Api<Node> = Api::all(api.client.clone());
    let hook_nodes = nodes.clone();
    // The kubelet reports Ready between the controller's list and its DELETE.
    cloud.on_exists(Arc::new(move |name: &str| {
        let ready = json!({"status": {"conditions": [{"type": "Ready", "status": "True"}]}});
        let params = PatchParams::default();
        let patch = Patch::Merge(ready);
        tokio::task::block_in_place(|| {
            tokio::runtime::Handle::current()
                .block_on(hook_nodes.patch_status(name, &params, &patch))
        })
        .unwrap();
    }));
    let controller =
        NodeLifecycleController::new(api.client.clone(), cloud, Duration::from_secs(5)).unwrap();
    controller.pass().await.unwrap();

    let node = nodes.get("recovering").await.unwrap();
    assert!(node.metadata.deletion_timestamp.is_none());
    let failed = events(&api.client, "recovering", "DeletingNodeFailed").await;
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(failed[0].0, "Warning");
}

/// `concurrent_node_syncs` bounds the syncs in flight: with 2 and five registering Nodes whose
/// instance lookups are held, two lookups run and the others wait in the queue; once released,
/// every Node is initialised and no more than two ever ran at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_node_syncs_bounds_the_syncs_in_flight() {
    let api = KubeApi::start().await;
    let cloud = Arc::new(MemoryCloud::default());
    let names: Vec<String> = (0..5).map(|i| format!("vm-{i}")).collect();
    for name in &names {
        cloud.put(name, instance(name, false));
        create_node(&api.client, name, true, true).await;
    }
    let release = cloud.hold_metadata();
    let config = CloudNodeConfig {
        init_retry: Duration::from_millis(200),
        node_status_update_frequency: Duration::from_secs(300),
        concurrent_node_syncs: 2,
        ..CloudNodeConfig::default()
    };
    let controller = CloudNodeController::new(
        api.client.clone(),
        cloud.clone(),
        config,
        NodeMetrics::default(),
    )
    .unwrap();
    tokio::spawn(controller.run());

    wait_for("two held lookups", || async {
        (cloud.metadata_in_flight().0 >= 2).then_some(())
    })
    .await;
    // Room for the other three syncs to start if nothing bounded them.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(cloud.metadata_in_flight(), (2, 2));
    release.send(true).unwrap();

    let nodes: Api<Node> = Api::all(api.client.clone());
    for name in &names {
        wait_for("node initialised", || async {
            let node = nodes.get(name).await.ok()?;
            (!taint_keys(&node).contains(&UNINITIALIZED.to_owned())).then_some(())
        })
        .await;
    }
    assert_eq!(cloud.metadata_in_flight().1, 2, "at most two at once");
}
