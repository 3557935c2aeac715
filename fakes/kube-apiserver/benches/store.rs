//! List/watch throughput and memory of the embedded API server at the scale of a large cluster:
//! 5,000 Nodes and 2,000 Services created through the HTTPS API, then full and paginated lists,
//! and watch fan-out to 50 watchers while a writer patches Nodes. Prints figures; asserts nothing
//! about speed. Run with `cargo bench -p fake-kube-apiserver --bench store`.
//!
//! The client runs in the same process, so the RSS figures include it (and the client's share of
//! the CPU): they are an upper bound for the server alone.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use fake_kube_apiserver::{ApiServerConfig, start};
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::{Node, Service};
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams, WatchEvent, WatchParams};
use serde_json::json;

const NODES: usize = 5_000;
const SERVICES: usize = 2_000;
const IN_FLIGHT: usize = 16;
const WATCHERS: usize = 50;
const UPDATES: usize = 2_000;
const LIST_ROUNDS: usize = 5;

fn rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn node(i: usize) -> Node {
    serde_json::from_value(json!({
        "metadata": {"name": format!("aks-pool{}-{i:05}-vmss", i % 4), "labels": {
            "kubernetes.io/hostname": format!("node-{i}"), "topology.kubernetes.io/zone": format!("eastus-{}", i % 3 + 1),
            "node.kubernetes.io/instance-type": "Standard_D4s_v5", "kubernetes.azure.com/agentpool": format!("pool{}", i % 4)}},
        "spec": {"providerID": format!("azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/pool/virtualMachines/{i}"),
                 "podCIDR": format!("10.244.{}.0/24", i % 256)},
        "status": {"addresses": [{"type": "InternalIP", "address": format!("10.224.{}.{}", i / 250, i % 250 + 4)}, {"type": "Hostname", "address": format!("node-{i}")}],
                   "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "kubelet is posting ready status",
                                   "lastHeartbeatTime": "2025-01-01T00:00:00Z", "lastTransitionTime": "2025-01-01T00:00:00Z"}],
                   "nodeInfo": {"kubeletVersion": "v1.33.0", "osImage": "Ubuntu 22.04", "kernelVersion": "5.15", "containerRuntimeVersion": "containerd://1.7",
                                "architecture": "amd64", "operatingSystem": "linux", "bootID": "b", "machineID": "m", "systemUUID": "u", "kubeProxyVersion": ""}}
    }))
    .expect("valid node")
}

fn service(i: usize) -> Service {
    let ty = if i.is_multiple_of(2) {
        "LoadBalancer"
    } else {
        "ClusterIP"
    };
    serde_json::from_value(json!({
        "metadata": {"name": format!("svc-{i:05}"), "namespace": "default", "labels": {"app": format!("app-{}", i % 50)},
                     "annotations": {"service.beta.kubernetes.io/azure-load-balancer-internal": "false"}},
        "spec": {"type": ty, "selector": {"app": format!("app-{}", i % 50)},
                 "ports": [{"name": "http", "port": 80, "targetPort": 8080}]}
    }))
    .expect("valid service")
}

struct Timing {
    label: &'static str,
    elapsed: Duration,
    objects: usize,
    bytes: usize,
}

impl Timing {
    fn print(&self) {
        let secs = self.elapsed.as_secs_f64();
        println!(
            "{:<44} {:>9.1} ms  {:>10.0} objects/s  {:>8.1} MiB/s",
            self.label,
            secs * 1000.0,
            self.objects as f64 / secs,
            self.bytes as f64 / secs / (1024.0 * 1024.0)
        );
    }
}

async fn raw_get(client: &kube::Client, path: &str) -> String {
    let request = http::Request::get(path)
        .header(http::header::ACCEPT, "application/json")
        .body(Vec::new())
        .expect("valid request");
    client.request_text(request).await.expect("list succeeds")
}

/// Full list of `path`, `rounds` times; average per round.
async fn full_list(client: &kube::Client, label: &'static str, path: &str, count: usize) -> Timing {
    let start = Instant::now();
    let mut bytes = 0;
    for _ in 0..LIST_ROUNDS {
        bytes += raw_get(client, path).await.len();
    }
    Timing {
        label,
        elapsed: start.elapsed() / LIST_ROUNDS as u32,
        objects: count,
        bytes: bytes / LIST_ROUNDS,
    }
}

/// Paginated list with `limit`, following continue tokens; average per full pass.
async fn paged_list(
    client: &kube::Client,
    label: &'static str,
    path: &str,
    limit: usize,
) -> Timing {
    let start = Instant::now();
    let (mut bytes, mut objects) = (0, 0);
    for _ in 0..LIST_ROUNDS {
        let mut token = String::new();
        loop {
            let url = format!("{path}?limit={limit}&continue={token}");
            let text = raw_get(client, &url).await;
            bytes += text.len();
            let page: serde_json::Value = serde_json::from_str(&text).expect("list JSON");
            objects += page["items"].as_array().map_or(0, Vec::len);
            match page["metadata"]["continue"].as_str() {
                Some(c) if !c.is_empty() => token = c.to_string(),
                _ => break,
            }
        }
    }
    Timing {
        label,
        elapsed: start.elapsed() / LIST_ROUNDS as u32,
        objects: objects / LIST_ROUNDS,
        bytes: bytes / LIST_ROUNDS,
    }
}

