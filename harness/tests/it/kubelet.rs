//! Simulated kubelets (`harness::intree::kubelet`) against the real fakes: in-tree Nodes carry
//! what the fake's ARM says about their VM, external Nodes wait tainted for a cloud provider,
//! stopping a kubelet makes its Node NotReady, its Lease keeps being renewed while it runs, and
//! a kubelet flipped to external leaves its initialised Node as it was. The real
//! `cloud-controller-manager` (found or built by `fake_process::workspace_binary`) initialises
//! the external ones.

use std::collections::BTreeMap;
use std::time::Duration;

use std::process::Command;

use fake_process::{
    ApiServer, FakeAzure, LoggedProcess, example, small_azure_json, wait_for, workspace_binary,
};
use futures::{StreamExt, TryStreamExt};
use harness::intree::kubelet::{
    KubeVersion, KubeletError, KubeletSpec, Kubelets, LEASE_NAMESPACE, Mode, NodeIp,
    PROVIDED_NODE_IP, STOPPED_POSTING, Timing, UNINITIALIZED_TAINT, UNREACHABLE_TAINT, is_ready,
};
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::Node;
use kube::Api;
use kube::api::{WatchEvent, WatchParams};
use serde_json::Value;

/// Fast loops: the tests watch several periods go by.
const FAST: Timing = Timing {
    lease_renew: Duration::from_millis(300),
    status_update: Duration::from_millis(300),
    retry: Duration::from_millis(200),
};

fn version(text: &str) -> KubeVersion {
    text.parse().expect("version")
}

async fn cluster(topology: &str) -> (FakeAzure, ApiServer, kube::Client) {
    let fake = FakeAzure::start(&example(topology), &["--lro-polls", "0"]);
    let api = ApiServer::start();
    let client = api.client().await;
    (fake, api, client)
}

fn kubelets(fake: &FakeAzure, client: &kube::Client) -> Kubelets {
    Kubelets::new(client.clone(), &fake.ca_file, FAST).expect("kubelets")
}

/// The fake's description of `node`'s VM (`GET /admin/compute/nodes/<node>`).
async fn described(fake: &FakeAzure, node: &str) -> Value {
    let (status, body) = fake
        .admin(
            reqwest::Method::GET,
            &format!("/admin/compute/nodes/{node}"),
            None,
        )
        .await;
    assert_eq!(status, 200, "{body}");
    body
}

/// `node`'s public IP as the fake's IMDS tells a Standard LB backend
/// (`/metadata/loadbalancer` frontend for its private IP), when the VM has no instance-level one.
async fn public_ip(fake: &FakeAzure, node: &str, vm: &Value) -> Option<String> {
    if let Some(public) = vm["publicIp"].as_str() {
        return Some(public.to_owned());
    }
    let (_, url) = fake.imds.iter().find(|(n, _)| n == node)?;
    let lb: Value = fake
        .http
        .get(format!(
            "{url}/metadata/loadbalancer?api-version=2020-10-01&format=json"
        ))
        .header("Metadata", "true")
        .send()
        .await
        .ok()?
        .json()
        .await
        .ok()?;
    let private = vm["privateIps"][0].as_str()?;
    lb.pointer("/loadbalancer/publicIpAddresses")?
        .as_array()?
        .iter()
        .find(|p| p["privateIpAddress"] == private)
        .and_then(|p| p["frontendIpAddress"].as_str())
        .map(str::to_owned)
}

/// Waits until `node` exists and `check` accepts it.
async fn node_where(
    nodes: &Api<Node>,
    node: &str,
    what: &str,
    check: impl Fn(&Node) -> bool,
) -> Node {
    wait_for(&format!("{node}: {what}"), &[], || async {
        nodes
            .get_opt(node)
            .await
            .ok()
            .flatten()
            .filter(|n| check(n))
    })
    .await
}

fn labels(node: &Node) -> BTreeMap<String, String> {
    node.metadata.labels.clone().unwrap_or_default()
}

fn taint_keys(node: &Node) -> Vec<String> {
    node.spec
        .as_ref()
        .and_then(|s| s.taints.clone())
        .unwrap_or_default()
        .into_iter()
        .map(|t| t.key)
        .collect()
}

fn addresses(node: &Node) -> Vec<(String, String)> {
    node.status
        .as_ref()
        .and_then(|s| s.addresses.clone())
        .unwrap_or_default()
        .into_iter()
        .map(|a| (a.type_, a.address))
        .collect()
}

