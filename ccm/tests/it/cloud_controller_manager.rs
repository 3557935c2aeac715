//! `cloud-controller-manager` as a process against the fake Azure and the embedded API server:
//! refuses bad flags naming them, serves the secure port over HTTPS with a self-signed
//! certificate, runs its controllers only while holding the Lease and hands over on SIGTERM.

use std::path::Path;
use std::process::Output;

use k8s_openapi::ByteString;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{Node, Secret};
use kube::Api;
use kube::api::{ObjectMeta, PostParams};

use crate::processes::{
    ApiServer, FakeAzure, LoggedProcess, UNINITIALIZED, cloud_controller_manager, example,
    small_azure_json, tainted_node,
};

fn run(args: &[&str]) -> Output {
    cloud_controller_manager()
        .args(args)
        .env_remove("SSL_CERT_FILE")
        .output()
        .expect("run cloud-controller-manager")
}

#[test]
fn help_documents_the_upstream_flags() {
    let output = run(&["--help"]);
    assert!(output.status.success());
    let help = String::from_utf8_lossy(&output.stdout);
    for flag in [
        "--cloud-provider",
        "--cloud-config",
        "--controllers",
        "--cluster-name",
        "--cluster-cidr",
        "--allocate-node-cidrs",
        "--cidr-allocator-type",
        "--node-cidr-mask-size-ipv6",
        "--service-cluster-ip-range",
        "--configure-cloud-routes",
        "--route-reconciliation-period",
        "--node-monitor-period",
        "--node-status-update-frequency",
        "--concurrent-service-syncs",
        "--leader-elect-resource-namespace",
        "--leader-migration-config",
        "--enable-leader-migration",
        "--bind-address",
        "--secure-port",
        "--authorization-always-allow-paths",
        "--authentication-kubeconfig",
        "--authentication-token-webhook-cache-ttl",
        "--authentication-skip-lookup",
        "--authentication-tolerate-lookup-failure",
        "--client-ca-file",
        "--authorization-kubeconfig",
        "--authorization-webhook-cache-authorized-ttl",
        "--authorization-webhook-cache-unauthorized-ttl",
        "--kube-api-burst",
        "--min-resync-period",
        "--controller-start-interval",
        "--use-service-account-credentials",
        "--allow-untagged-cloud",
        "--external-cloud-volume-plugin",
        "--contention-profiling",
        "--enable-dynamic-reloading",
        "--cloud-config-secret-namespace",
        "--cloud-config-key",
        "--node-filter-requirements",
        "--feature-gates",
        "--log-flush-frequency",
    ] {
        assert!(help.contains(flag), "{flag} missing from:\n{help}");
    }
}

