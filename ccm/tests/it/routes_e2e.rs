//! Kubenet-style routes through `cloud-controller-manager` on mixed.yaml (every VM kind):
//! `--allocate-node-cidrs` gives each node a podCIDR, the route controller writes one route per
//! node into the route table azure.json names (`<node>____<cidr without . and />`, next hop the
//! node's private IP: anchor-ccm.md 5) and sets `NetworkUnavailable=False/RouteCreated`; a deleted
//! node's route goes, a stale route inside `--cluster-cidr` goes, a route outside it stays, and a
//! node whose VM was created after the CCM read the cloud gets its route too.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::Node;
use kube::Api;
use kube::api::DeleteParams;
use reqwest::Method;
use serde_json::{Value, json};

use crate::cloud_controller_manager::{Manager, wait_for};
use crate::node_init::register;
use crate::processes::ApiServer;
use crate::topology::{Cloud, Vm};

const CLUSTER_CIDR: &str = "10.244.0.0/16";
const NETWORK_API: &str = "api-version=2024-05-01";

/// Short batching and cache periods: routes land within a few seconds.
const FAST_ROUTES: &str = r#", "routeUpdateIntervalInSeconds": 1,
  "routeUpdateWaitingInSeconds": 1, "routeTableCacheTTLInSeconds": 1"#;

/// Upstream's route name for `node` and `cidr` (anchor-ccm.md 5).
fn route_name(node: &str, cidr: &str) -> String {
    let stripped: String = cidr
        .chars()
        .filter(|c| !matches!(c, '.' | ':' | '/'))
        .collect();
    format!("{node}____{stripped}")
}

/// Routes in the table: name → (addressPrefix, nextHopType, nextHopIpAddress).
async fn routes(cloud: &Cloud) -> BTreeMap<String, (String, String, String)> {
    let (status, table) = cloud
        .arm(
            Method::GET,
            &format!("{}?{NETWORK_API}", cloud.route_table_path()),
            None,
        )
        .await;
    assert_eq!(status, 200, "{table}");
    let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    table["properties"]["routes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            let p = &r["properties"];
            (
                text(&r["name"]),
                (
                    text(&p["addressPrefix"]),
                    text(&p["nextHopType"]),
                    text(&p["nextHopIpAddress"]),
                ),
            )
        })
        .collect()
}

/// Writes a route straight into the fake's ARM, as another tool (or an earlier cluster) would.
async fn put_route(cloud: &Cloud, name: &str, prefix: &str, next_hop: &str) {
    let (status, body) = cloud
        .arm(
            Method::PUT,
            &format!("{}/routes/{name}?{NETWORK_API}", cloud.route_table_path()),
            Some(json!({"properties": {
                "addressPrefix": prefix, "nextHopType": "VirtualAppliance",
                "nextHopIpAddress": next_hop,
            }})),
        )
        .await;
    assert!(
        matches!(status, 200 | 201),
        "PUT route {name}: {status} {body}"
    );
}

/// The node's podCIDR and `NetworkUnavailable` (status, reason).
fn pod_cidr_and_network(node: &Node) -> (Option<String>, Option<(String, String)>) {
    let cidr = node.spec.as_ref().and_then(|s| s.pod_cidr.clone());
    let condition = node
        .status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .and_then(|c| c.iter().find(|c| c.type_ == "NetworkUnavailable"))
        .map(|c| (c.status.clone(), c.reason.clone().unwrap_or_default()));
    (cidr, condition)
}

