//! Node initialisation of every node of each example topology (availability-set and standalone
//! VMs, uniform and flexible scale-set instances), registered as the kubelet does with
//! `--cloud-provider=external`: (a) through one `cloud-controller-manager` (ARM path), (b) on a
//! fresh API server through one `cloud-node-manager` per node (IMDS path, zero ARM calls). Each
//! result equals what the fake's ARM says of the VM, and the two runs agree node by node. Node
//! managers in ARM mode (`--use-instance-metadata=false`) give the CCM's results on every kind.

use std::collections::BTreeMap;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::Node;
use kube::Api;
use kube::api::PostParams;
use reqwest::Method;

use crate::cloud_controller_manager::{Manager, wait_for};
use crate::node_facts::NodeFacts;
use crate::processes::{ApiServer, cloud_node_manager, tainted_node};
use crate::topology::{Cloud, Vm, journal};

/// Registers every node of `vms` as the kubelet does.
pub async fn register(api: &ApiServer, vms: &[Vm]) -> Api<Node> {
    let nodes: Api<Node> = Api::all(api.client().await);
    for vm in vms {
        nodes
            .create(&PostParams::default(), &tainted_node(&vm.node_name))
            .await
            .expect("create node");
    }
    nodes
}

/// The facts of every Node named in `vms` once none is tainted and each has a providerID and
/// addresses; `None` while one is not there yet.
pub async fn initialised(nodes: &Api<Node>, vms: &[Vm]) -> Option<BTreeMap<String, NodeFacts>> {
    let mut facts = BTreeMap::new();
    for vm in vms {
        let node = nodes.get(&vm.node_name).await.ok()?;
        let fact = NodeFacts::of(&node);
        let done = !fact.tainted && fact.provider_id.is_some() && !fact.addresses.is_empty();
        if !done {
            return None;
        }
        facts.insert(vm.node_name.clone(), fact);
    }
    Some(facts)
}

/// Which source the node's addresses come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    Arm,
    Imds,
}

/// Asserts each node's facts equal what ARM says of its VM (and, for ExternalIPs on the IMDS
/// path, what its IMDS says of the load balancers in front of it).
async fn assert_as_arm_says(
    source: Source,
    cloud: &Cloud,
    vms: &[Vm],
    facts: &BTreeMap<String, NodeFacts>,
) {
    for vm in vms {
        let external = match source {
            Source::Arm => Vec::new(),
            Source::Imds => cloud.imds_lb_frontends(vm).await,
        };
        let expected = NodeFacts::expected(vm, &cloud.location, &external);
        assert_eq!(
            facts.get(&vm.node_name),
            Some(&expected),
            "{source:?}: node {} ({})",
            vm.node_name,
            vm.kind
        );
    }
}

/// (a) One CCM running only the cloud-node controller.
async fn through_the_ccm(cloud: &Cloud, vms: &[Vm]) -> BTreeMap<String, NodeFacts> {
    let api = ApiServer::start();
    let nodes = register(&api, vms).await;
    let config = cloud.azure_json("");
    let manager = Manager::start(
        &cloud.fake,
        &api,
        &config,
        &["--leader-elect=false", "--controllers=cloud-node"],
    );
    let facts = wait_for("the CCM initialises every node", &[&manager], || {
        initialised(&nodes, vms)
    })
    .await;
    let exit = manager.terminate();
    assert!(exit.success(), "{exit:?}\n{}", manager.logs());
    facts
}

/// Kills the node managers on drop.
struct NodeManagers(Vec<(String, Child, tempfile::NamedTempFile)>);

impl NodeManagers {
    fn logs(&self) -> String {
        self.0
            .iter()
            .map(|(node, _, log)| {
                let text = std::fs::read_to_string(log.path()).unwrap_or_default();
                format!("--- {node}\n{text}")
            })
            .collect()
    }
}

