//! Nodes whose VMs appear after `cloud-controller-manager` has read (and cached) the cloud: a
//! scale-out of a uniform and of a flexible scale set and a new standalone VM, through the fake's
//! admin API, on mixed.yaml with azure.json's default cache TTLs. Their Nodes are initialised as
//! ARM describes the new VMs, like the first ones (a cache miss reads ARM again, as upstream's
//! caches do on a miss). A node registered before its VM exists stays tainted with a Warning
//! until the VM appears.

use k8s_openapi::api::core::v1::{Event, Node};
use kube::Api;
use kube::api::{ListParams, PostParams};
use reqwest::Method;
use serde_json::json;

use crate::cloud_controller_manager::{Manager, wait_for};
use crate::node_facts::NodeFacts;
use crate::node_init::{initialised, register};
use crate::processes::{ApiServer, tainted_node};
use crate::topology::{Cloud, Vm};

async fn admin_ok(cloud: &Cloud, path: &str, body: serde_json::Value) {
    let (status, answer) = cloud.fake.admin(Method::POST, path, Some(body)).await;
    assert_eq!(status / 100, 2, "{path}: {answer}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nodes_of_vms_added_later_are_initialised() {
    let cloud = Cloud::start("mixed.yaml", &[]).await;
    let first = cloud.vms().await;
    let api = ApiServer::start();
    let nodes = register(&api, &first).await;
    let config = cloud.azure_json("");
    let manager = Manager::start(
        &cloud.fake,
        &api,
        &config,
        &["--leader-elect=false", "--controllers=cloud-node"],
    );
    wait_for("the first nodes are initialised", &[&manager], || {
        initialised(&nodes, &first)
    })
    .await;

    admin_ok(
        &cloud,
        "/admin/compute/scale-sets/uniformpool/scale",
        json!({"instances": 4}),
    )
    .await;
    admin_ok(
        &cloud,
        "/admin/compute/scale-sets/flexpool/scale",
        json!({"instances": 4}),
    )
    .await;
    admin_ok(
        &cloud,
        "/admin/compute/vms",
        json!({"name": "late-vm", "zone": 3, "size": "Standard_D8s_v3"}),
    )
    .await;
    let known: Vec<&str> = first.iter().map(|vm| vm.node_name.as_str()).collect();
    let added: Vec<Vm> = cloud
        .vms()
        .await
        .into_iter()
        .filter(|vm| !known.contains(&vm.node_name.as_str()))
        .collect();
    let mut kinds: Vec<&str> = added.iter().map(|vm| vm.kind.as_str()).collect();
    kinds.sort_unstable();
    assert_eq!(
        kinds,
        ["standalone", "vmss-flex", "vmss-uniform"],
        "{added:#?}"
    );

    register(&api, &added).await;
    let facts = wait_for("the added nodes are initialised", &[&manager], || {
        initialised(&nodes, &added)
    })
    .await;
    for vm in &added {
        assert_eq!(
            facts[&vm.node_name],
            NodeFacts::expected(vm, &cloud.location, &[]),
            "{} ({})",
            vm.node_name,
            vm.kind
        );
    }
    let exit = manager.terminate();
    assert!(exit.success(), "{exit:?}\n{}", manager.logs());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_without_a_vm_stays_tainted_until_its_vm_exists() {
    let cloud = Cloud::start("small.yaml", &[]).await;
    let api = ApiServer::start();
    let nodes: Api<Node> = Api::all(api.client().await);
    nodes
        .create(&PostParams::default(), &tainted_node("early-vm"))
        .await
        .expect("create node");
    let config = cloud.azure_json("");
    let manager = Manager::start(
        &cloud.fake,
        &api,
        &config,
        &["--leader-elect=false", "--controllers=cloud-node"],
    );
    let events: Api<Event> = Api::all(api.client().await);
    let event = |reason: &'static str| {
        let events = events.clone();
        async move {
            events
                .list(&ListParams::default())
                .await
                .ok()?
                .items
                .into_iter()
                .find(|e| {
                    e.reason.as_deref() == Some(reason)
                        && e.involved_object.name.as_deref() == Some("early-vm")
                })
        }
    };
    let warning = wait_for(
        "a Warning names why the node is not initialised",
        &[&manager],
        || event("NodeInitializationFailed"),
    )
    .await;
    assert_eq!(warning.type_.as_deref(), Some("Warning"));
    assert!(
        warning
            .message
            .as_deref()
            .is_some_and(|m| m.contains("early-vm")),
        "{warning:?}"
    );
    let node = nodes.get("early-vm").await.expect("get node");
    let facts = NodeFacts::of(&node);
    assert!(facts.tainted && facts.provider_id.is_none(), "{facts:?}");

    // The VM appears: the retry initialises the node.
    admin_ok(
        &cloud,
        "/admin/compute/vms",
        json!({"name": "early-vm", "size": "Standard_D2s_v3"}),
    )
    .await;
    let vm = cloud.vm("early-vm").await.expect("the new VM");
    let facts = wait_for(
        "the node is initialised once its VM exists",
        &[&manager],
        || initialised(&nodes, std::slice::from_ref(&vm)),
    )
    .await;
    assert_eq!(
        facts["early-vm"],
        NodeFacts::expected(&vm, &cloud.location, &[])
    );
    wait_for("a Synced event", &[&manager], || event("Synced")).await;
    let exit = manager.terminate();
    assert!(exit.success(), "{exit:?}\n{}", manager.logs());
}