#[test]
fn bad_flags_exit_non_zero_naming_the_flag() {
    let config = "--cloud-config=/nonexistent/azure.json";
    let cases: &[(&[&str], &[&str])] = &[
        (&["--no-such-flag"], &["--no-such-flag"]),
        (&[], &["--cloud-config"]),
        (
            &[config, "--cloud-provider=aws"],
            &["--cloud-provider", "aws"],
        ),
        (
            &[config, "--concurrent-service-syncs=2"],
            &["--concurrent-service-syncs", "2"],
        ),
        (
            &[config, "--controllers=*,-nodeipam"],
            &["--controllers", "-nodeipam", "node-route-controller"],
        ),
        (
            &[config, "--cluster-cidr=10.0.0.0/16,10.1.0.0/16,fd00::/48"],
            &["--cluster-cidr"],
        ),
        (&[config], &["--cluster-cidr", "--configure-cloud-routes"]),
        (
            &[
                config,
                "--configure-cloud-routes=false",
                "--allocate-node-cidrs",
            ],
            &["--cluster-cidr"],
        ),
        (
            &[
                config,
                "--configure-cloud-routes=false",
                "--leader-elect-resource-lock=endpoints",
            ],
            &["--leader-elect-resource-lock", "endpoints"],
        ),
        (
            &[
                config,
                "--configure-cloud-routes=false",
                "--leader-elect-renew-deadline=20s",
            ],
            &["--leader-elect-renew-deadline"],
        ),
        (
            &[
                config,
                "--configure-cloud-routes=false",
                "--leader-elect-retry-period=5x",
            ],
            &["--leader-elect-retry-period", "5x"],
        ),
        (
            &[
                config,
                "--configure-cloud-routes=false",
                "--enable-leader-migration",
                "--leader-elect=false",
            ],
            &["leader"],
        ),
        (
            &[
                config,
                "--configure-cloud-routes=false",
                "--tls-cert-file=/nonexistent/tls.crt",
            ],
            &["--tls-private-key-file"],
        ),
        (
            &[
                config,
                "--configure-cloud-routes=false",
                "--tls-cert-file=/nonexistent/tls.crt",
                "--tls-private-key-file=/nonexistent/tls.key",
            ],
            &["--tls-cert-file", "/nonexistent/tls.crt"],
        ),
        (&[config, "--secure-port=https"], &["--secure-port"]),
        (
            &[config, "--concurrent-node-syncs=0"],
            &["--concurrent-node-syncs", "0"],
        ),
        (
            &[config, "--concurrent-node-syncs=-1"],
            &["--concurrent-node-syncs", "-1"],
        ),
        (
            &[config, "--concurrent-node-syncs=x"],
            &["--concurrent-node-syncs", "x"],
        ),
        (
            &[
                config,
                "--configure-cloud-routes=false",
                "--node-monitor-period=0",
            ],
            &["--node-monitor-period=0"],
        ),
        (
            &[
                config,
                "--configure-cloud-routes=false",
                "--kube-api-burst=0",
            ],
            &["--kube-api-burst=0"],
        ),
        (
            &[config, "--cidr-allocator-type=Magic"],
            &["--cidr-allocator-type"],
        ),
        (
            &[
                config,
                "--configure-cloud-routes=false",
                "--kubeconfig=/nonexistent/kubeconfig",
            ],
            &["--kubeconfig", "/nonexistent/kubeconfig"],
        ),
    ];
    for (args, named) in cases {
        let output = run(args);
        assert!(!output.status.success(), "{args:?} succeeded");
        let message = String::from_utf8_lossy(&output.stderr);
        for word in *named {
            assert!(message.contains(word), "{args:?}: {word} not in: {message}");
        }
    }
}

#[test]
fn help_shows_the_concurrent_node_syncs_default() {
    let output = run(&["--help"]);
    assert!(output.status.success());
    let help = String::from_utf8_lossy(&output.stdout);
    let at = help
        .find("--concurrent-node-syncs")
        .unwrap_or_else(|| panic!("--concurrent-node-syncs missing from:\n{help}"));
    let entry: String = help[at..]
        .lines()
        .take_while(|l| !l.trim_start().starts_with("--concurrent-service-syncs"))
        .collect();
    assert!(
        entry.contains(&format!(
            "[default: {}]",
            ccm_controllers::node::DEFAULT_CONCURRENT_NODE_SYNCS
        )),
        "{entry}"
    );
}

fn is_initialised(node: &Node) -> bool {
    let spec = node.spec.as_ref();
    spec.and_then(|s| s.taints.as_ref())
        .is_none_or(|t| t.iter().all(|t| t.key != UNINITIALIZED))
        && spec.and_then(|s| s.provider_id.as_ref()).is_some()
}

fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("addr").port()
}

/// One running manager and its secure port.
pub(crate) struct Manager {
    process: LoggedProcess,
    port: u16,
}

impl Manager {
    pub(crate) fn start(
        fake: &FakeAzure,
        api: &ApiServer,
        config: &Path,
        extra: &[&str],
    ) -> Manager {
        let config = format!("--cloud-config={}", config.display());
        Self::start_with(fake, api, &[&config], extra)
    }

    fn start_with(fake: &FakeAzure, api: &ApiServer, source: &[&str], extra: &[&str]) -> Manager {
        let mut args = source.to_vec();
        args.push("--configure-cloud-routes=false");
        args.extend(extra);
        Self::start_args(fake, api, &args)
    }

    /// Starts the manager with the kubeconfig, a free secure port on 127.0.0.1, `SSL_CERT_FILE`
    /// and exactly `args` otherwise.
    pub(crate) fn start_args(fake: &FakeAzure, api: &ApiServer, args: &[&str]) -> Manager {
        let kubeconfig = format!("--kubeconfig={}", api.kubeconfig().display());
        let mut all = vec![kubeconfig.as_str()];
        all.extend(args);
        Self::start_raw(fake, &all)
    }

