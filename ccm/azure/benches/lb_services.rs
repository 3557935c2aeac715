//! ARM calls, writes and wall time of Service load balancers against the real `azure-fakes serve`:
//! N public Services reconciled from scratch on 1000-nodes.yaml, then one node joining with those
//! Services in place (`update_load_balancer` for every Service, as the service controller's node
//! sync does), for both `loadBalancerBackendPoolConfigurationType` values; then the per-resource
//! calls of one public and one internal Service create on small.yaml.
//! Prints figures only; run with `cargo bench -p ccm-azure --bench lb_services`.
//!
//! Sizes: `LB_BENCH_SERVICES` (default 200), `LB_BENCH_POOL_TYPES` (comma-separated, default
//! `nodeIPConfiguration,nodeIP`), `LB_BENCH_SMALL` (`0` skips the small.yaml part).

#[allow(dead_code, unused_imports)]
#[path = "../tests/it/cluster.rs"]
mod cluster;
#[allow(dead_code, unused_imports)]
#[path = "../tests/it/fake_azure.rs"]
mod fake_azure;
#[allow(dead_code, unused_imports)]
#[path = "../tests/it/lb_services.rs"]
mod lb_services;
#[allow(dead_code, unused_imports)]
#[path = "../tests/it/resource_models.rs"]
mod resource_models;

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use ccm_cloud::LoadBalancer;
use k8s_openapi::api::core::v1::{Node, NodeAddress, NodeStatus, Service};
use reqwest::Method;
use serde_json::json;

use crate::cluster::node;
use crate::resource_models::Arm;

use crate::lb_services::{Bed, CLUSTER, SMALL, service};

/// The network names of 1000-nodes.yaml, as its azure.json would carry them.
const BIG: &str = r#", "securityGroupName": "aks-agentpool-big-nsg", "vnetName": "aks-vnet-big",
    "vnetResourceGroup": "MC_big_cluster_eastus", "subnetName": "systempool-subnet",
    "routeTableName": "aks-agentpool-big-routetable""#;

const INTERNAL: &str = "service.beta.kubernetes.io/azure-load-balancer-internal";

