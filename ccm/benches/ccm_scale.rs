//! Scale and memory of the production binaries against the real fakes: the release
//! `cloud-controller-manager` initialises every Node of a topology (registered as kubelets with
//! `--cloud-provider=external` do, with a kubelet-sized status) and serves N `type: LoadBalancer`
//! Services; printed per case: time to initialise all nodes, ARM calls for it, time and ARM calls
//! for the Services, ARM calls while idle, and the process's peak RSS (`VmHWM`): after
//! initialisation, after the Services, over the whole run, and the steady-state peak (the
//! kernel's peak reset once the Services phase has settled, `CCM_BENCH_SETTLE_SECS`, default
//! 15 s, read after the idle window). Also one `cloud-node-manager` initialising its node from IMDS.
//! Prints figures only; run with `cargo bench -p azure-ccm --bench ccm_scale`.
//!
//! Cases (`CCM_BENCH_CASES`, comma-separated, default all): `small` (small.yaml, 2 Services),
//! `zonal` (zonal-vmss.yaml, 2 Services), `cnm` (one cloud-node-manager on small.yaml), `1000`
//! (1000-nodes.yaml, four zonal scale sets), `5000` (five scale sets of 1000, 1000 Services, every
//! other one internal: see [`numbered_service`]).
//! `CCM_BENCH_SERVICES`: the Services of every case instead of its own.
//! `CCM_BENCH_IDLE_SECS`: the idle window before RSS is read (default 30 s; 360 s for the 1000-
//! and 5000-node cases, so that it holds a whole periodic address refresh of every Node).
//! `CCM_BENCH_CCM_ARGS`: extra CCM flags (space-separated), e.g. `--kube-api-qps=100
//! --kube-api-burst=200`; by default the CCM runs with upstream's defaults (20 QPS, burst 30),
//! which bound the init time.
//! `CCM_BENCH_WRAPPER`: a command the CCM runs under (e.g. `heaptrack`).
//!
//! The fake runs with `--no-throttle --retry-after 0 --lro-polls 0` so the wall times measure the
//! CCM and not ARM's throttling or poll waits; ARM calls are counted from the fake's journal.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fake_process::{
    ApiServer, FakeAzure, example, has_ingress, load_balancer_service, tcp_port, with_app,
};
use futures::{StreamExt, TryStreamExt, stream};
use k8s_openapi::api::core::v1::{
    ContainerImage, Node, NodeAddress, NodeCondition, NodeSpec, NodeStatus, NodeSystemInfo,
    Service, Taint,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use kube::Api;
use kube::api::{ListParams, ObjectMeta, PostParams};
use serde_json::Value;

const UNINITIALIZED: &str = "node.cloudprovider.kubernetes.io/uninitialized";
const APP_ID: &str = "b7c1e2d3-4f50-4a61-9b72-c83d94e5f607";
const APP_SECRET: &str = "ccm-scale-bench-secret";
/// Idle window of the small cases and the cloud-node-manager.
const SHORT_IDLE: Duration = Duration::from_secs(30);
/// Idle window of the 1000- and 5000-node cases: one default `--node-status-update-frequency`
/// (5 min) plus a minute for the refresh pass that starts within it.
const REFRESH_IDLE: Duration = Duration::from_secs(360);

/// One measured run.
#[derive(Clone)]
struct Case {
    name: &'static str,
    topology: PathBuf,
    services: usize,
    /// The idle window's default: the large cases' spans a whole cloud-node address refresh
    /// (every `--node-status-update-frequency`, 5 min by default, and at the start) with the
    /// instance caches' re-lists once their TTLs ran out, the periodic work of a steady state.
    idle: Duration,
}

/// The network names azure.json carries, read from the topology.
struct Network {
    resource_group: String,
    location: String,
    vm_type: &'static str,
    vnet: String,
    subnet: String,
    security_group: String,
    route_table: String,
}

impl Network {
    fn read(topology: &Path) -> Network {
        let text = std::fs::read_to_string(topology).expect("topology");
        let doc: Value = serde_saphyr::from_str(&text).expect("topology YAML");
        let s = |v: &Value| v.as_str().unwrap_or_default().to_string();
        let scale_sets = doc["scaleSets"].as_array().map_or(0, Vec::len);
        Network {
            resource_group: s(&doc["resourceGroups"]["node"]["name"]),
            location: s(&doc["location"]),
            vm_type: if scale_sets > 0 { "vmss" } else { "standard" },
            vnet: s(&doc["network"]["vnet"]["name"]),
            subnet: s(&doc["network"]["vnet"]["subnets"][0]["name"]),
            security_group: s(&doc["network"]["securityGroup"]),
            route_table: s(&doc["network"]["routeTable"]),
        }
    }

    fn azure_json(&self, fake: &FakeAzure, dir: &Path) -> PathBuf {
        let path = dir.join("azure.json");
        let doc = serde_json::json!({
            "cloud": "AzureStackCloud", "disableAzureStackCloud": true,
            "resourceManagerEndpoint": format!("{}/", fake.base),
            "tenantId": fake.tenant, "subscriptionId": fake.subscription,
            "aadClientId": APP_ID, "aadClientSecret": APP_SECRET,
            "resourceGroup": self.resource_group, "location": self.location,
            "vmType": self.vm_type, "loadBalancerSku": "standard",
            "vnetName": self.vnet, "vnetResourceGroup": self.resource_group,
            "subnetName": self.subnet, "securityGroupName": self.security_group,
            "routeTableName": self.route_table,
        });
        std::fs::write(&path, doc.to_string()).expect("write azure.json");
        path
    }
}

/// The topology with one more app (client secret) the CCM signs in as.
fn with_ccm_app(topology: &Path, dir: &Path) -> PathBuf {
    with_app(topology, dir, "ccm-scale", APP_ID, APP_SECRET)
}

/// Five uniform zonal scale sets of 1000 instances, each in its own /16.
fn five_thousand_nodes(dir: &Path) -> PathBuf {
    let mut text = String::from(
        "# 5000 nodes: five uniform zonal scale sets of 1000 (ccm_scale bench).\n\
         tenantId: 72f988bf-86f1-41af-91ab-2d7cd011db47\n\
         subscriptionId: 0b1f6471-1bf0-4dda-aec3-111122223333\n\
         location: eastus\n\
         resourceGroups:\n  node:\n    name: MC_huge_cluster_eastus\n\
         network:\n  vnet:\n    name: aks-vnet-huge\n    addressSpace: [10.224.0.0/12]\n    subnets:\n",
    );
    for pool in 0..5 {
        text.push_str(&format!(
            "      - name: pool{pool}-subnet\n        cidr: 10.{}.0.0/16\n",
            224 + pool
        ));
    }
    text.push_str(
        "  securityGroup: aks-agentpool-huge-nsg\n  routeTable: aks-agentpool-huge-routetable\n\
         loadBalancers:\n  - name: kubernetes\n    frontends:\n      - name: outbound\n        publicIp: {}\n\
         \x20   backendPools: [kubernetes]\n    outboundRules:\n      - name: aksOutboundRule\n\
         \x20       frontends: [outbound]\n        backendPool: kubernetes\nscaleSets:\n",
    );
    for pool in 0..5 {
        text.push_str(&format!(
            "  - name: aks-pool{pool}-vmss\n    computerNamePrefix: aks-pool{pool}-vmss\n    instances: 1000\n\
             \x20   zones: [1, 2, 3]\n    subnet: pool{pool}-subnet\n    size: Standard_D8ds_v5\n\
             \x20   backendPools: [kubernetes/kubernetes]\n"
        ));
    }
    let path = dir.join("5000-nodes.yaml");
    std::fs::write(&path, text).expect("write topology");
    path
}

/// A Node as a kubelet with `--cloud-provider=external` registers it: tainted, no providerID,
/// and a status of the size a real kubelet posts (conditions, capacity, node info, images).
fn registered_node(name: &str) -> Node {
    let quantity = |q: &str| Quantity(q.to_string());
    let resources = BTreeMap::from([
        ("cpu".to_string(), quantity("8")),
        ("memory".to_string(), quantity("32864872Ki")),
        ("pods".to_string(), quantity("110")),
        ("ephemeral-storage".to_string(), quantity("129886128Ki")),
        ("hugepages-1Gi".to_string(), quantity("0")),
        ("hugepages-2Mi".to_string(), quantity("0")),
    ]);
    let condition = |type_: &str, status: &str, reason: &str| NodeCondition {
        type_: type_.to_string(),
        status: status.to_string(),
        reason: Some(reason.to_string()),
        message: Some(format!("kubelet reports {reason}")),
        ..Default::default()
    };
    let images = (0..25)
        .map(|i| ContainerImage {
            names: Some(vec![
                format!("mcr.microsoft.com/oss/kubernetes/image-{i}@sha256:{i:064x}"),
                format!("mcr.microsoft.com/oss/kubernetes/image-{i}:v1.{i}.0"),
            ]),
            size_bytes: Some(10_000_000 + i),
        })
        .collect();
    let labels = BTreeMap::from([
        ("kubernetes.io/hostname".to_string(), name.to_string()),
        ("kubernetes.io/os".to_string(), "linux".to_string()),
        ("kubernetes.io/arch".to_string(), "amd64".to_string()),
        ("beta.kubernetes.io/os".to_string(), "linux".to_string()),
        ("beta.kubernetes.io/arch".to_string(), "amd64".to_string()),
        ("kubernetes.azure.com/role".to_string(), "agent".to_string()),
        ("kubernetes.azure.com/mode".to_string(), "user".to_string()),
    ]);
    Node {
        metadata: ObjectMeta {
            name: Some(name.to_string()),
            labels: Some(labels),
            annotations: Some(BTreeMap::from([(
                "volumes.kubernetes.io/controller-managed-attach-detach".to_string(),
                "true".to_string(),
            )])),
            ..Default::default()
        },
        spec: Some(NodeSpec {
            taints: Some(vec![Taint {
                key: UNINITIALIZED.to_string(),
                value: Some("true".to_string()),
                effect: "NoSchedule".to_string(),
                ..Default::default()
            }]),
            ..Default::default()
        }),
        status: Some(NodeStatus {
            addresses: Some(vec![NodeAddress {
                type_: "Hostname".to_string(),
                address: name.to_string(),
            }]),
            allocatable: Some(resources.clone()),
            capacity: Some(resources),
            conditions: Some(vec![
                condition("MemoryPressure", "False", "KubeletHasSufficientMemory"),
                condition("DiskPressure", "False", "KubeletHasNoDiskPressure"),
                condition("PIDPressure", "False", "KubeletHasSufficientPID"),
                condition("Ready", "True", "KubeletReady"),
            ]),
            images: Some(images),
            node_info: Some(NodeSystemInfo {
                architecture: "amd64".to_string(),
                boot_id: format!("{:032x}", name.len()),
                container_runtime_version: "containerd://1.7.22".to_string(),
                kernel_version: "5.15.0-1073-azure".to_string(),
                kube_proxy_version: "v1.31.2".to_string(),
                kubelet_version: "v1.31.2".to_string(),
                machine_id: format!("{:032x}", name.len() + 1),
                operating_system: "linux".to_string(),
                os_image: "Ubuntu 22.04.5 LTS".to_string(),
                system_uuid: format!("{:032x}", name.len() + 2),
                ..Default::default()
            }),
            ..Default::default()
        }),
    }
}

/// Service `i`: odd ones internal, so 1000 Services fit two Standard load balancers (`kubernetes`
/// and `kubernetes-internal`, 500 frontends each): one holds at most 600 frontend IP
/// configurations (Azure's limit, enforced by the fake), and upstream's CCM, like ours, puts every
/// public Service of a cluster on one load balancer unless multiple ones are configured.
fn numbered_service(i: usize) -> Service {
    let node_port = 30000 + i32::try_from(i).expect("small index");
    let mut service = load_balancer_service(
        &format!("svc-{i:04}"),
        vec![tcp_port("http", 80, node_port)],
    );
    if i % 2 == 1 {
        service.metadata.annotations.get_or_insert_default().insert(
            "service.beta.kubernetes.io/azure-load-balancer-internal".to_string(),
            "true".to_string(),
        );
    }
    service
}

/// ARM calls in the fake's journal from `since` on: (reads, writes, operation polls, next seq).
async fn arm_calls(fake: &FakeAzure, since: u64) -> (usize, usize, usize, u64) {
    let (_, export) = fake
        .admin(
            reqwest::Method::GET,
            &format!("/admin/journal?since={since}"),
            None,
        )
        .await;
    let mut counts = (0, 0, 0);
    for entry in export["entries"].as_array().into_iter().flatten() {
        if entry["surface"] != "arm" {
            continue;
        }
        let path = entry["path"]
            .as_str()
            .unwrap_or_default()
            .to_ascii_lowercase();
        if path.contains("/operations/") || path.contains("/operationresults/") {
            counts.2 += 1;
        } else if entry["method"] == "GET" {
            counts.0 += 1;
        } else {
            counts.1 += 1;
        }
    }
    assert_eq!(
        export["dropped"].as_u64().unwrap_or(0),
        0,
        "journal too small"
    );
    let next = export["nextSeq"].as_u64().expect("nextSeq");
    (counts.0, counts.1, counts.2, next)
}

/// Starts a new peak: the kernel sets `VmHWM` back to the current RSS (Linux >= 4.0), so the
/// next reading is the peak of the steady state alone, not of initialisation.
fn reset_peak(pid: u32) {
    std::fs::write(format!("/proc/{pid}/clear_refs"), "5").expect("reset VmHWM");
}

/// `VmHWM` and `VmRSS` of a process, in KiB.
fn memory_kib(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status");
    let field = |key: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    (field("VmHWM:"), field("VmRSS:"))
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// A child process killed on drop, with its stderr in a file for failures.
struct Running {
    child: Child,
    log: tempfile::NamedTempFile,
}

impl Running {
    fn spawn(command: &mut Command) -> Running {
        let log = tempfile::NamedTempFile::new().expect("log file");
        let child = command
            .stdout(Stdio::null())
            .stderr(log.reopen().expect("log handle"))
            .spawn()
            .expect("spawn");
        Running { child, log }
    }

    fn check_alive(&mut self) {
        if let Some(status) = self.child.try_wait().expect("poll") {
            let logs = std::fs::read_to_string(self.log.path()).unwrap_or_default();
            panic!("exited {status}:\n{logs}");
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Polls `done` every 500 ms while `process` runs; panics after `limit`.
async fn wait_until<F, Fut>(what: &str, process: &mut Running, limit: Duration, mut done: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = Instant::now() + limit;
    while !done().await {
        process.check_alive();
        assert!(Instant::now() < deadline, "timed out: {what}");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// The CCM, or `CCM_BENCH_WRAPPER` (e.g. `heaptrack`) running it: a profiler's view of the same
/// run (the RSS printed is then the wrapper's process).
fn ccm_command() -> Command {
    let ccm = env!("CARGO_BIN_EXE_cloud-controller-manager");
    match std::env::var("CCM_BENCH_WRAPPER") {
        Ok(wrapper) if !wrapper.is_empty() => {
            let mut command = Command::new(wrapper);
            command.arg(ccm);
            command
        }
        _ => Command::new(ccm),
    }
}

/// `CCM_BENCH_CCM_ARGS`: extra flags for the CCM, space-separated (e.g. `--kube-api-qps=100`).
fn extra_args() -> Vec<String> {
    std::env::var("CCM_BENCH_CCM_ARGS")
        .unwrap_or_default()
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

/// `CCM_BENCH_SERVICES`: the number of Services of every case instead of its own (a quicker
/// look at the Services phase, e.g. 200 on the 1000-node case).
fn service_count(case: &Case) -> usize {
    match std::env::var("CCM_BENCH_SERVICES") {
        Ok(v) => v.parse().unwrap_or_else(|_| {
            panic!("CCM_BENCH_SERVICES={v:?}: expected a number of Services (0 or more)")
        }),
        Err(_) => case.services,
    }
}

/// `CCM_BENCH_SETTLE_SECS` (default 15): the wait after the Services phase before the kernel's
/// peak is reset for the idle window.
fn settle_window() -> Duration {
    seconds_from_env("CCM_BENCH_SETTLE_SECS", Duration::from_secs(15))
}

/// `CCM_BENCH_IDLE_SECS`, else `default`: the window in which the steady-state peak is taken.
fn idle_window(default: Duration) -> Duration {
    seconds_from_env("CCM_BENCH_IDLE_SECS", default)
}

/// A whole number of seconds from the environment variable `name`, else `default`; any other
/// value stops the bench naming the variable (a typo must not measure another window).
fn seconds_from_env(name: &str, default: Duration) -> Duration {
    match std::env::var(name) {
        Ok(v) => Duration::from_secs(v.parse().unwrap_or_else(|_| {
            panic!("{name}={v:?}: expected a whole number of seconds (0 or more)")
        })),
        Err(_) => default,
    }
}

fn start_fake(topology: &Path) -> FakeAzure {
    FakeAzure::start(
        topology,
        &[
            "--no-throttle",
            "--retry-after",
            "0",
            "--lro-polls",
            "0",
            "--no-imds-rate-limits",
            "--journal-capacity",
            "2000000",
        ],
    )
}

async fn run_ccm(case: &Case, dir: &Path) {
    let topology = with_ccm_app(&case.topology, dir);
    let network = Network::read(&topology);
    let fake = start_fake(&topology);
    let api = ApiServer::start();
    let config = network.azure_json(&fake, dir);
    let client = api.client().await;
    let nodes: Api<Node> = Api::all(client.clone());
    let names: Vec<String> = fake.imds.iter().map(|(n, _)| n.clone()).collect();
    stream::iter(names.iter())
        .map(|name| {
            let nodes = nodes.clone();
            async move {
                nodes
                    .create(&PostParams::default(), &registered_node(name))
                    .await
            }
        })
        .buffer_unordered(16)
        .try_collect::<Vec<_>>()
        .await
        .expect("register nodes");
    let (_, _, _, seq) = arm_calls(&fake, 0).await;

    let started = Instant::now();
    let mut ccm = Running::spawn(
        ccm_command()
            .arg(format!("--cloud-config={}", config.display()))
            .arg("--kubeconfig")
            .arg(api.kubeconfig())
            .args([
                "--cluster-name=kubernetes",
                "--configure-cloud-routes=false",
                "--secure-port=0",
            ])
            .args(extra_args())
            .env("SSL_CERT_FILE", &fake.ca_file),
    );
    let pid = ccm.child.id();
    wait_until(
        "every node initialised",
        &mut ccm,
        Duration::from_secs(1800),
        || async {
            let list = nodes
                .list(&ListParams::default())
                .await
                .expect("list nodes");
            list.items.iter().all(|n| {
                n.spec.as_ref().is_some_and(|s| {
                    s.provider_id.is_some()
                        && !s.taints.iter().flatten().any(|t| t.key == UNINITIALIZED)
                })
            })
        },
    )
    .await;
    let init_time = started.elapsed();
    let (reads, writes, polls, seq) = arm_calls(&fake, seq).await;
    let (init_peak, _) = memory_kib(pid);
    println!(
        "{:>6} | {:>5} nodes | init {:>7.1} s | init ARM calls {:>5} (reads {reads}, writes {writes}, polls {polls}) | peak RSS so far {:.1} MiB",
        case.name,
        names.len(),
        init_time.as_secs_f64(),
        reads + writes + polls,
        mib(init_peak),
    );

    let services: Api<Service> = Api::namespaced(client, "default");
    let mut seq = seq;
    let case = &Case {
        services: service_count(case),
        ..case.clone()
    };
    if case.services > 0 {
        let started = Instant::now();
        for i in 0..case.services {
            services
                .create(&PostParams::default(), &numbered_service(i))
                .await
                .expect("create service");
        }
        wait_until(
            "every Service has an ingress IP",
            &mut ccm,
            Duration::from_secs(3600),
            || async {
                let list = services
                    .list(&ListParams::default())
                    .await
                    .expect("list services");
                let wanted = list.items.iter().filter(|s| {
                    s.spec.as_ref().and_then(|sp| sp.type_.as_deref()) == Some("LoadBalancer")
                });
                wanted.clone().count() == case.services && wanted.into_iter().all(has_ingress)
            },
        )
        .await;
        let elapsed = started.elapsed();
        let (reads, writes, polls, next) = arm_calls(&fake, seq).await;
        seq = next;
        let (peak, _) = memory_kib(pid);
        println!(
            "{:>6} | {:>5} Services | ready {:>6.1} s | ARM calls {:>5} (reads {reads}, writes {writes}, polls {polls}) | peak RSS so far {:.1} MiB",
            case.name,
            case.services,
            elapsed.as_secs_f64(),
            reads + writes + polls,
            mib(peak),
        );
    }
    // The steady state starts once the last writes of the Services phase (status updates,
    // Events) are done and the binary's periodic heap trim (5 s) ran a few times.
    tokio::time::sleep(settle_window()).await;
    let (lifetime_peak, settled_rss) = memory_kib(pid);
    reset_peak(pid);
    let idle = idle_window(case.idle);
    tokio::time::sleep(idle).await;
    ccm.check_alive();
    let (reads, writes, polls, _) = arm_calls(&fake, seq).await;
    let (steady_peak, rss) = memory_kib(pid);
    println!(
        "{:>6} | settled {} s (RSS {:.1} MiB), idle {:>3} s: ARM calls {} (writes {writes}) | cloud-controller-manager peak RSS (VmHWM) {:.1} MiB over the run, {:.1} MiB in the idle window (steady state), RSS now {:.1} MiB",
        case.name,
        settle_window().as_secs(),
        mib(settled_rss),
        idle.as_secs(),
        reads + writes + polls,
        mib(lifetime_peak),
        mib(steady_peak),
        mib(rss),
    );
}

async fn run_cnm(dir: &Path) {
    let topology = with_ccm_app(&example("small.yaml"), dir);
    let fake = start_fake(&topology);
    let api = ApiServer::start();
    let (node, imds) = fake
        .imds
        .iter()
        .find(|(name, _)| name.contains("agentpool"))
        .cloned()
        .expect("an agent node");
    let nodes: Api<Node> = Api::all(api.client().await);
    nodes
        .create(&PostParams::default(), &registered_node(&node))
        .await
        .expect("register node");
    let started = Instant::now();
    let mut cnm = Running::spawn(
        Command::new(env!("CARGO_BIN_EXE_cloud-node-manager"))
            .args(["--node-name", &node, "--imds-endpoint", &imds])
            .arg("--kubeconfig")
            .arg(api.kubeconfig())
            .env("SSL_CERT_FILE", &fake.ca_file)
            .env_remove("AZURE_IMDS_ENDPOINT"),
    );
    let pid = cnm.child.id();
    wait_until(
        "the node initialised",
        &mut cnm,
        Duration::from_secs(120),
        || async {
            nodes.get(&node).await.is_ok_and(|n| {
                !n.spec
                    .iter()
                    .flat_map(|s| s.taints.iter().flatten())
                    .any(|t| t.key == UNINITIALIZED)
            })
        },
    )
    .await;
    let init_time = started.elapsed();
    let idle = idle_window(SHORT_IDLE);
    tokio::time::sleep(idle).await;
    cnm.check_alive();
    let (reads, writes, polls, _) = arm_calls(&fake, 0).await;
    let (hwm, rss) = memory_kib(pid);
    println!(
        "   cnm | 1 node | init {:.2} s | ARM calls {} | cloud-node-manager peak RSS (VmHWM) {:.1} MiB, RSS now {:.1} MiB after {} s idle",
        init_time.as_secs_f64(),
        reads + writes + polls,
        mib(hwm),
        mib(rss),
        idle.as_secs(),
    );
}

fn main() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    // A bad window variable stops the bench here, before any process starts.
    let _ = (settle_window(), idle_window(SHORT_IDLE));
    let selected: Vec<String> = std::env::var("CCM_BENCH_CASES")
        .unwrap_or_else(|_| "small,zonal,cnm,1000,5000".to_string())
        .split(',')
        .map(|c| c.trim().to_string())
        .collect();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let dir = tempfile::tempdir().expect("tempdir");
    let huge = five_thousand_nodes(dir.path());
    let cases = [
        Case {
            name: "small",
            topology: example("small.yaml"),
            services: 2,
            idle: SHORT_IDLE,
        },
        Case {
            name: "zonal",
            topology: example("zonal-vmss.yaml"),
            services: 2,
            idle: SHORT_IDLE,
        },
        Case {
            name: "1000",
            topology: example("1000-nodes.yaml"),
            services: 0,
            idle: REFRESH_IDLE,
        },
        Case {
            name: "5000",
            topology: huge,
            services: 1000,
            idle: REFRESH_IDLE,
        },
    ];
    println!("case   | figures (cloud-controller-manager release build, fakes on 127.0.0.1)");
    for case in &cases {
        if selected.iter().any(|s| s == case.name) {
            let case_dir = tempfile::tempdir().expect("tempdir");
            runtime.block_on(run_ccm(case, case_dir.path()));
        }
        if case.name == "zonal" && selected.iter().any(|s| s == "cnm") {
            let case_dir = tempfile::tempdir().expect("tempdir");
            runtime.block_on(run_cnm(case_dir.path()));
        }
    }
}
