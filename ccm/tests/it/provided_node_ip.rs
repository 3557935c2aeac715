//! The kubelet's `--node-ip` (annotation `alpha.kubernetes.io/provided-node-ip`) through both
//! binaries on small.yaml: a node whose IP is among its VM's addresses is initialised with that
//! address listed first; a node claiming an IP its VM does not have keeps its taint, with a
//! Warning naming the IP (k8s.io/cloud-provider `GetNodeAddressesFromNodeIP`).

use k8s_openapi::api::core::v1::{Event, Node};
use kube::Api;
use kube::api::{ListParams, PostParams};

use crate::cloud_controller_manager::{Manager, wait_for};
use crate::node_facts::NodeFacts;
use crate::node_init::initialised;
use crate::processes::{ApiServer, cloud_node_manager, tainted_node};
use crate::topology::{Cloud, Vm};

const PROVIDED_NODE_IP: &str = "alpha.kubernetes.io/provided-node-ip";
const WRONG_IP: &str = "10.224.99.99";

/// The node of `vm` as a kubelet started with `--node-ip=<ip>` registers it.
fn with_node_ip(vm: &Vm, ip: &str) -> Node {
    let mut node = tainted_node(&vm.node_name);
    node.metadata.annotations = Some([(PROVIDED_NODE_IP.to_owned(), ip.to_owned())].into());
    node
}

/// The Warning explaining why `node` is not initialised.
async fn init_failure(events: &Api<Event>, node: &str) -> Option<Event> {
    events
        .list(&ListParams::default())
        .await
        .ok()?
        .items
        .into_iter()
        .find(|e| {
            e.reason.as_deref() == Some("NodeInitializationFailed")
                && e.involved_object.name.as_deref() == Some(node)
        })
}

async fn agents(cloud: &Cloud) -> (Vm, Vm) {
    let mut agents = cloud
        .vms()
        .await
        .into_iter()
        .filter(|vm| vm.node_name.contains("agentpool"));
    let first = agents.next().expect("an agent");
    let second = agents.next().expect("a second agent");
    (first, second)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ccm_honours_the_provided_node_ip() {
    let cloud = Cloud::start("small.yaml", &[]).await;
    let (good, bad) = agents(&cloud).await;
    let api = ApiServer::start();
    let client = api.client().await;
    let nodes: Api<Node> = Api::all(client.clone());
    nodes
        .create(
            &PostParams::default(),
            &with_node_ip(&good, &good.private_ips[0]),
        )
        .await
        .expect("create node");
    nodes
        .create(&PostParams::default(), &with_node_ip(&bad, WRONG_IP))
        .await
        .expect("create node");
    let config = cloud.azure_json("");
    let manager = Manager::start(
        &cloud.fake,
        &api,
        &config,
        &["--leader-elect=false", "--controllers=cloud-node"],
    );
    let facts = wait_for(
        "the node with its own IP is initialised",
        &[&manager],
        || initialised(&nodes, std::slice::from_ref(&good)),
    )
    .await;
    assert_eq!(
        facts[&good.node_name],
        NodeFacts::expected(&good, &cloud.location, &[])
    );
    let node = nodes.get(&good.node_name).await.expect("get node");
    let first = node
        .status
        .and_then(|s| s.addresses)
        .and_then(|a| a.into_iter().next())
        .expect("addresses");
    assert_eq!(
        (first.type_.as_str(), first.address.as_str()),
        ("InternalIP", good.private_ips[0].as_str())
    );

    let events: Api<Event> = Api::all(client);
    let warning = wait_for(
        "a Warning for the node with a foreign IP",
        &[&manager],
        || init_failure(&events, &bad.node_name),
    )
    .await;
    assert!(
        warning
            .message
            .as_deref()
            .is_some_and(|m| m.contains(WRONG_IP)),
        "{warning:?}"
    );
    let node = nodes.get(&bad.node_name).await.expect("get node");
    assert!(NodeFacts::of(&node).tainted, "{node:?}");
    let exit = manager.terminate();
    assert!(exit.success(), "{exit:?}\n{}", manager.logs());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_node_manager_refuses_a_foreign_provided_node_ip() {
    let cloud = Cloud::start("small.yaml", &[]).await;
    let (_, bad) = agents(&cloud).await;
    let api = ApiServer::start();
    let client = api.client().await;
    let nodes: Api<Node> = Api::all(client.clone());
    nodes
        .create(&PostParams::default(), &with_node_ip(&bad, WRONG_IP))
        .await
        .expect("create node");
    let log = tempfile::NamedTempFile::new().expect("log file");
    let mut cnm = cloud_node_manager()
        .args(["--node-name", &bad.node_name])
        .args(["--imds-endpoint", &cloud.imds_url(&bad.node_name)])
        .arg("--kubeconfig")
        .arg(api.kubeconfig())
        .env("SSL_CERT_FILE", &cloud.fake.ca_file)
        .env_remove("AZURE_IMDS_ENDPOINT")
        .stdout(std::process::Stdio::null())
        .stderr(log.reopen().expect("log handle"))
        .spawn()
        .expect("spawn cloud-node-manager");
    let events: Api<Event> = Api::all(client);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let warning = loop {
        if let Some(event) = init_failure(&events, &bad.node_name).await {
            break event;
        }
        let logs = std::fs::read_to_string(log.path()).unwrap_or_default();
        assert!(cnm.try_wait().expect("poll").is_none(), "exited:\n{logs}");
        assert!(std::time::Instant::now() < deadline, "no Warning:\n{logs}");
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    };
    let _ = cnm.kill();
    let _ = cnm.wait();
    assert!(
        warning
            .message
            .as_deref()
            .is_some_and(|m| m.contains(WRONG_IP)),
        "{warning:?}"
    );
    let node = nodes.get(&bad.node_name).await.expect("get node");
    assert!(NodeFacts::of(&node).tainted, "{node:?}");
}
