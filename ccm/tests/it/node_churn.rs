//! Nodes whose VMs appear after `cloud-controller-manager` has read (and cached) the cloud: a
//! scale-out of a uniform and of a flexible scale set and a new standalone VM, through the fake's
//! admin API, on mixed.yaml with azure.json's default cache TTLs. Their Nodes are initialised as
//! ARM describes the new VMs, like the first ones (a cache miss reads ARM again, as upstream's
//! caches do on a miss).

use reqwest::Method;
use serde_json::json;

use crate::cloud_controller_manager::{Manager, wait_for};
use crate::node_facts::NodeFacts;
use crate::node_init::{initialised, register};
use crate::processes::ApiServer;
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