fn provider_id(node: &Node) -> Option<String> {
    node.spec.as_ref().and_then(|s| s.provider_id.clone())
}

/// What an in-tree kubelet of 1.27 must have written for the VM the fake describes.
fn assert_in_tree_node(node: &Node, vm: &Value, public: Option<String>, location: &str) {
    let name = node.metadata.name.clone().expect("name");
    assert_eq!(
        provider_id(node).as_deref(),
        vm["providerId"].as_str(),
        "{name}"
    );
    let zone = match vm["zone"].as_u64() {
        Some(zone) => format!("{location}-{zone}"),
        None => vm["faultDomain"].to_string(),
    };
    let size = vm["vmSize"].as_str().expect("vmSize");
    let labels = labels(node);
    for (key, value) in [
        ("topology.kubernetes.io/zone", zone.as_str()),
        ("failure-domain.beta.kubernetes.io/zone", &zone),
        ("topology.kubernetes.io/region", location),
        ("failure-domain.beta.kubernetes.io/region", location),
        ("node.kubernetes.io/instance-type", size),
        ("beta.kubernetes.io/instance-type", size),
        ("kubernetes.io/hostname", &name),
        ("kubernetes.io/os", "linux"),
        ("beta.kubernetes.io/os", "linux"),
        ("kubernetes.io/arch", "amd64"),
        ("beta.kubernetes.io/arch", "amd64"),
    ] {
        assert_eq!(
            labels.get(key).map(String::as_str),
            Some(value),
            "{name}: {key}"
        );
    }
    let private = vm["privateIps"][0].as_str().expect("private ip");
    let mut expected = vec![
        ("Hostname".to_owned(), name.clone()),
        ("InternalIP".to_owned(), private.to_owned()),
    ];
    if let Some(public) = public {
        expected.push(("ExternalIP".to_owned(), public));
    }
    assert_eq!(addresses(node), expected, "{name}");
    assert_eq!(taint_keys(node), Vec::<String>::new(), "{name}: no taint");
    assert!(is_ready(node), "{name}: Ready");
}

async fn in_tree_nodes_match_arm(topology: &str, location: &str) {
    let (fake, _api, client) = cluster(topology).await;
    let mut kubelets = kubelets(&fake, &client);
    kubelets
        .start_all(&fake.imds, Mode::InTree, version("1.27"), NodeIp::Unset)
        .expect("start");
    let nodes: Api<Node> = Api::all(client.clone());
    for (name, _) in &fake.imds {
        let node = node_where(&nodes, name, "Ready", is_ready).await;
        let vm = described(&fake, name).await;
        let public = public_ip(&fake, name, &vm).await;
        assert_in_tree_node(&node, &vm, public, location);
    }
    kubelets.shutdown().await;
    assert!(
        kubelets.states().iter().all(|s| !s.running),
        "every task ended"
    );
}

#[tokio::test]
async fn in_tree_nodes_of_small_match_the_fake_arm() {
    in_tree_nodes_match_arm("small.yaml", "eastus").await;
}

#[tokio::test]
async fn in_tree_nodes_of_zonal_vmss_match_the_fake_arm() {
    in_tree_nodes_match_arm("zonal-vmss.yaml", "westeurope").await;
}

#[tokio::test]
async fn external_nodes_wait_tainted_without_provider_id() {
    let (fake, _api, client) = cluster("zonal-vmss.yaml").await;
    let mut kubelets = kubelets(&fake, &client);
    let (with_ip, without_ip) = fake.imds.split_at(1);
    kubelets
        .start_all(with_ip, Mode::External, version("1.28"), NodeIp::FromImds)
        .expect("start with --node-ip");
    kubelets
        .start_all(without_ip, Mode::External, version("1.28"), NodeIp::Unset)
        .expect("start without --node-ip");
    let nodes: Api<Node> = Api::all(client.clone());
    for (name, _) in &fake.imds {
        let node = node_where(&nodes, name, "Ready", is_ready).await;
        assert_eq!(
            taint_keys(&node),
            vec![UNINITIALIZED_TAINT.to_owned()],
            "{name}"
        );
        let taint = &node.spec.clone().expect("spec").taints.expect("taints")[0];
        assert_eq!(
            (taint.value.as_deref(), taint.effect.as_str()),
            (Some("true"), "NoSchedule")
        );
        assert_eq!(provider_id(&node), None, "{name}");
        assert!(
            !labels(&node).contains_key("topology.kubernetes.io/zone"),
            "{name}: no cloud labels"
        );
        assert_eq!(
            addresses(&node),
            Vec::new(),
            "{name}: 1.28 leaves addresses to the CCM"
        );
        let annotation = node
            .metadata
            .annotations
            .clone()
            .unwrap_or_default()
            .get(PROVIDED_NODE_IP)
            .cloned();
        let expected = if name == &with_ip[0].0 {
            described(&fake, name).await["privateIps"][0]
                .as_str()
                .map(str::to_owned)
        } else {
            None
        };
        assert_eq!(annotation, expected, "{name}: provided-node-ip");
    }
}

