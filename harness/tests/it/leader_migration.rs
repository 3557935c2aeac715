//! Leader Migration (KEP-2436) from the stand-in in-tree `harness kube-controller-manager` to the
//! real `cloud-controller-manager`, as the documented HA procedure runs it (migration.md §2.5):
//! the KCM alone holds the migration Lease and runs the migrated controllers; the CCM starts with
//! a config giving them to `cloud-controller-manager` and waits; the KCM stops (SIGTERM); the CCM
//! takes the migration Lease and carries on. "Never both" is checked from the migration Lease's
//! history, the fake ARM's journal (each manager's azure.json has its own `userAgent`) and the
//! CCM's log, which names the lease governing each controller when it starts.
//!
//! The CCM binary is found in the target dir (`fake_process::workspace_binary`, built when
//! missing); after editing `ccm/`, `cargo build -p azure-ccm` before `cargo test -p harness`.

use std::path::{Path, PathBuf};
use std::process::Command;

use fake_process::{
    ApiServer, ArmWrite, FakeAzure, LeaseHistory, LoggedProcess, ingress_ip, lease_holder,
    load_balancer_service, overlaps, small_azure_json, small_cluster, tcp_port, wait_for,
    workspace_binary, writes_by, writes_out_of_turn,
};
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::Service;
use k8s_openapi::jiff::Timestamp;
use kube::Api;
use kube::api::{Patch, PatchParams, PostParams};

const MIGRATION_LEASE: &str = "cloud-provider-extraction-migration";
const KCM: &str = "kube-controller-manager";
const CCM: &str = "cloud-controller-manager";
const MIGRATED: [&str; 2] = ["service-lb-controller", "cloud-node-lifecycle-controller"];
/// Short but valid timings (lease > renew deadline > 1.2 × retry).
const ELECTION: [&str; 3] = [
    "--leader-elect-lease-duration=6s",
    "--leader-elect-renew-deadline=4s",
    "--leader-elect-retry-period=1s",
];

/// The migration config of one side: the ≤1.27 names, as the docs' example, for `component`.
fn migration_config(dir: &Path, component: &str) -> PathBuf {
    let path = dir.join(format!("leader-migration-{component}.yaml"));
    let text = format!(
        "kind: LeaderMigrationConfiguration\n\
         apiVersion: controllermanager.config.k8s.io/v1\n\
         leaderName: {MIGRATION_LEASE}\n\
         controllerLeaders:\n\
         - name: route\n  component: {component}\n\
         - name: service\n  component: {component}\n\
         - name: cloud-node-lifecycle\n  component: {component}\n"
    );
    std::fs::write(&path, text).expect("write migration config");
    path
}

/// `binary [subcommand] <common flags> <args>` against the fakes, logging to a file.
fn manager(
    binary: &Path,
    subcommand: Option<&str>,
    fake: &FakeAzure,
    api: &ApiServer,
    args: &[String],
) -> LoggedProcess {
    let mut command = Command::new(binary);
    command
        .args(subcommand)
        .arg(format!("--kubeconfig={}", api.kubeconfig().display()))
        .args([
            "--cloud-provider=azure",
            "--configure-cloud-routes=false",
            "--secure-port=0",
            "--enable-leader-migration",
        ])
        .args(ELECTION)
        .args(args)
        .env("SSL_CERT_FILE", &fake.ca_file);
    LoggedProcess::spawn(command)
}