    /// Starts the manager with a free secure port on 127.0.0.1, `SSL_CERT_FILE` and exactly
    /// `args` otherwise (which name the kubeconfig).
    pub(crate) fn start_raw(fake: &FakeAzure, args: &[&str]) -> Manager {
        let port = free_port();
        let mut command = cloud_controller_manager();
        command
            .args(["--bind-address=127.0.0.1", &format!("--secure-port={port}")])
            .args(args)
            .env("SSL_CERT_FILE", &fake.ca_file);
        Self::spawn(command, port)
    }

    /// Spawns `command` (a `cloud-controller-manager` with its arguments and environment) with
    /// stderr to a log file; `port` is its secure port.
    pub(crate) fn spawn(command: std::process::Command, port: u16) -> Manager {
        Manager {
            process: LoggedProcess::spawn(command),
            port,
        }
    }

    pub(crate) fn logs(&self) -> String {
        self.process.logs()
    }

    /// The secure port.
    pub(crate) fn port(&self) -> u16 {
        self.port
    }

    async fn get(&self, path: &str) -> Option<(u16, String)> {
        let _ = rustls::crypto::ring::default_provider().install_default();
        // The certificate is self-signed: what is checked is that the port speaks HTTPS.
        let client = reqwest::Client::builder()
            .danger_accept_invalid_certs(true)
            .build()
            .expect("client");
        let response = client
            .get(format!("https://127.0.0.1:{}{path}", self.port))
            .send()
            .await
            .ok()?;
        let status = response.status().as_u16();
        Some((status, response.text().await.ok()?))
    }

    /// SIGKILL: the process dies at once without releasing its Lease, like a crash.
    pub(crate) fn kill(&self) -> std::process::ExitStatus {
        self.process.kill()
    }

    pub(crate) fn terminate(&self) -> std::process::ExitStatus {
        self.process.terminate()
    }
}

/// Polls `check` every 200 ms for up to 60 s while `managers` keep running.
pub(crate) async fn wait_for<T, F, Fut>(what: &str, managers: &[&Manager], check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let processes: Vec<&LoggedProcess> = managers.iter().map(|m| &m.process).collect();
    fake_process::wait_for(what, &processes, check).await
}

async fn holder(leases: &Api<Lease>) -> Option<String> {
    holder_of(leases, "cloud-controller-manager").await
}

pub(crate) async fn holder_of(leases: &Api<Lease>, name: &str) -> Option<String> {
    fake_process::lease_holder(leases, name).await
}