/// Every node's podCIDR once each has one and `NetworkUnavailable=False/RouteCreated`.
async fn routed(nodes: &Api<Node>, vms: &[Vm]) -> Option<BTreeMap<String, String>> {
    let mut cidrs = BTreeMap::new();
    for vm in vms {
        let node = nodes.get(&vm.node_name).await.ok()?;
        match pod_cidr_and_network(&node) {
            (Some(cidr), Some((status, reason)))
                if status == "False" && reason == "RouteCreated" =>
            {
                cidrs.insert(vm.node_name.clone(), cidr);
            }
            _ => return None,
        }
    }
    Some(cidrs)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_node_gets_a_pod_cidr_and_its_route_and_stale_routes_go() {
    let cloud = Cloud::start("mixed.yaml", &["--lro-polls", "0"]).await;
    let vms = cloud.vms().await;
    // Before the CCM starts: a stale route inside the cluster CIDR and a user's route outside it.
    let stale = route_name("gone-node", "10.244.200.0/24");
    put_route(&cloud, &stale, "10.244.200.0/24", "10.240.0.250").await;
    put_route(&cloud, "user-route", "192.168.5.0/24", "10.240.0.251").await;
    let before = routes(&cloud).await;
    assert!(
        before.contains_key(&stale) && before.contains_key("user-route"),
        "{before:#?}"
    );

    let api = ApiServer::start();
    let nodes = register(&api, &vms).await;
    let config = cloud.azure_json(FAST_ROUTES);
    let manager = Manager::start_args(
        &cloud.fake,
        &api,
        &[
            &format!("--cloud-config={}", config.display()),
            "--leader-elect=false",
            "--controllers=cloud-node,node-ipam,route",
            "--configure-cloud-routes=true",
            "--allocate-node-cidrs=true",
            &format!("--cluster-cidr={CLUSTER_CIDR}"),
            "--route-reconciliation-period=2s",
        ],
    );
    let cidrs = wait_for(
        "every node has a podCIDR and NetworkUnavailable=False/RouteCreated",
        &[&manager],
        || routed(&nodes, &vms),
    )
    .await;
    let mut distinct: Vec<&String> = cidrs.values().collect();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), vms.len(), "podCIDRs overlap: {cidrs:#?}");

    let expected: BTreeMap<String, (String, String, String)> = vms
        .iter()
        .map(|vm| {
            let cidr = &cidrs[&vm.node_name];
            assert!(
                cidr.starts_with("10.244.") && cidr.ends_with("/24"),
                "{cidr}"
            );
            (
                route_name(&vm.node_name, cidr),
                (
                    cidr.clone(),
                    "VirtualAppliance".to_owned(),
                    vm.private_ips[0].clone(),
                ),
            )
        })
        .chain([(
            "user-route".to_owned(),
            (
                "192.168.5.0/24".to_owned(),
                "VirtualAppliance".to_owned(),
                "10.240.0.251".to_owned(),
            ),
        )])
        .collect();
    // One route per node, the stale one gone, the user's one kept.
    let table = wait_for(
        "the route table holds exactly the wanted routes",
        &[&manager],
        || async {
            let table = routes(&cloud).await;
            (table == expected).then_some(table)
        },
    )
    .await;
    assert!(!table.contains_key(&stale));

    // A deleted node's route goes.
    let leaving = &vms[0].node_name;
    nodes
        .delete(leaving, &DeleteParams::default())
        .await
        .expect("delete node");
    let leaving_route = route_name(leaving, &cidrs[leaving]);
    let mut remaining = expected.clone();
    remaining.remove(&leaving_route);
    wait_for("the deleted node's route goes", &[&manager], || async {
        (routes(&cloud).await == remaining).then_some(())
    })
    .await;

    // A VM created after the CCM read the VM and NIC lists: its node gets a podCIDR and a route.
    let (status, answer) = cloud
        .fake
        .admin(
            Method::POST,
            "/admin/compute/vms",
            Some(json!({"name": "late-vm"})),
        )
        .await;
    assert_eq!(status / 100, 2, "{answer}");
    let late = cloud.vm("late-vm").await.expect("the new VM");
    register(&api, std::slice::from_ref(&late)).await;
    let late_cidr = wait_for("the new node is routed", &[&manager], || {
        routed(&nodes, std::slice::from_ref(&late))
    })
    .await
    .remove("late-vm")
    .expect("late-vm podCIDR");
    let mut with_late = remaining.clone();
    with_late.insert(
        route_name("late-vm", &late_cidr),
        (
            late_cidr.clone(),
            "VirtualAppliance".to_owned(),
            late.private_ips[0].clone(),
        ),
    );
    wait_for(
        "the new node's route is in the table",
        &[&manager],
        || async { (routes(&cloud).await == with_late).then_some(()) },
    )
    .await;
    let exit = manager.terminate();
    assert!(exit.success(), "{exit:?}\n{}", manager.logs());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_route_table_is_created_with_the_routes() {
    let mut cloud = Cloud::start("small.yaml", &["--lro-polls", "0"]).await;
    cloud.network.route_table = "k8s-created-routetable".to_owned();
    let (status, _) = cloud
        .arm(
            Method::GET,
            &format!("{}?{NETWORK_API}", cloud.route_table_path()),
            None,
        )
        .await;
    assert_eq!(status, 404, "the table must not exist yet");
    let vms = cloud.vms().await;
    let api = ApiServer::start();
    let nodes = register(&api, &vms).await;
    let config = cloud.azure_json(FAST_ROUTES);
    let manager = Manager::start_args(
        &cloud.fake,
        &api,
        &[
            &format!("--cloud-config={}", config.display()),
            "--leader-elect=false",
            "--controllers=cloud-node,node-ipam,route",
            "--allocate-node-cidrs=true",
            &format!("--cluster-cidr={CLUSTER_CIDR}"),
            "--route-reconciliation-period=2s",
        ],
    );
    let cidrs = wait_for("every node is routed", &[&manager], || routed(&nodes, &vms)).await;
    let expected: BTreeMap<String, (String, String, String)> = vms
        .iter()
        .map(|vm| {
            let cidr = &cidrs[&vm.node_name];
            (
                route_name(&vm.node_name, cidr),
                (
                    cidr.clone(),
                    "VirtualAppliance".to_owned(),
                    vm.private_ips[0].clone(),
                ),
            )
        })
        .collect();
    assert_eq!(routes(&cloud).await, expected);
    let (_, table) = cloud
        .arm(
            Method::GET,
            &format!("{}?{NETWORK_API}", cloud.route_table_path()),
            None,
        )
        .await;
    assert_eq!(table["location"], cloud.location.as_str(), "{table}");
    let exit = manager.terminate();
    assert!(exit.success(), "{exit:?}\n{}", manager.logs());
}