#[tokio::test]
async fn external_kubelet_of_1_29_posts_hostname_until_the_cloud_does() {
    let (fake, _api, client) = cluster("small.yaml").await;
    let mut kubelets = kubelets(&fake, &client);
    let (name, imds_url) = fake.imds[0].clone();
    kubelets
        .add(KubeletSpec {
            node: name.clone(),
            imds_url,
            mode: Mode::External,
            version: version("1.29"),
            node_ip: NodeIp::Unset,
        })
        .expect("start");
    let nodes: Api<Node> = Api::all(client.clone());
    let node = node_where(&nodes, &name, "Ready", is_ready).await;
    assert_eq!(
        addresses(&node),
        vec![("Hostname".to_owned(), name.clone())]
    );
}

#[tokio::test]
async fn stopping_makes_the_node_not_ready_and_starting_makes_it_ready() {
    let (fake, _api, client) = cluster("small.yaml").await;
    let mut kubelets = kubelets(&fake, &client);
    let one = &fake.imds[..1];
    let name = one[0].0.clone();
    kubelets
        .start_all(one, Mode::InTree, version("1.27"), NodeIp::Unset)
        .expect("start");
    let nodes: Api<Node> = Api::all(client.clone());
    node_where(&nodes, &name, "Ready", is_ready).await;

    // The Lease is renewed while the kubelet runs.
    let leases: Api<Lease> = Api::namespaced(client.clone(), LEASE_NAMESPACE);
    let renew_time = |lease: &Lease| {
        lease
            .spec
            .as_ref()
            .and_then(|s| s.renew_time.clone())
            .map(|t| t.0)
    };
    let first = wait_for("lease", &[], || async {
        leases.get_opt(&name).await.ok().flatten()
    })
    .await;
    let spec = first.spec.clone().expect("lease spec");
    assert_eq!(spec.holder_identity.as_deref(), Some(name.as_str()));
    assert_eq!(spec.lease_duration_seconds, Some(40));
    let owner = &first.metadata.owner_references.clone().expect("owner")[0];
    assert_eq!(
        (owner.kind.as_str(), owner.name.as_str()),
        ("Node", name.as_str())
    );
    let first_renew = renew_time(&first).expect("renewTime");
    wait_for("lease renewed", &[], || async {
        let lease = leases.get(&name).await.ok()?;
        (renew_time(&lease)? > first_renew).then_some(())
    })
    .await;

    kubelets.stop(&name, true).await.expect("stop");
    let stopped = nodes.get(&name).await.expect("node");
    let ready = stopped
        .status
        .clone()
        .and_then(|s| s.conditions)
        .unwrap_or_default()
        .into_iter()
        .find(|c| c.type_ == "Ready")
        .expect("Ready");
    assert_eq!(ready.status, "Unknown");
    assert_eq!(ready.reason.as_deref(), Some("NodeStatusUnknown"));
    assert_eq!(ready.message.as_deref(), Some(STOPPED_POSTING));
    assert_eq!(taint_keys(&stopped), vec![UNREACHABLE_TAINT.to_owned(); 2]);
    let state = kubelets.state(&name).expect("state");
    assert!(!state.running);
    let renewals = state.log.lease_renewals;
    let posts = state.log.status_posts;
    // Nothing is posted or renewed once stopped: a status post in flight would have set Ready.
    tokio::time::sleep(FAST.status_update * 3).await;
    assert!(
        !is_ready(&nodes.get(&name).await.expect("node")),
        "still NotReady"
    );
    let state = kubelets.state(&name).expect("state");
    assert_eq!(
        (state.log.lease_renewals, state.log.status_posts),
        (renewals, posts)
    );

    kubelets.start(&name).expect("start again");
    let back = node_where(&nodes, &name, "Ready without unreachable taints", |n| {
        is_ready(n) && taint_keys(n).is_empty()
    })
    .await;
    let vm = described(&fake, &name).await;
    let public = public_ip(&fake, &name, &vm).await;
    assert_in_tree_node(&back, &vm, public, "eastus");
}