/// The agent nodes of small.yaml.
fn agent_nodes(fake: &FakeAzure) -> Vec<String> {
    fake.imds
        .iter()
        .map(|(name, _)| name.clone())
        .filter(|name| name.contains("agentpool"))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serves_health_and_metrics_and_only_the_leader_runs_controllers() {
    let fake = FakeAzure::start(&example("small.yaml"), &[]);
    let api = ApiServer::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let config = small_azure_json(&fake, dir.path(), None);
    let client = api.client().await;
    let nodes: Api<Node> = Api::all(client.clone());
    let leases: Api<Lease> = Api::namespaced(client, "kube-system");
    let agents = agent_nodes(&fake);
    assert!(agents.len() >= 2, "small.yaml needs two agents: {agents:?}");

    // Every path read below is served anonymously (delegated authz: secure_port_auth.rs).
    let open =
        ["--authorization-always-allow-paths=/healthz,/healthz/*,/readyz,/livez,/metrics,/configz"];
    let first = Manager::start(&fake, &api, &config, &open);
    let first_identity = wait_for("the first manager leads", &[&first], || holder(&leases)).await;

    // Health over HTTPS, anonymously, with the self-signed certificate.
    let (status, body) = wait_for("/healthz answers", &[&first], || first.get("/healthz")).await;
    assert_eq!((status, body.as_str()), (200, "ok"));
    for path in ["/readyz", "/livez", "/healthz/leaderElection"] {
        let answer = first.get(path).await;
        assert_eq!(answer.map(|(s, _)| s), Some(200), "{path}");
    }
    let (status, configz) = first.get("/configz").await.expect("/configz");
    assert_eq!(status, 200);
    let configz: serde_json::Value = serde_json::from_str(&configz).expect("configz JSON");
    let component = &configz["cloudcontrollermanager.config.k8s.io"];
    assert_eq!(
        component["KubeCloudShared"]["ClusterName"], "kubernetes",
        "{configz}"
    );
    assert!(
        !configz
            .to_string()
            .contains("fake-secret-not-for-production")
    );

    // The second manager stands by while the first holds the Lease.
    let second = Manager::start(&fake, &api, &config, &open);
    wait_for("the second manager serves", &[&first, &second], || {
        second.get("/healthz")
    })
    .await;

    // The leader initialises a tainted Node (ARM calls: the metrics show them).
    nodes
        .create(&PostParams::default(), &tainted_node(&agents[0]))
        .await
        .expect("create node");
    wait_for(
        "the leader initialises the Node",
        &[&first, &second],
        || async { nodes.get(&agents[0]).await.ok().filter(is_initialised) },
    )
    .await;
    let (status, metrics) = first.get("/metrics").await.expect("/metrics");
    assert_eq!(status, 200);
    assert!(
        metrics.contains("cloudprovider_azure_api_request_duration_seconds_count{")
            && metrics.contains("running_managed_controllers")
            && metrics
                .contains("leader_election_master_status{name=\"cloud-controller-manager\"} 1")
            && metrics.contains("process_cpu_seconds_total"),
        "{metrics}"
    );
    assert_eq!(
        holder(&leases).await.as_deref(),
        Some(first_identity.as_str())
    );
    assert!(
        first.logs().contains("starting controller"),
        "{}",
        first.logs()
    );
    assert!(
        !second.logs().contains("starting controller"),
        "{}",
        second.logs()
    );
    // A health check per running controller: on the leader only.
    let status = |answer: Option<(u16, String)>| answer.map(|(s, _)| s);
    assert_eq!(status(first.get("/healthz/cloud-node").await), Some(200));
    assert_eq!(
        status(first.get("/healthz/cloud-node-lifecycle-controller").await),
        Some(200)
    );
    assert_eq!(status(second.get("/healthz/cloud-node").await), Some(404));
    assert_eq!(status(first.get("/healthz/no-such-check").await), Some(404));

    // SIGTERM: the first exits 0 and releases the Lease; the second takes over and initialises
    // the next Node.
    let exit = first.terminate();
    assert!(exit.success(), "{exit:?}\n{}", first.logs());
    // Released, not left to expire: the record no longer names the first manager.
    assert_ne!(
        holder(&leases).await.as_deref(),
        Some(first_identity.as_str()),
        "the Lease was not released"
    );
    let second_identity = wait_for("the second manager leads", &[&second], || async {
        holder(&leases).await.filter(|h| *h != first_identity)
    })
    .await;
    assert_ne!(second_identity, first_identity);
    nodes
        .create(&PostParams::default(), &tainted_node(&agents[1]))
        .await
        .expect("create node");
    wait_for(
        "the new leader initialises the Node",
        &[&second],
        || async { nodes.get(&agents[1]).await.ok().filter(is_initialised) },
    )
    .await;
    assert!(
        second.logs().contains("starting controller"),
        "{}",
        second.logs()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_exits_before_taking_the_lease() {
    let api = ApiServer::start();
    let leases: Api<Lease> = Api::namespaced(api.client().await, "kube-system");
    let kubeconfig = format!("--kubeconfig={}", api.kubeconfig().display());
    let dir = tempfile::tempdir().expect("tempdir");
    let garbage = dir.path().join("azure.json");
    std::fs::write(&garbage, "{\"vmType\": \"nonsense\"").expect("write");
    let garbage = format!("--cloud-config={}", garbage.display());
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "--cloud-config=/nonexistent/azure.json",
                "--configure-cloud-routes=false",
            ],
            "/nonexistent/azure.json",
        ),
        (&[&garbage, "--configure-cloud-routes=false"], "azure.json"),
        (
            &[
                &garbage,
                "--configure-cloud-routes=false",
                "--concurrent-service-syncs=5",
            ],
            "--concurrent-service-syncs",
        ),
    ];
    for (args, named) in cases {
        let output = cloud_controller_manager()
            .arg(&kubeconfig)
            .args(*args)
            .args(["--secure-port=0"])
            .output()
            .expect("run cloud-controller-manager");
        let message = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{args:?}: {message}");
        assert!(message.contains(named), "{args:?}: {message}");
        assert_eq!(holder(&leases).await, None, "{args:?}: a Lease was taken");
        assert!(
            leases
                .get_opt("cloud-controller-manager")
                .await
                .expect("get lease")
                .is_none(),
            "{args:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leader_migration_takes_the_migration_lease_after_the_main_one() {
    let fake = FakeAzure::start(&example("small.yaml"), &[]);
    let api = ApiServer::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let config = small_azure_json(&fake, dir.path(), None);
    let leases: Api<Lease> = Api::namespaced(api.client().await, "kube-system");
    let manager = Manager::start(&fake, &api, &config, &["--enable-leader-migration"]);
    let main = wait_for("the main Lease is held", &[&manager], || holder(&leases)).await;
    let migration = wait_for("the migration Lease is held", &[&manager], || {
        holder_of(&leases, "cloud-provider-extraction-migration")
    })
    .await;
    assert_eq!(main, migration, "one identity holds both");
    // The built-in config migrates cloud-node-lifecycle; it starts only under both Leases.
    wait_for("cloud-node-lifecycle starts", &[&manager], || async {
        let logs = manager.logs();
        (logs.contains("cloud-node-lifecycle-controller: migrated")
            && logs.contains("starting controller controller=\"cloud-node-lifecycle-controller\""))
        .then_some(())
    })
    .await;
    let exit = manager.terminate();
    assert!(exit.success(), "{exit:?}\n{}", manager.logs());
    for lease in [
        "cloud-controller-manager",
        "cloud-provider-extraction-migration",
    ] {
        assert_eq!(
            holder_of(&leases, lease).await,
            None,
            "{lease} not released"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_the_cloud_config_from_a_secret_without_a_file() {
    let fake = FakeAzure::start(&example("small.yaml"), &[]);
    let api = ApiServer::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let text =
        std::fs::read_to_string(small_azure_json(&fake, dir.path(), None)).expect("azure.json");
    let client = api.client().await;
    let secrets: Api<Secret> = Api::namespaced(client.clone(), "kube-system");
    let secret = Secret {
        metadata: ObjectMeta {
            name: Some("azure-cloud-provider".to_owned()),
            ..Default::default()
        },
        // `data`, not `stringData`: the embedded API server does not fold stringData into data.
        data: Some([("cloud-config".to_owned(), ByteString(text.into_bytes()))].into()),
        ..Default::default()
    };
    secrets
        .create(&PostParams::default(), &secret)
        .await
        .expect("create secret");
    let nodes: Api<Node> = Api::all(client);
    let agent = agent_nodes(&fake).remove(0);
    nodes
        .create(&PostParams::default(), &tainted_node(&agent))
        .await
        .expect("create node");
    let manager = Manager::start_with(
        &fake,
        &api,
        &[
            "--enable-dynamic-reloading",
            "--cloud-config-secret-name=azure-cloud-provider",
        ],
        &[],
    );
    wait_for("the Node is initialised", &[&manager], || async {
        nodes.get(&agent).await.ok().filter(is_initialised)
    })
    .await;
    let logs = manager.logs();
    assert!(
        logs.contains("kube-system/azure-cloud-provider")
            && logs.contains("--enable-dynamic-reloading"),
        "{logs}"
    );
    assert!(!logs.contains("fake-secret-not-for-production"), "{logs}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_leader_election_runs_the_selected_controllers_at_once() {
    let fake = FakeAzure::start(&example("small.yaml"), &[]);
    let api = ApiServer::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let config = small_azure_json(&fake, dir.path(), None);
    let leases: Api<Lease> = Api::namespaced(api.client().await, "kube-system");
    let manager = Manager::start(
        &fake,
        &api,
        &config,
        &["--leader-elect=false", "--controllers=*,-cloud-node"],
    );
    let started = |name: &str| format!("starting controller controller=\"{name}\"");
    wait_for("cloud-node-lifecycle starts", &[&manager], || async {
        manager
            .logs()
            .contains(&started("cloud-node-lifecycle-controller"))
            .then_some(())
    })
    .await;
    let logs = manager.logs();
    assert!(!logs.contains(&started("cloud-node-controller")), "{logs}");
    wait_for("service-lb-controller starts", &[&manager], || async {
        manager
            .logs()
            .contains(&started("service-lb-controller"))
            .then_some(())
    })
    .await;
    assert!(
        leases
            .list(&Default::default())
            .await
            .expect("list")
            .items
            .is_empty()
    );
    let exit = manager.terminate();
    assert!(exit.success(), "{exit:?}\n{}", manager.logs());
}