/// `(time, controller, lease)` of each "starting controller" line of a log.
fn controller_starts(log: &str) -> Vec<(Timestamp, String, String)> {
    log.lines()
        .filter(|l| l.contains("starting controller"))
        .map(|line| {
            let time: Timestamp = line
                .split_whitespace()
                .next()
                .and_then(|t| t.parse().ok())
                .unwrap_or_else(|| panic!("no timestamp: {line}"));
            let field = |key: &str| {
                line.split_whitespace()
                    .find_map(|w| w.strip_prefix(&format!("{key}=")))
                    .map(|v| v.trim_matches('"').to_owned())
                    .unwrap_or_else(|| panic!("no {key}=: {line}"))
            };
            (time, field("controller"), field("lease"))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn migrated_controllers_move_from_kcm_to_ccm_without_overlap() {
    let (fake, api) = small_cluster().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let client = api.client().await;
    let leases: Api<Lease> = Api::namespaced(client.clone(), "kube-system");
    let history = LeaseHistory::record(client.clone(), "kube-system", MIGRATION_LEASE);
    let ccm_binary = workspace_binary("azure-ccm", CCM);

    // 1. The in-tree KCM alone: it takes its main Lease, then the migration Lease, and its
    // service controller gives the Service its IP.
    let kcm_config = small_azure_json(&fake, dir.path(), Some(KCM));
    let kcm = manager(
        Path::new(env!("CARGO_BIN_EXE_harness")),
        Some(KCM),
        &fake,
        &api,
        &[
            format!("--cloud-config={}", kcm_config.display()),
            format!(
                "--leader-migration-config={}",
                migration_config(dir.path(), KCM).display()
            ),
        ],
    );
    let kcm_identity = wait_for("the KCM holds its main Lease", &[&kcm], || {
        lease_holder(&leases, KCM)
    })
    .await;
    // Without --in-tree-profile the stand-in reproduces 1.29's in-tree provider and says so.
    let started = kcm.logs();
    assert!(
        started.contains("in-tree profile") && started.contains("per-service-nsg-rules"),
        "{started}"
    );
    let held = wait_for("the KCM holds the migration Lease", &[&kcm], || {
        lease_holder(&leases, MIGRATION_LEASE)
    })
    .await;
    assert_eq!(held, kcm_identity);
    let services: Api<Service> = Api::namespaced(client.clone(), "default");
    services
        .create(
            &PostParams::default(),
            &load_balancer_service("web", vec![tcp_port("http", 80, 30080)]),
        )
        .await
        .expect("service");
    let ip = wait_for("the KCM gives the Service its IP", &[&kcm], || {
        ingress_ip(&services, "web")
    })
    .await;

    // 2. The CCM starts with the controllers given to cloud-controller-manager: it leads its
    // main Lease but must wait for the migration Lease, writing nothing to Azure.
    let ccm_config = small_azure_json(&fake, dir.path(), Some(CCM));
    let ccm = manager(
        &ccm_binary,
        None,
        &fake,
        &api,
        &[
            format!("--cloud-config={}", ccm_config.display()),
            format!(
                "--leader-migration-config={}",
                migration_config(dir.path(), CCM).display()
            ),
        ],
    );
    let ccm_identity = wait_for("the CCM holds its main Lease", &[&kcm, &ccm], || {
        lease_holder(&leases, CCM)
    })
    .await;
    // Its non-migrated cloud-node controller runs under the main Lease at once.
    wait_for("the CCM starts cloud-node", &[&kcm, &ccm], || async {
        controller_starts(&ccm.logs())
            .into_iter()
            .find(|(_, c, _)| c == "cloud-node-controller")
    })
    .await;
    // The KCM still serves the migrated controllers: a Service change is its to reconcile.
    let lb_writes_of = |writes: &[ArmWrite], agent: &str| {
        writes
            .iter()
            .filter(|w| w.user_agent.as_deref() == Some(agent) && w.path.contains("loadBalancers"))
            .count()
    };
    let before = lb_writes_of(&fake.arm_writes().await, KCM);
    let patch = serde_json::json!({"spec": {"ports": [tcp_port("http", 80, 30080), tcp_port("https", 443, 30443)]}});
    services
        .patch("web", &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .expect("patch service");
    wait_for("the KCM writes the new rule", &[&kcm, &ccm], || async {
        (lb_writes_of(&fake.arm_writes().await, KCM) > before).then_some(())
    })
    .await;
    assert_eq!(
        lease_holder(&leases, MIGRATION_LEASE).await,
        Some(kcm_identity.clone())
    );
    let ccm_writes = |writes: &[ArmWrite]| {
        writes
            .iter()
            .filter(|w| w.user_agent.as_deref() == Some(CCM))
            .count()
    };
    assert_eq!(
        ccm_writes(&fake.arm_writes().await),
        0,
        "the CCM wrote while waiting"
    );
    let started: Vec<String> = controller_starts(&ccm.logs())
        .into_iter()
        .map(|(_, c, _)| c)
        .collect();
    for migrated in MIGRATED {
        assert!(
            !started.iter().any(|c| c == migrated),
            "{migrated} started early: {started:?}"
        );
    }

    // 3. The KCM stops: it releases the migration Lease; the CCM takes it and carries on.
    let exit = kcm.terminate();
    assert!(exit.success(), "{exit:?}\n{}", kcm.logs());
    let taken = wait_for("the CCM holds the migration Lease", &[&ccm], || {
        lease_holder(&leases, MIGRATION_LEASE)
    })
    .await;
    assert_eq!(taken, ccm_identity);
    let patch = serde_json::json!({"spec": {"ports": [tcp_port("http", 80, 30080)]}});
    services
        .patch("web", &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .expect("patch service");
    wait_for("the CCM reconciles the Service", &[&ccm], || async {
        (lb_writes_of(&fake.arm_writes().await, CCM) > 0).then_some(())
    })
    .await;
    assert_eq!(
        ingress_ip(&services, "web").await.as_deref(),
        Some(ip.as_str())
    );

    // The migration Lease: the KCM, released, then the CCM; never both.
    let tenures = history.tenures();
    let holders: Vec<&str> = tenures.iter().map(|t| t.holder.as_str()).collect();
    assert_eq!(
        holders,
        [kcm_identity.as_str(), ccm_identity.as_str()],
        "{tenures:#?}"
    );
    assert!(tenures[0].released, "SIGTERM releases: {tenures:#?}");
    let problems = overlaps(&tenures);
    assert!(
        problems.is_empty(),
        "{problems:#?}\n{:#?}",
        history.records()
    );
    let ccm_acquired = tenures[1].acquired;

    // The journal: every KCM write precedes the CCM's first, which follows its acquisition.
    let writes = fake.arm_writes().await;
    assert!(
        writes_by(&writes, KCM) > 0 && writes_by(&writes, CCM) > 0,
        "{writes:#?}"
    );
    let turns = [(KCM, tenures[0].acquired), (CCM, ccm_acquired)];
    let problems = writes_out_of_turn(&writes, &turns);
    assert!(problems.is_empty(), "{problems:#?}\n{tenures:#?}");

    // The CCM's log: each migrated controller started under the migration Lease, after the CCM
    // acquired it; cloud-node under the main Lease.
    let starts = controller_starts(&ccm.logs());
    for migrated in MIGRATED {
        let (time, _, lease) = starts
            .iter()
            .find(|(_, c, _)| c == migrated)
            .unwrap_or_else(|| panic!("{migrated} never started: {starts:?}"));
        assert_eq!(lease, &format!("kube-system/{MIGRATION_LEASE}"));
        assert!(
            *time >= ccm_acquired,
            "{migrated} started at {time}, before {ccm_acquired}"
        );
    }
    let (_, _, lease) = starts
        .iter()
        .find(|(_, c, _)| c == "cloud-node-controller")
        .expect("cloud-node started");
    assert_eq!(lease, &format!("kube-system/{CCM}"));
    // And the KCM ran the same controllers under the migration Lease, never cloud-node.
    let kcm_starts = controller_starts(&kcm.logs());
    for migrated in MIGRATED {
        assert!(
            kcm_starts
                .iter()
                .any(|(_, c, l)| c == migrated && *l == format!("kube-system/{MIGRATION_LEASE}")),
            "{kcm_starts:?}"
        );
    }
    assert!(
        !kcm_starts
            .iter()
            .any(|(_, c, _)| c == "cloud-node-controller")
    );
    let exit = ccm.terminate();
    assert!(exit.success(), "{exit:?}\n{}", ccm.logs());
}

#[test]
fn the_stand_in_refuses_bad_flags_naming_them() {
    let config = "--cloud-config=/nonexistent/azure.json";
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["--cloud-provider=aws", config],
            &["--cloud-provider", "aws"],
        ),
        (&["--cloud-provider=azure"], &["--cloud-config"]),
        // In-tree there is no cloud-node controller.
        (
            &[
                "--cloud-provider=azure",
                config,
                "--controllers=*,-cloud-node",
            ],
            &["--controllers", "-cloud-node"],
        ),
        (
            &[
                "--cloud-provider=azure",
                config,
                "--enable-leader-migration",
                "--leader-elect=false",
            ],
            &["leader"],
        ),
        (
            &[
                "--cloud-provider=azure",
                config,
                "--leader-migration-config=/etc/leadermigration.conf",
            ],
            &["--enable-leader-migration"],
        ),
        (
            &[
                "--cloud-provider=azure",
                config,
                "--allocate-node-cidrs",
                "--cluster-cidr=10.244.0.0/16",
            ],
            // Valid flags: the first input read is the kubeconfig.
            &["--kubeconfig", "/nonexistent/kubeconfig"],
        ),
        (
            &["--cloud-provider=azure", config, "--allocate-node-cidrs"],
            &["--cluster-cidr"],
        ),
        // No in-tree provider after 1.29: the accepted profiles are named.
        (
            &["--cloud-provider=azure", config, "--in-tree-profile=1.30"],
            &["--in-tree-profile", "1.30", "accepted: 1.27, 1.28, 1.29"],
        ),
        (
            &["--cloud-provider=azure", config, "--in-tree-profile=latest"],
            &["--in-tree-profile", "latest", "1.N"],
        ),
    ];
    for (args, named) in cases {
        let output = Command::new(env!("CARGO_BIN_EXE_harness"))
            .arg(KCM)
            .args(*args)
            .args(["--kubeconfig=/nonexistent/kubeconfig", "--secure-port=0"])
            .output()
            .expect("run harness");
        let message = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{args:?}: {message}");
        for word in *named {
            assert!(message.contains(word), "{args:?}: {word} not in: {message}");
        }
    }
}