#[tokio::test]
async fn flipping_to_external_keeps_the_initialised_node() {
    let (fake, _api, client) = cluster("zonal-vmss.yaml").await;
    let mut kubelets = kubelets(&fake, &client);
    let one = &fake.imds[..1];
    let name = one[0].0.clone();
    kubelets
        .start_all(one, Mode::InTree, version("1.28"), NodeIp::FromImds)
        .expect("start");
    let nodes: Api<Node> = Api::all(client.clone());
    let before = node_where(&nodes, &name, "Ready", is_ready).await;
    let annotation = |n: &Node| {
        n.metadata
            .annotations
            .clone()
            .unwrap_or_default()
            .get(PROVIDED_NODE_IP)
            .cloned()
    };
    assert_eq!(annotation(&before), None, "in-tree: no provided-node-ip");

    kubelets.flip(&name, Mode::External).await.expect("flip");
    let after = node_where(&nodes, &name, "provided-node-ip after the flip", |n| {
        annotation(n).is_some()
    })
    .await;
    assert_eq!(taint_keys(&after), Vec::<String>::new(), "not re-tainted");
    assert_eq!(provider_id(&after), provider_id(&before));
    assert_eq!(labels(&after), labels(&before));
    assert_eq!(addresses(&after), addresses(&before));
    assert_eq!(after.metadata.uid, before.metadata.uid, "same Node object");
    let registrations: Vec<_> = kubelets
        .state(&name)
        .expect("state")
        .log
        .events
        .into_iter()
        .filter_map(|e| match e.activity {
            harness::intree::kubelet::Activity::Registered { mode, created } => {
                Some((mode, created))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        registrations,
        vec![(Mode::InTree, true), (Mode::External, false)]
    );
}

#[tokio::test]
async fn in_tree_mode_is_refused_after_1_29() {
    let (fake, _api, client) = cluster("small.yaml").await;
    let mut kubelets = kubelets(&fake, &client);
    let refused = kubelets.start_all(&fake.imds, Mode::InTree, version("1.30"), NodeIp::Unset);
    assert!(
        matches!(refused, Err(KubeletError::NoInTree { .. })),
        "{refused:?}"
    );
    assert!(kubelets.states().is_empty());
}

#[tokio::test]
async fn the_real_ccm_initialises_external_nodes() {
    let (fake, api, client) = cluster("small.yaml").await;
    let mut kubelets = kubelets(&fake, &client);
    kubelets
        .start_all(
            &fake.imds,
            Mode::External,
            version("1.28"),
            NodeIp::FromImds,
        )
        .expect("start");
    let dir = tempfile::tempdir().expect("tempdir");
    let config = small_azure_json(&fake, dir.path(), None);
    let mut command = Command::new(workspace_binary("azure-ccm", "cloud-controller-manager"));
    command
        .arg(format!("--kubeconfig={}", api.kubeconfig().display()))
        .arg(format!("--cloud-config={}", config.display()))
        .args([
            "--cloud-provider=azure",
            "--controllers=cloud-node",
            "--leader-elect=false",
            "--configure-cloud-routes=false",
            "--secure-port=0",
        ])
        .env("SSL_CERT_FILE", &fake.ca_file);
    let ccm = LoggedProcess::spawn(command);
    let nodes: Api<Node> = Api::all(client.clone());
    for (name, _) in &fake.imds {
        let vm = described(&fake, name).await;
        let node = wait_for(
            &format!("{name} initialised by the CCM"),
            &[&ccm],
            || async {
                let node = nodes.get(name).await.ok()?;
                // Addresses follow the taint removal in a second (status) write.
                (taint_keys(&node).is_empty()
                    && provider_id(&node).is_some()
                    && !addresses(&node).is_empty())
                .then_some(node)
            },
        )
        .await;
        assert_eq!(
            provider_id(&node).as_deref(),
            vm["providerId"].as_str(),
            "{name}"
        );
        assert_eq!(
            labels(&node)
                .get("node.kubernetes.io/instance-type")
                .map(String::as_str),
            vm["vmSize"].as_str(),
            "{name}"
        );
        let private = vm["privateIps"][0].as_str().expect("ip").to_owned();
        assert!(
            addresses(&node).contains(&("InternalIP".to_owned(), private)),
            "{name}: {:?}",
            addresses(&node)
        );
        assert!(is_ready(&node), "{name}: Ready");
    }
    // The kubelets keep posting without undoing what the CCM wrote.
    let before: Vec<_> = kubelets
        .states()
        .iter()
        .map(|s| s.log.status_posts)
        .collect();
    wait_for("two more status posts each", &[&ccm], || async {
        let after: Vec<_> = kubelets
            .states()
            .iter()
            .map(|s| s.log.status_posts)
            .collect();
        after
            .iter()
            .zip(&before)
            .all(|(a, b)| *a >= b + 2)
            .then_some(())
    })
    .await;
    for (name, _) in &fake.imds {
        let node = nodes.get(name).await.expect("node");
        assert!(taint_keys(&node).is_empty(), "{name}: still untainted");
        assert!(provider_id(&node).is_some(), "{name}: providerID kept");
        assert!(!addresses(&node).is_empty(), "{name}: addresses kept");
    }
    ccm.terminate();
}

#[tokio::test]
async fn an_in_tree_node_is_born_initialised() {
    let (fake, _api, client) = cluster("small.yaml").await;
    let nodes: Api<Node> = Api::all(client.clone());
    let mut events = nodes
        .watch(&WatchParams::default(), "0")
        .await
        .expect("watch")
        .boxed();
    let mut kubelets = kubelets(&fake, &client);
    kubelets
        .start_all(
            &fake.imds[..1],
            Mode::InTree,
            version("1.27"),
            NodeIp::Unset,
        )
        .expect("start");
    let added = loop {
        match events.try_next().await.expect("watch event") {
            Some(WatchEvent::Added(node)) => break node,
            Some(_) => continue,
            None => panic!("watch ended before the Node was added"),
        }
    };
    // What a watcher (the CCM, the KCM) first sees: no window without providerID or addresses.
    let vm = described(&fake, &fake.imds[0].0).await;
    let public = public_ip(&fake, &fake.imds[0].0, &vm).await;
    assert_in_tree_node(&added, &vm, public, "eastus");
}

#[tokio::test]
async fn an_in_tree_node_ip_the_cloud_lacks_leaves_addresses_out() {
    let (fake, _api, client) = cluster("small.yaml").await;
    let mut kubelets = kubelets(&fake, &client);
    let (name, imds_url) = fake.imds[0].clone();
    kubelets
        .add(KubeletSpec {
            node: name.clone(),
            imds_url,
            mode: Mode::InTree,
            version: version("1.27"),
            node_ip: NodeIp::Fixed(vec!["10.9.9.9".to_owned()]),
        })
        .expect("start");
    let nodes: Api<Node> = Api::all(client.clone());
    let node = node_where(&nodes, &name, "Ready", is_ready).await;
    assert_eq!(addresses(&node), Vec::new(), "setter failed: no addresses");
    assert!(
        provider_id(&node).is_some(),
        "the rest of the Node is there"
    );
    let error = wait_for("the address error recorded", &[], || async {
        kubelets.state(&name)?.log.last_error().map(str::to_owned)
    })
    .await;
    assert!(error.contains("NodeIpNotInCloud"), "{error}");
}

#[tokio::test]
async fn an_external_node_is_born_with_its_provided_node_ip() {
    let (fake, _api, client) = cluster("small.yaml").await;
    let nodes: Api<Node> = Api::all(client.clone());
    let mut events = nodes
        .watch(&WatchParams::default(), "0")
        .await
        .expect("watch")
        .boxed();
    let mut kubelets = kubelets(&fake, &client);
    kubelets
        .start_all(
            &fake.imds[..1],
            Mode::External,
            version("1.28"),
            NodeIp::FromImds,
        )
        .expect("start");
    let added = loop {
        match events.try_next().await.expect("watch event") {
            Some(WatchEvent::Added(node)) => break node,
            Some(_) => continue,
            None => panic!("watch ended before the Node was added"),
        }
    };
    // The cloud-node controller reads the annotation when it first sees the tainted Node.
    let vm = described(&fake, &fake.imds[0].0).await;
    let annotations = added.metadata.annotations.clone().unwrap_or_default();
    assert_eq!(
        annotations.get(PROVIDED_NODE_IP).map(String::as_str),
        vm["privateIps"][0].as_str()
    );
    assert_eq!(taint_keys(&added), vec![UNINITIALIZED_TAINT.to_owned()]);
}