fn env_usize(key: &str, default: usize) -> usize {
    std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Is this journal path an operation-status poll (not a resource read)?
fn is_poll(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    lower.contains("/operations/") || lower.contains("/operationresults/")
}

/// The resource type chain of an ARM path: `virtualMachineScaleSets/virtualMachines`.
fn kind(path: &str) -> String {
    let Some(at) = path.to_ascii_lowercase().rfind("/providers/") else {
        return path.to_string();
    };
    let segments: Vec<&str> = path[at + "/providers/".len()..].split('/').collect();
    let types: Vec<&str> = segments.iter().skip(1).step_by(2).copied().collect();
    if types.is_empty() {
        format!("{} (provider)", segments[0])
    } else {
        types.join("/")
    }
}

/// The path below the resource group (`Microsoft.Network/loadBalancers/kubernetes`).
fn short(path: &str) -> &str {
    let lower = path.to_ascii_lowercase();
    match lower.find("/providers/") {
        Some(at) => &path[at + "/providers/".len()..],
        None => path,
    }
}

/// Journal calls, split.
#[derive(Default)]
struct Calls {
    gets: usize,
    puts: usize,
    deletes: usize,
    other: usize,
    polls: usize,
    writes_by_kind: BTreeMap<String, usize>,
    gets_by_kind: BTreeMap<String, usize>,
}

impl Calls {
    fn of(journal: &[(String, String)]) -> Calls {
        let mut c = Calls::default();
        for (method, path) in journal {
            if is_poll(path) {
                c.polls += 1;
                continue;
            }
            match method.as_str() {
                "GET" => {
                    c.gets += 1;
                    *c.gets_by_kind.entry(kind(path)).or_default() += 1;
                    continue;
                }
                "PUT" => c.puts += 1,
                "DELETE" => c.deletes += 1,
                _ => c.other += 1,
            }
            *c.writes_by_kind
                .entry(format!("{method} {}", kind(path)))
                .or_default() += 1;
        }
        c
    }

    fn writes(&self) -> usize {
        self.puts + self.deletes + self.other
    }

    fn line(&self) -> String {
        format!(
            "ARM calls {} (GET {}, PUT {}, DELETE {}, other {}) + {} operation polls | writes {}",
            self.gets + self.writes(),
            self.gets,
            self.puts,
            self.deletes,
            self.other,
            self.polls,
            self.writes()
        )
    }

    fn breakdown(&self) -> String {
        let fmt = |m: &BTreeMap<String, usize>| {
            m.iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        format!(
            "    reads: {}\n    writes: {}",
            fmt(&self.gets_by_kind),
            fmt(&self.writes_by_kind)
        )
    }
}

/// Public Service `i`: a port of its own and its own UID (distinct in its first 31 hex digits:
/// the LB names cut the UID there).
fn public_service(i: usize) -> Service {
    let port = 1000 + i as i32;
    service(
        &format!("svc-{i:04}"),
        &format!("{i:08x}-0000-4000-8000-000000000000"),
        &[],
        &[(port, 30000 + i as i32)],
    )
}

/// Turns the fake's ARM throttle off: the bench counts calls, and at 20 ms operation polls it reads
/// faster than ARM's 25 reads/s refill (production polls follow Retry-After).
async fn unthrottled(bed: &Bed) {
    let fake = &bed.cluster.fake;
    let (status, mut config) = fake.admin(Method::GET, "/admin/throttle", None).await;
    assert_eq!(status, 200, "{config}");
    config["enabled"] = serde_json::Value::Bool(false);
    let (status, body) = fake
        .admin(Method::PUT, "/admin/throttle", Some(config))
        .await;
    assert!(status < 300, "{body}");
}

async fn big(pool_type: &str, count: usize) {
    let extra = format!(r#"{BIG}, "loadBalancerBackendPoolConfigurationType": "{pool_type}""#);
    let mut bed = Bed::start("1000-nodes.yaml", &extra).await;
    unthrottled(&bed).await;
    let all = bed.nodes.clone();
    let joiner = all.last().cloned().expect("a node");
    let joiner_name = joiner.metadata.name.clone().unwrap_or_default();
    let described = bed.cluster.described(&joiner_name).await;
    bed.nodes.pop();
    let services: Vec<Service> = (0..count).map(public_service).collect();
    println!(
        "== 1000-nodes.yaml, {pool_type}: {count} public Services over {} of {} nodes ==",
        bed.nodes.len(),
        all.len()
    );

    bed.cluster.clear_journal().await;
    let started = Instant::now();
    for svc in &services {
        bed.ensure(svc).await;
    }
    let secs = started.elapsed().as_secs_f64();
    let create = Calls::of(&bed.cluster.arm_calls().await);
    println!(
        "create  {count} Services in {secs:.1} s ({:.0} ms each) | {} | {:.2} calls, {:.2} writes per Service",
        secs * 1e3 / count.max(1) as f64,
        create.line(),
        (create.gets + create.writes()) as f64 / count.max(1) as f64,
        create.writes() as f64 / count.max(1) as f64,
    );
    println!("{}", create.breakdown());

    bed.cluster.clear_journal().await;
    let started = Instant::now();
    for svc in &services {
        bed.lb()
            .update_load_balancer(CLUSTER, svc, &crate::cluster::refs(&all))
            .await
            .unwrap_or_else(|e| panic!("update: {e}"));
    }
    let secs = started.elapsed().as_secs_f64();
    let join = Calls::of(&bed.cluster.arm_calls().await);
    println!(
        "join of {joiner_name} (scale set {}): update_load_balancer x{count} in {secs:.1} s | {}",
        described["scaleSet"].as_str().unwrap_or("-"),
        join.line()
    );
    println!("{}", join.breakdown());

    let Some(scale_set) = described["scaleSet"].as_str() else {
        return;
    };
    let scale_set = scale_set.rsplit('/').next().unwrap_or(scale_set);
    let Some(new_node) = scale_out(&bed, scale_set).await else {
        return;
    };
    let new_name = new_node.metadata.name.clone().unwrap_or_default();
    let mut grown = all.clone();
    grown.push(new_node);
    bed.cluster.clear_journal().await;
    let started = Instant::now();
    for svc in &services {
        bed.lb()
            .update_load_balancer(CLUSTER, svc, &crate::cluster::refs(&grown))
            .await
            .unwrap_or_else(|e| panic!("update: {e}"));
    }
    let secs = started.elapsed().as_secs_f64();
    let scaled = Calls::of(&bed.cluster.arm_calls().await);
    println!(
        "join of {new_name} (new instance of {scale_set}, admin scale-out): update_load_balancer x{count} in {secs:.1} s | {}",
        scaled.line()
    );
    println!("{}", scaled.breakdown());
    if pool_type == "nodeIPConfiguration" {
        for name in [&joiner_name, &new_name] {
            println!(
                "    {name} in the pool kubernetes/kubernetes: {}",
                in_cluster_pool(&bed, name).await
            );
        }
    }
}

/// Does the machine of node `name` reference the cluster LB's pool (nodeIPConfiguration)?
async fn in_cluster_pool(bed: &Bed, name: &str) -> bool {
    let described = bed.cluster.described(name).await;
    let Some(id) = described["resourceId"].as_str() else {
        return false;
    };
    let arm = Arm::new(&bed.cluster.fake).await;
    let doc = arm.get(&format!("{id}?api-version=2024-07-01")).await;
    doc.to_string()
        .to_ascii_lowercase()
        .contains("/loadbalancers/kubernetes/backendaddresspools/kubernetes")
}

/// Adds one instance to `scale_set` through the fake's admin API; its Node object.
async fn scale_out(bed: &Bed, scale_set: &str) -> Option<Node> {
    let before: BTreeSet<String> = bed.cluster.node_names().into_iter().collect();
    let fake = &bed.cluster.fake;
    let set = fake
        .admin(
            Method::GET,
            &format!(
                "/admin/compute/nodes/{}",
                before.iter().find(|n| n.starts_with(scale_set))?
            ),
            None,
        )
        .await
        .1;
    let members = before.iter().filter(|n| n.starts_with(scale_set)).count();
    let (status, body) = fake
        .admin(
            Method::POST,
            &format!("/admin/compute/scale-sets/{scale_set}/scale"),
            Some(json!({ "instances": members + 1 })),
        )
        .await;
    if status != 200 {
        println!("scale-out of {scale_set} refused ({status}): {body} ({set})");
        return None;
    }
    let added = body["nodes"]
        .as_array()?
        .iter()
        .filter_map(|n| n["nodeName"].as_str())
        .find(|n| !before.contains(*n))?
        .to_string();
    let described = bed.cluster.described(&added).await;
    let addresses = described["privateIps"]
        .as_array()?
        .iter()
        .filter_map(|ip| ip.as_str())
        .map(|ip| NodeAddress {
            type_: "InternalIP".to_string(),
            address: ip.to_string(),
        })
        .collect();
    let mut node = node(&added, &[]);
    node.status = Some(NodeStatus {
        addresses: Some(addresses),
        ..Default::default()
    });
    Some(node)
}

/// One Service create on small.yaml: every path read or written, with counts.
async fn small_create(label: &str, svc: &Service) {
    let bed = Bed::start("small.yaml", SMALL).await;
    unthrottled(&bed).await;
    bed.cluster.clear_journal().await;
    let started = Instant::now();
    bed.ensure(svc).await;
    let millis = started.elapsed().as_secs_f64() * 1e3;
    let journal = bed.cluster.arm_calls().await;
    let calls = Calls::of(&journal);
    println!(
        "== small.yaml, one {label} Service create in {millis:.0} ms | {}",
        calls.line()
    );
    let mut per_path: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut polls = 0;
    for (method, path) in &journal {
        if is_poll(path) {
            polls += 1;
        } else {
            *per_path
                .entry((short(path).to_string(), method.clone()))
                .or_default() += 1;
        }
    }
    for ((path, method), n) in per_path {
        println!("    {method:<6} x{n} {path}");
    }
    println!("    operation polls x{polls}");
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let count = env_usize("LB_BENCH_SERVICES", 200);
    let pool_types = std::env::var("LB_BENCH_POOL_TYPES")
        .unwrap_or_else(|_| "nodeIPConfiguration,nodeIP".to_string());
    runtime.block_on(async {
        for pool_type in pool_types
            .split(',')
            .map(str::trim)
            .filter(|t| !t.is_empty())
        {
            big(pool_type, count).await;
        }
        if env_usize("LB_BENCH_SMALL", 1) != 0 {
            let public = service(
                "web",
                "1a2b3c4d-5e6f-7081-92a3-b4c5d6e7f809",
                &[],
                &[(80, 30080)],
            );
            small_create("public", &public).await;
            let internal = service(
                "api",
                "2b3c4d5e-6f70-8192-a3b4-c5d6e7f80910",
                &[(INTERNAL, "true")],
                &[(8080, 31080)],
            );
            small_create("internal", &internal).await;
        }
    });
}