async fn seed<K, F>(api: &Api<K>, count: usize, make: F) -> Duration
where
    K: kube::Resource + Clone + serde::de::DeserializeOwned + serde::Serialize + std::fmt::Debug,
    F: Fn(usize) -> K,
{
    let start = Instant::now();
    futures::stream::iter((0..count).map(|i| {
        let obj = make(i);
        async move { api.create(&PostParams::default(), &obj).await }
    }))
    .buffer_unordered(IN_FLIGHT)
    .try_for_each(|_| async { Ok(()) })
    .await
    .expect("seeding succeeds");
    start.elapsed()
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let baseline = rss_mib();
    let dir = tempfile::tempdir().expect("temp dir");
    let config = ApiServerConfig {
        kubeconfig_out: Some(dir.path().join("kubeconfig")),
        history_capacity: 20_000,
        ..ApiServerConfig::default()
    };
    let server = start(config).await.expect("server starts");
    let kubeconfig = kube::config::Kubeconfig::read_from(dir.path().join("kubeconfig"))
        .expect("kubeconfig written");
    let client = kube::Client::try_from(
        kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
            .await
            .expect("kubeconfig valid"),
    )
    .expect("client");
    let nodes: Api<Node> = Api::all(client.clone());
    let services: Api<Service> = Api::namespaced(client.clone(), "default");

    println!(
        "fake-kube-apiserver store benchmark ({NODES} nodes, {SERVICES} services, {IN_FLIGHT} requests in flight)"
    );
    let t = seed(&nodes, NODES, node).await;
    println!(
        "seed nodes over HTTPS: {:>8.0} creates/s",
        NODES as f64 / t.as_secs_f64()
    );
    let t = seed(&services, SERVICES, service).await;
    println!(
        "seed services over HTTPS (allocating IPs/ports): {:>8.0} creates/s",
        SERVICES as f64 / t.as_secs_f64()
    );
    let seeded = rss_mib();

    full_list(&client, "list nodes (full, 5000)", "/api/v1/nodes", NODES)
        .await
        .print();
    paged_list(
        &client,
        "list nodes (limit=500, 10 pages)",
        "/api/v1/nodes",
        500,
    )
    .await
    .print();
    full_list(
        &client,
        "list services (full, 2001)",
        "/api/v1/services",
        SERVICES + 1,
    )
    .await
    .print();
    paged_list(
        &client,
        "list services (limit=500)",
        "/api/v1/services",
        500,
    )
    .await
    .print();
    let start = Instant::now();
    let selected = nodes
        .list(&ListParams::default().labels("kubernetes.azure.com/agentpool=pool1"))
        .await
        .expect("selector list");
    println!(
        "list nodes with label selector ({} of {NODES}, typed decode): {:>6.1} ms",
        selected.items.len(),
        start.elapsed().as_secs_f64() * 1000.0
    );

    // Watch fan-out: WATCHERS watches on nodes, one writer patching nodes UPDATES times.
    let rv = nodes
        .list_metadata(&ListParams::default().limit(1))
        .await
        .expect("list")
        .metadata
        .resource_version
        .expect("rv");
    let received = Arc::new(AtomicU64::new(0));
    let mut tasks = Vec::new();
    for _ in 0..WATCHERS {
        let stream = nodes
            .watch(&WatchParams::default().timeout(300), &rv)
            .await
            .expect("watch starts");
        let received = received.clone();
        tasks.push(tokio::spawn(async move {
            futures::pin_mut!(stream);
            let mut n = 0;
            while let Some(ev) = stream.next().await {
                if let Ok(WatchEvent::Modified(_)) = ev {
                    n += 1;
                    received.fetch_add(1, Ordering::Relaxed);
                    if n == UPDATES {
                        break;
                    }
                }
            }
        }));
    }
    let start = Instant::now();
    futures::stream::iter((0..UPDATES).map(|i| {
        let nodes = nodes.clone();
        async move {
            let name = format!("aks-pool{}-{:05}-vmss", i % 4, i % NODES);
            let patch = json!({"metadata": {"labels": {"bench/round": i.to_string()}}});
            nodes
                .patch(&name, &PatchParams::default(), &Patch::Strategic(patch))
                .await
        }
    }))
    .buffer_unordered(IN_FLIGHT)
    .try_for_each(|_| async { Ok(()) })
    .await
    .expect("patches succeed");
    let written = start.elapsed();
    let all =
        tokio::time::timeout(Duration::from_secs(300), futures::future::join_all(tasks)).await;
    let delivered = start.elapsed();
    let events = received.load(Ordering::Relaxed);
    println!(
        "watch fan-out: {UPDATES} node patches at {:.0} writes/s; {events} of {} events delivered to {WATCHERS} watchers in {:.2} s ({:.0} events/s){}",
        UPDATES as f64 / written.as_secs_f64(),
        UPDATES * WATCHERS,
        delivered.as_secs_f64(),
        events as f64 / delivered.as_secs_f64(),
        if all.is_ok() { "" } else { " (TIMED OUT)" }
    );
    println!(
        "slow watchers closed: {}",
        server.store().slow_watchers_closed()
    );
    println!(
        "memory (VmRSS, server + client in one process): baseline {baseline:.1} MiB, after seeding {seeded:.1} MiB, after lists/watches {:.1} MiB",
        rss_mib()
    );
    server.shutdown().await.expect("clean shutdown");
}
