//! `cloud-node-manager` as a process: initialises its own Node from the fake IMDS with zero ARM
//! requests, exits 0 on SIGTERM, documents its flags and refuses bad input naming it.

use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::Node;
use kube::Api;
use kube::api::PostParams;

use crate::processes::{
    ApiServer, FakeAzure, UNINITIALIZED, cloud_node_manager, example, tainted_node,
};

fn is_initialised(node: &Node) -> bool {
    let spec = node.spec.as_ref();
    let untainted = spec
        .and_then(|s| s.taints.as_ref())
        .is_none_or(|t| t.iter().all(|t| t.key != UNINITIALIZED));
    let addressed = node
        .status
        .as_ref()
        .and_then(|s| s.addresses.as_ref())
        .is_some_and(|a| !a.is_empty());
    untainted && addressed && spec.and_then(|s| s.provider_id.as_ref()).is_some()
}

fn label<'a>(node: &'a Node, key: &str) -> Option<&'a str> {
    node.metadata
        .labels
        .as_ref()
        .and_then(|l| l.get(key))
        .map(String::as_str)
}

/// Spawns `cloud-node-manager` for `node_name` with `extra` flags and waits until the Node is
/// initialised; returns the process, its stderr file and the Node.
pub(crate) async fn run_until_initialised(
    fake: &FakeAzure,
    api: &ApiServer,
    node_name: &str,
    imds_url: &str,
    extra: &[&str],
) -> (Child, tempfile::NamedTempFile, Node) {
    let nodes: Api<Node> = Api::all(api.client().await);
    let log = tempfile::NamedTempFile::new().expect("log file");
    let mut cnm = cloud_node_manager()
        .args(["--node-name", node_name, "--imds-endpoint", imds_url])
        .arg("--kubeconfig")
        .arg(api.kubeconfig())
        .args(extra)
        .env("SSL_CERT_FILE", &fake.ca_file)
        .env_remove("AZURE_IMDS_ENDPOINT")
        .stdout(Stdio::null())
        .stderr(log.reopen().expect("log handle"))
        .spawn()
        .expect("spawn cloud-node-manager");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let node = nodes.get(node_name).await.expect("get node");
        if is_initialised(&node) {
            return (cnm, log, node);
        }
        let logs = std::fs::read_to_string(log.path()).unwrap_or_default();
        assert!(
            Instant::now() < deadline,
            "node not initialised: {node:?}\nlogs:\n{logs}"
        );
        assert!(cnm.try_wait().expect("poll").is_none(), "exited:\n{logs}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The first agent node of small.yaml and its IMDS URL.
pub(crate) fn agent_node(fake: &FakeAzure) -> (String, String) {
    fake.imds
        .iter()
        .find(|(name, _)| name.contains("agentpool"))
        .cloned()
        .expect("an agent node in small.yaml")
}

fn network_unavailable(node: &Node) -> Option<(String, Option<String>)> {
    node.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .and_then(|c| c.iter().find(|c| c.type_ == "NetworkUnavailable"))
        .map(|c| (c.status.clone(), c.reason.clone()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_routes_marks_the_network_unavailable_at_initialisation() {
    let fake = FakeAzure::start(&example("small.yaml"), &[]);
    let api = ApiServer::start();
    let (node_name, imds_url) = agent_node(&fake);
    let nodes: Api<Node> = Api::all(api.client().await);
    nodes
        .create(&PostParams::default(), &tainted_node(&node_name))
        .await
        .expect("create node");
    let (mut cnm, _log, node) =
        run_until_initialised(&fake, &api, &node_name, &imds_url, &["--wait-routes"]).await;
    let _ = cnm.kill();
    let _ = cnm.wait();
    assert_eq!(
        network_unavailable(&node),
        Some(("True".to_owned(), Some("NodeInitialization".to_owned()))),
        "{:?}",
        node.status
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn initialises_its_node_from_imds_with_zero_arm_requests_and_exits_on_sigterm() {
    // small.yaml with the agents tagged with an interconnect group.
    let dir = tempfile::tempdir().expect("tempdir");
    let small = std::fs::read_to_string(example("small.yaml")).expect("small.yaml");
    let tagged = small.replacen(
        "    size: Standard_D4s_v3\n",
        "    size: Standard_D4s_v3\n    tags:\n      Platform_Interconnect_Group: ig-7\n",
        1,
    );
    assert_ne!(small, tagged, "small.yaml changed shape");
    let topology = dir.path().join("small-tagged.yaml");
    std::fs::write(&topology, tagged).expect("write topology");
    let fake = FakeAzure::start(&topology, &[]);
    let api = ApiServer::start();
    let (node_name, imds_url) = agent_node(&fake);
    let nodes: Api<Node> = Api::all(api.client().await);
    nodes
        .create(&PostParams::default(), &tainted_node(&node_name))
        .await
        .expect("create node");
    // Another tainted Node: this process must leave it alone.
    nodes
        .create(&PostParams::default(), &tainted_node("other-node"))
        .await
        .expect("create other node");
    let (mut cnm, log, node) = run_until_initialised(&fake, &api, &node_name, &imds_url, &[]).await;
    assert_eq!(network_unavailable(&node), None, "without --wait-routes");

    let provider_id = node.spec.as_ref().and_then(|s| s.provider_id.clone());
    let provider_id = provider_id.expect("providerID");
    assert!(
        provider_id.starts_with("azure:///subscriptions/")
            && provider_id.contains("/resourceGroups/k8s-small-rg/")
            && provider_id.ends_with(&format!("/virtualMachines/{node_name}")),
        "{provider_id}"
    );
    assert_eq!(
        label(&node, "node.kubernetes.io/instance-type"),
        Some("Standard_D4s_v3")
    );
    assert_eq!(
        label(&node, "topology.kubernetes.io/region"),
        Some("eastus")
    );
    assert!(
        label(&node, "topology.kubernetes.io/zone").is_some(),
        "{:?}",
        node.metadata.labels
    );
    assert_eq!(
        label(&node, "failure-domain.beta.kubernetes.io/zone"),
        None,
        "beta labels only with --enable-deprecated-beta-topology-labels, like upstream's CNM"
    );
    let addresses = node.status.and_then(|s| s.addresses).unwrap_or_default();
    assert!(
        addresses
            .iter()
            .any(|a| a.type_ == "InternalIP" && a.address.starts_with("10.224.")),
        "{addresses:?}"
    );
    assert!(
        addresses
            .iter()
            .any(|a| a.type_ == "Hostname" && a.address == node_name),
        "{addresses:?}"
    );

    let other = nodes.get("other-node").await.expect("get other node");
    assert!(!is_initialised(&other), "{other:?}");

    let journal = entries(&fake).await;
    let surface = |e: &serde_json::Value| e["surface"].as_str().unwrap_or_default().to_owned();
    let imds = journal.iter().filter(|e| surface(e) == "imds").count();
    assert!(imds > 0, "no IMDS request journaled: {journal:?}");
    let cloud: Vec<_> = journal
        .iter()
        .filter(|e| matches!(surface(e).as_str(), "arm" | "entra" | "metadata"))
        .collect();
    assert!(cloud.is_empty(), "ARM/Entra requests: {cloud:?}");

    let status = Command::new("kill")
        .args(["-TERM", &cnm.id().to_string()])
        .status()
        .expect("kill -TERM");
    assert!(status.success());
    let exit = cnm.wait().expect("wait");
    let logs = std::fs::read_to_string(log.path()).unwrap_or_default();
    assert!(exit.success(), "{exit:?}\n{logs}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arm_mode_resolves_the_node_by_its_name_from_cloud_config() {
    let fake = FakeAzure::start(&example("small.yaml"), &[]);
    let api = ApiServer::start();
    let (node_name, _) = agent_node(&fake);
    let dir = tempfile::tempdir().expect("tempdir");
    // The client-secret app of small.yaml, as upstream runs against the fake.
    let azure_json = dir.path().join("azure.json");
    let text = format!(
        r#"{{"cloud": "AzureStackCloud", "disableAzureStackCloud": true,
             "resourceManagerEndpoint": "{}/", "tenantId": "{}", "subscriptionId": "{}",
             "aadClientId": "6e1b3c52-6a1f-4d0e-9a3b-3c2f7d9e0a11",
             "aadClientSecret": "fake-secret-not-for-production",
             "resourceGroup": "k8s-small-rg", "location": "eastus", "vmType": "standard"}}"#,
        fake.base, fake.tenant, fake.subscription
    );
    std::fs::write(&azure_json, text).expect("write azure.json");
    let nodes: Api<Node> = Api::all(api.client().await);
    nodes
        .create(&PostParams::default(), &tainted_node(&node_name))
        .await
        .expect("create node");
    let config_flag = format!("--cloud-config={}", azure_json.display());
    // An unreachable IMDS URL: ARM mode must not ask it.
    let (mut cnm, log, node) = run_until_initialised(
        &fake,
        &api,
        &node_name,
        "https://127.0.0.1:1/imds/none",
        &["--use-instance-metadata=false", &config_flag],
    )
    .await;
    let _ = cnm.kill();
    let _ = cnm.wait();
    let logs = std::fs::read_to_string(log.path()).unwrap_or_default();
    let provider_id = node.spec.as_ref().and_then(|s| s.provider_id.clone());
    assert!(
        provider_id
            .as_deref()
            .is_some_and(|id| id.ends_with(&format!("/virtualMachines/{node_name}"))),
        "{provider_id:?}\n{logs}"
    );
    assert_eq!(
        label(&node, "node.kubernetes.io/instance-type"),
        Some("Standard_D4s_v3")
    );
    let journal = entries(&fake).await;
    let surface = |e: &serde_json::Value| e["surface"].as_str().unwrap_or_default().to_owned();
    assert!(journal.iter().any(|e| surface(e) == "arm"), "{journal:?}");
    assert!(!journal.iter().any(|e| surface(e) == "imds"), "{journal:?}");
}

fn run(args: &[&str]) -> Output {
    cloud_node_manager()
        .args(args)
        .env_remove("AZURE_IMDS_ENDPOINT")
        .env_remove("SSL_CERT_FILE")
        .output()
        .expect("run cloud-node-manager")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn help_documents_every_flag() {
    let output = run(&["--help"]);
    assert!(output.status.success());
    let help = String::from_utf8_lossy(&output.stdout);
    for flag in [
        "--node-name",
        "--cloud-config",
        "--use-instance-metadata",
        "--wait-routes",
        "--node-status-update-frequency",
        "--enable-deprecated-beta-topology-labels",
        "--kubeconfig",
        "--master",
        "--kube-api-qps",
        "--kube-api-burst",
        "--kube-api-content-type",
        "--min-resync-period",
        "--secure-port",
        "--authentication-kubeconfig",
        "--client-ca-file",
        "--authorization-kubeconfig",
        "--authorization-always-allow-paths",
        "--imds-endpoint",
        "--log-format",
        "--v",
    ] {
        assert!(help.contains(flag), "{flag} missing from:\n{help}");
    }
}

#[test]
fn unknown_flags_and_bad_values_exit_non_zero_naming_the_flag() {
    let cases: &[(&[&str], &str)] = &[
        (&["--no-such-flag"], "--no-such-flag"),
        (
            &["--node-status-update-frequency=5x"],
            "--node-status-update-frequency",
        ),
        (&["--min-resync-period=-1s"], "--min-resync-period"),
        (
            &["--use-instance-metadata=maybe"],
            "--use-instance-metadata",
        ),
        (&["--log-format", "xml"], "--log-format"),
        (
            &["--node-name", "n", "--imds-endpoint", "ftp://imds"],
            "--imds-endpoint",
        ),
        (
            &[
                "--node-name",
                "n",
                "--kubeconfig",
                "/nonexistent/kubeconfig",
            ],
            "/nonexistent/kubeconfig",
        ),
        (
            &["--node-name", "n", "--secure-port", "https"],
            "--secure-port",
        ),
        (
            &[
                "--node-name",
                "n",
                "--secure-port",
                "10263",
                "--tls-cert-file",
                "/nonexistent/tls.crt",
                "--tls-private-key-file",
                "/nonexistent/tls.key",
            ],
            "/nonexistent/tls.crt",
        ),
        (
            &["--node-name", "n", "--use-instance-metadata=false"],
            "--cloud-config",
        ),
        (
            &[
                "--node-name",
                "n",
                "--use-instance-metadata=false",
                "--cloud-config",
                "/nonexistent/azure.json",
            ],
            "/nonexistent/azure.json",
        ),
    ];
    for (args, named) in cases {
        let output = run(args);
        assert!(!output.status.success(), "{args:?} succeeded");
        let message = stderr(&output);
        assert!(message.contains(named), "{args:?}: {message}");
    }
}

#[test]
fn invalid_files_exit_non_zero_naming_the_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let garbage = dir.path().join("garbage");
    std::fs::write(&garbage, "{ not: [ a kubeconfig").expect("write");
    let garbage = garbage.to_str().expect("utf-8 path");
    let output = run(&["--node-name", "n", "--kubeconfig", garbage]);
    assert!(!output.status.success());
    assert!(stderr(&output).contains(garbage), "{}", stderr(&output));

    let output = cloud_node_manager()
        .args([
            "--node-name",
            "n",
            "--imds-endpoint",
            "https://127.0.0.1:1/imds/n",
        ])
        .env("SSL_CERT_FILE", "/nonexistent/ca.pem")
        .output()
        .expect("run cloud-node-manager");
    assert!(!output.status.success());
    let message = stderr(&output);
    assert!(
        message.contains("SSL_CERT_FILE") && message.contains("/nonexistent/ca.pem"),
        "{message}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_writes_nothing_to_kubernetes() {
    let api = ApiServer::start();
    let nodes: Api<Node> = Api::all(api.client().await);
    nodes
        .create(&PostParams::default(), &tainted_node("node-0"))
        .await
        .expect("create node");
    let before = nodes.get("node-0").await.expect("get node");
    let kubeconfig = api.kubeconfig();
    let kubeconfig = kubeconfig.to_str().expect("utf-8 path");
    let output = run(&[
        "--node-name",
        "node-0",
        "--kubeconfig",
        kubeconfig,
        "--imds-endpoint",
        "not a url",
    ]);
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("--imds-endpoint"),
        "{}",
        stderr(&output)
    );
    let after = nodes.get("node-0").await.expect("get node");
    assert_eq!(
        before.metadata.resource_version,
        after.metadata.resource_version
    );
}

/// The fake's journal entries.
async fn entries(fake: &FakeAzure) -> Vec<serde_json::Value> {
    fake.journal().await["entries"]
        .as_array()
        .expect("journal entries")
        .clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_secure_port_serves_healthz_with_the_node_check_over_https() {
    let fake = FakeAzure::start(&example("small.yaml"), &[]);
    let api = ApiServer::start();
    let (node_name, imds_url) = agent_node(&fake);
    let nodes: Api<Node> = Api::all(api.client().await);
    nodes
        .create(&PostParams::default(), &tainted_node(&node_name))
        .await
        .expect("create node");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    let port_arg = port.to_string();
    let (mut cnm, log, _) = run_until_initialised(
        &fake,
        &api,
        &node_name,
        &imds_url,
        // Anonymous reads of the node check and /metrics (delegated authz: secure_port_auth.rs).
        &[
            "--secure-port",
            &port_arg,
            "--bind-address",
            "127.0.0.1",
            "--authorization-always-allow-paths=/healthz,/healthz/*,/livez,/readyz,/metrics",
        ],
    )
    .await;
    let _ = rustls::crypto::ring::default_provider().install_default();
    // Self-signed: what is checked is that the port speaks HTTPS and answers.
    let client = reqwest::Client::builder()
        .danger_accept_invalid_certs(true)
        .build()
        .expect("client");
    for path in [
        "/healthz",
        &format!("/healthz/{node_name}"),
        "/livez",
        "/readyz",
    ] {
        let response = client
            .get(format!("https://127.0.0.1:{port}{path}"))
            .send()
            .await
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(response.status(), 200, "{path}");
        assert_eq!(response.text().await.expect("body"), "ok", "{path}");
    }
    let metrics = client
        .get(format!("https://127.0.0.1:{port}/metrics"))
        .send()
        .await
        .expect("metrics")
        .text()
        .await
        .expect("body");
    assert!(
        metrics.contains("cloud_provider_taint_removal_delay_seconds"),
        "{metrics}"
    );
    let _ = cnm.kill();
    let _ = cnm.wait();
    drop(log);
}