impl Drop for NodeManagers {
    fn drop(&mut self) {
        for (_, child, _) in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// (b) One CNM per node, from that node's IMDS (or, with [`Source::Arm`], from ARM with
/// `--use-instance-metadata=false`).
async fn through_node_managers(
    cloud: &Cloud,
    vms: &[Vm],
    source: Source,
) -> BTreeMap<String, NodeFacts> {
    let api = ApiServer::start();
    let nodes = register(&api, vms).await;
    let (status, _) = cloud
        .fake
        .admin(Method::DELETE, "/admin/journal", None)
        .await;
    assert_eq!(status / 100, 2, "clear the journal");
    let config = format!("--cloud-config={}", cloud.azure_json("").display());
    let mut managers = NodeManagers(Vec::new());
    for vm in vms {
        let log = tempfile::NamedTempFile::new().expect("log file");
        let mut command = cloud_node_manager();
        match source {
            Source::Imds => command.args(["--imds-endpoint", &cloud.imds_url(&vm.node_name)]),
            // An unreachable IMDS: ARM mode must not ask it.
            Source::Arm => command.args([
                "--imds-endpoint=https://127.0.0.1:1/imds/none",
                "--use-instance-metadata=false",
                &config,
            ]),
        };
        let child = command
            .args(["--node-name", &vm.node_name])
            .arg("--kubeconfig")
            .arg(api.kubeconfig())
            .arg("--enable-deprecated-beta-topology-labels")
            .env("SSL_CERT_FILE", &cloud.fake.ca_file)
            .env_remove("AZURE_IMDS_ENDPOINT")
            .stdout(Stdio::null())
            .stderr(log.reopen().expect("log handle"))
            .spawn()
            .expect("spawn cloud-node-manager");
        managers.0.push((vm.node_name.clone(), child, log));
    }
    let deadline = Instant::now() + Duration::from_secs(120);
    let facts = loop {
        if let Some(facts) = initialised(&nodes, vms).await {
            break facts;
        }
        let exited: Vec<_> = managers
            .0
            .iter_mut()
            .filter_map(|(node, child, _)| Some((node.clone(), child.try_wait().ok()??)))
            .collect();
        assert!(exited.is_empty(), "exited: {exited:?}\n{}", managers.logs());
        assert!(
            Instant::now() < deadline,
            "node managers did not initialise every node\n{}",
            managers.logs()
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    };
    let entries = journal(&cloud.fake).await;
    let (used, unused): (&[&str], &[&str]) = match source {
        Source::Imds => (&["imds"], &["arm", "entra", "metadata"]),
        Source::Arm => (&["arm"], &["imds"]),
    };
    for surface in used {
        assert!(
            entries.iter().any(|e| e["surface"] == *surface),
            "no {surface} request journaled: {entries:#?}"
        );
    }
    let unwanted: Vec<_> = entries
        .into_iter()
        .filter(|e| unused.iter().any(|s| e["surface"] == *s))
        .collect();
    assert!(
        unwanted.is_empty(),
        "{source:?} node managers called {unused:?}: {unwanted:#?}"
    );
    facts
}

/// Both runs on `topology`: each as ARM says, and equal to each other.
async fn initialises_every_node(topology: &str, kinds: &[&str]) {
    let cloud = Cloud::start(topology, &[]).await;
    let vms = cloud.vms().await;
    for kind in kinds {
        assert!(
            vms.iter().any(|vm| vm.kind == *kind),
            "{topology} has no {kind} node: {vms:#?}"
        );
    }
    let by_ccm = through_the_ccm(&cloud, &vms).await;
    assert_as_arm_says(Source::Arm, &cloud, &vms, &by_ccm).await;
    // A node manager runs on its VM: none on a stopped or deallocated one (whose IMDS the fake,
    // like Azure, does not answer).
    let running: Vec<Vm> = vms
        .iter()
        .filter(|vm| vm.power_state == "running")
        .cloned()
        .collect();
    let by_cnm = through_node_managers(&cloud, &running, Source::Imds).await;
    assert_as_arm_says(Source::Imds, &cloud, &running, &by_cnm).await;
    // Node by node; only ExternalIPs may differ (load balancer frontends come from IMDS only).
    for vm in &running {
        let name = &vm.node_name;
        assert_eq!(
            by_ccm[name].without_external_ips(),
            by_cnm[name].without_external_ips(),
            "{name}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn small_availability_set_and_standalone_vms() {
    initialises_every_node("small.yaml", &["standalone", "vmas"]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn zonal_uniform_scale_set() {
    initialises_every_node("zonal-vmss.yaml", &["vmss-uniform"]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mixed_every_vm_kind() {
    initialises_every_node(
        "mixed.yaml",
        &["standalone", "vmas", "vmss-uniform", "vmss-flex"],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mixed_node_managers_in_arm_mode() {
    let cloud = Cloud::start("mixed.yaml", &[]).await;
    let running: Vec<Vm> = cloud
        .vms()
        .await
        .into_iter()
        .filter(|vm| vm.power_state == "running")
        .collect();
    let facts = through_node_managers(&cloud, &running, Source::Arm).await;
    assert_as_arm_says(Source::Arm, &cloud, &running, &facts).await;
}
