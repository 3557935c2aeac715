//! `harness preflight`, `harness snapshot` and `harness compare` with the `kubeconfig` provider,
//! pointed at an embedded cluster standing in for a real one: the fake plays "real Azure" (its
//! azure.json for the CCM is the `--cloud-config`, its CA the `SSL_CERT_FILE`), the in-tree
//! kube-controller-manager and kubelets run (zonal-vmss.yaml, a uniform scale set) and a
//! LoadBalancer Service has its real load balancer frontend and public IP.
//!
//! Wrong `--cluster-name` → preflight fails naming the PIP that would be recreated; wrong `vmType`
//! → it names the nodes that would be deleted; the generated plan → exit 0 and no ARM write
//! outside the migration allow-list (the in-tree provider's legacy tag and per-Service NSG rule
//! are rewritten by any CCM's first reconcile, so a literal zero is not reachable here); snapshots
//! before and after a cold switch to the production CCM compare clean and land in the TestGrid
//! layout, and the CCM wrote the NSG rule preflight predicted; every ARM request of a snapshot waits
//! for the read budget; the azure.json's client secret appears in none of the outputs, snapshots
//! or report files.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use harness::cluster::{ClusterNode, ClusterProvider, Component, EmbeddedCluster};
use harness::realcluster::{KubeconfigCluster, ReadBudget, RealAzure, capture_real, load_config};
use harness::record::RunRecord;
use harness::roster::Roster;
use harness::run::scenario::cluster_options;
use harness::scenario::{load_str, plan};
use harness::switch::Deployment;
use k8s_openapi::api::core::v1::Service;
use kube::Api;
use kube::api::PostParams;
use serde_json::json;

use crate::run::text;
use crate::scratch::Scratch;

const SCENARIO: &str = "name: real-cluster-stand-in\n\
    topology: {file: fakes/examples/zonal-vmss.yaml}\n\
    kubernetesVersion: \"1.29\"\nclusterName: k8s\nswitch:\n  procedure: cold\n";

/// Runs the real `harness` binary with the fake's CA trusted, as an operator would.
fn harness(ca: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_harness"))
        .args(args)
        .env("SSL_CERT_FILE", ca)
        .output()
        .expect("harness binary runs")
}

fn generate(dir: &Path, cluster_name: &str) {
    let out = harness(
        Path::new("/nonexistent"),
        &[
            "manifests",
            "generate",
            "--mode",
            "out-of-tree",
            "--kubernetes-version",
            "1.29",
            "--cluster-name",
            cluster_name,
            "--out",
            dir.to_str().expect("utf-8"),
        ],
    );
    assert!(out.status.success(), "{:?}", text(&out));
}

/// Every file under `dir`, recursively.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files(&path));
        } else {
            out.push(path);
        }
    }
    out
}

async fn wait_for_ingress(client: &kube::Client) -> String {
    let services: Api<Service> = Api::namespaced(client.clone(), "default");
    for _ in 0..240 {
        let svc = services.get("web").await.expect("get web");
        if let Some(ip) = svc
            .status
            .and_then(|s| s.load_balancer)
            .and_then(|lb| lb.ingress)
            .and_then(|i| i.into_iter().next())
            .and_then(|i| i.ip)
        {
            return ip;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    panic!("Service default/web never got an ingress IP from the in-tree controller");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn preflight_snapshot_and_compare_on_a_cluster_reached_by_kubeconfig() {
    fake_process::binary();
    let dir = Scratch::new("real-cluster");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let scenario = load_str(SCENARIO, "t.yaml", Some(&root)).unwrap_or_else(|e| panic!("{e}"));
    let plan = plan(&scenario);
    let mut cluster = EmbeddedCluster::start(cluster_options(&plan, &dir.0.join("cluster")))
        .await
        .expect("embedded cluster starts");
    let deployment = Deployment::start_in_tree(&cluster, &plan, Roster::new(), RunRecord::new())
        .await
        .unwrap_or_else(|e| panic!("in-tree start: {e}"));
    let client = cluster.kube_client().await.expect("client");
    let service: Service = serde_json::from_value(json!({
        "metadata": {"name": "web"},
        "spec": {"type": "LoadBalancer", "ports": [{"port": 80, "protocol": "TCP"}]}
    }))
    .expect("service JSON");
    Api::<Service>::namespaced(client.clone(), "default")
        .create(&PostParams::default(), &service)
        .await
        .expect("create web");
    let ip = wait_for_ingress(&client).await;

    let ca = cluster.azure().ca_file.clone().expect("the fake's CA");
    let kubeconfig = cluster.kubeconfig().to_str().expect("utf-8").to_owned();
    let cloud_config = cluster
        .azure_json(Component::CloudControllerManager)
        .expect("the CCM's azure.json")
        .to_str()
        .expect("utf-8")
        .to_owned();
    let azure_json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&cloud_config).expect("read azure.json"))
            .expect("azure.json");
    let secret = azure_json["aadClientSecret"]
        .as_str()
        .expect("a client secret")
        .to_owned();
    assert!(secret.len() >= 8, "a secret worth grepping for: {secret:?}");
    let preflight = |manifests: &Path| {
        harness(
            &ca,
            &[
                "preflight",
                "--kubeconfig",
                &kubeconfig,
                "--cloud-config",
                &cloud_config,
                "--manifests",
                manifests.to_str().expect("utf-8"),
                "--kubernetes-version",
                "1.29",
                "--arm-reads-per-second",
                "50",
            ],
        )
    };
    let mut outputs = Vec::new();

    // The generated plan with the in-tree cluster name: nothing blocks, and no ARM write outside
    // the rehearsals' allow-list (the in-tree provider's legacy `service` tag and per-Service NSG
    // rule are what the CCM's first reconcile rewrites; nothing else).
    let good = dir.0.join("manifests-good");
    generate(&good, "k8s");
    let out = preflight(&good);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let writes = stdout
        .lines()
        .find(|l| l.starts_with("ARM writes the target CCM would make on its first reconcile: "))
        .unwrap_or_else(|| panic!("no ARM write count:\n{stdout}"));
    assert!(
        writes.ends_with("(0 outside the migration allow-list)"),
        "{stdout}"
    );
    assert!(
        !stdout.contains("NOT ALLOW-LISTED") && !stdout.contains("DELETE"),
        "{stdout}"
    );
    outputs.push(stdout + &stderr);

    // A wrong --cluster-name: preflight fails and names the PIP that would be recreated.
    let pip = {
        let admin = cluster.fake_admin().expect("admin");
        let state =
            harness::snapshot::ArmResources::from_admin_state(&admin.state().await.expect("state"));
        state
            .pip_by_address(&ip)
            .expect("web's public IP")
            .name
            .clone()
    };
    let wrong_name = dir.0.join("manifests-wrong-name");
    generate(&wrong_name, "wrong");
    let report_json = dir.0.join("preflight.json");
    let out = harness(
        &ca,
        &[
            "preflight",
            "--kubeconfig",
            &kubeconfig,
            "--cloud-config",
            &cloud_config,
            "--manifests",
            wrong_name.to_str().expect("utf-8"),
            "--kubernetes-version",
            "1.29",
            "--arm-reads-per-second",
            "50",
            "--json",
            report_json.to_str().expect("utf-8"),
        ],
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report_json).expect("--json written"))
            .expect("JSON report");
    assert!(
        report["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .any(|f| f["severity"] == "block" && f["pitfall"] == "P1"),
        "{report:#}"
    );
    assert!(
        !report.to_string().contains(&secret),
        "the JSON report carries the secret"
    );
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("BLOCK [P1] Service default/web")
                && l.contains(&format!("PIP that would be recreated: {pip}"))),
        "{stdout}"
    );
    assert!(
        stdout.contains("--cluster-name=k8s"),
        "the fix names the right value: {stdout}"
    );
    outputs.push(stdout + &stderr);

    // A wrong vmType on a scale-set cluster: preflight names every node that would be deleted.
    let wrong_vm_type = dir.0.join("manifests-wrong-vmtype");
    generate(&wrong_vm_type, "k8s");
    let target_json = wrong_vm_type.join("azure.json");
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&target_json).expect("read")).expect("json");
    doc["vmType"] = json!("standard");
    std::fs::write(&target_json, doc.to_string()).expect("write");
    let out = preflight(&wrong_vm_type);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    for node in cluster.nodes() {
        assert!(
            stdout.lines().any(
                |l| l.starts_with(&format!("BLOCK [P4] Node {}:", node.name))
                    && l.contains(&format!("node that would be deleted: {}", node.name))
            ),
            "{} not named:\n{stdout}",
            node.name
        );
    }
    outputs.push(stdout + &stderr);

    // Snapshots before and after a cold switch to the CCM compare clean, in the TestGrid layout.
    let snapshot_cli = |file: &Path, label: &str| {
        let out = harness(
            &ca,
            &[
                "snapshot",
                "--kubeconfig",
                &kubeconfig,
                "--cloud-config",
                &cloud_config,
                "--arm-reads-per-second",
                "50",
                "--label",
                label,
                "--out",
                file.to_str().expect("utf-8"),
            ],
        );
        let (stdout, stderr) = text(&out);
        assert!(out.status.success(), "{stdout}\n{stderr}");
        stdout + &stderr
    };
    let before = dir.0.join("before.json");
    let after = dir.0.join("after.json");
    outputs.push(snapshot_cli(&before, "before"));
    let snapshot: harness::snapshot::Snapshot =
        serde_json::from_str(&std::fs::read_to_string(&before).expect("read")).expect("snapshot");
    assert_eq!(snapshot.nodes.len(), cluster.nodes().len());
    assert_eq!(
        snapshot.service("default/web").map(|s| s.ingress.clone()),
        Some(vec![ip.clone()])
    );
    assert!(
        snapshot.arm.pip_by_address(&ip).is_some(),
        "ARM read through REST: {:#?}",
        snapshot.arm.public_ips
    );
    assert!(
        snapshot.arm.machines.len() >= cluster.nodes().len(),
        "scale-set instances read: {:#?}",
        snapshot.arm.machines
    );
    // The provider in-process: what it reports, and every ARM request of a snapshot went through
    // the read budget (the fake journals each request under the CCM app's client id, which only
    // the harness uses here: the in-tree components have their own app).
    let http = ccm_azure::cloud::trust::client_builder(&std::collections::BTreeMap::from([(
        "SSL_CERT_FILE".to_owned(),
        ca.display().to_string(),
    )]))
    .expect("trust")
    .build()
    .expect("http client");
    let config = load_config(Path::new(&cloud_config)).expect("the CCM's azure.json");
    let budget = ReadBudget::new(1000.0);
    let azure = RealAzure::connect_with(config, Path::new(&cloud_config), &budget, http)
        .await
        .expect("connect");
    let real = KubeconfigCluster::open(cluster.kubeconfig(), &azure, &dir.0)
        .await
        .expect("open");
    assert_eq!(real.provider(), "kubeconfig");
    assert_eq!(
        real.nodes(),
        cluster
            .nodes()
            .iter()
            .map(|n| ClusterNode {
                name: n.name.clone(),
                imds: None
            })
            .collect::<Vec<_>>()
    );
    assert_eq!(real.azure().subscription, cluster.azure().subscription);
    assert_eq!(real.azure().arm, cluster.azure().arm);
    let admin = cluster.fake_admin().expect("admin").clone();
    let client_id = azure_json["aadClientId"]
        .as_str()
        .expect("client id")
        .to_owned();
    let arm_requests = || {
        let admin = admin.clone();
        let client_id = client_id.clone();
        async move {
            let journal = admin.journal().await.expect("journal");
            journal["entries"]
                .as_array()
                .expect("entries")
                .iter()
                .filter(|e| e["surface"] == "arm" && e["clientId"] == client_id.as_str())
                .count() as u64
        }
    };
    let before_count = arm_requests().await;
    let snap = capture_real(
        &real.kube_client().await.expect("client"),
        &azure,
        "in-process",
    )
    .await
    .expect("capture");
    assert_eq!(snap.services.len(), 1);
    let requests = arm_requests().await - before_count;
    assert!(requests > 0);
    assert_eq!(
        budget.granted(),
        requests,
        "every ARM request waited for a budget slot"
    );

    // The switch: in-tree loops stop, the CCM and CNMs start, kubelets go external. Once the CCM
    // has reconciled `web` (its public IP carries the CCM's cluster-name tag and the in-tree NSG
    // rule is gone), the cluster is snapshotted again.
    fake_process::workspace_binary("azure-ccm", "cloud-controller-manager");
    fake_process::workspace_binary("azure-ccm", "cloud-node-manager");
    deployment
        .switch(&cluster, &plan)
        .await
        .unwrap_or_else(|e| panic!("cold switch: {e}"));
    let base = snapshot.service("default/web").expect("web").base_name();
    let mut reconciled = false;
    for _ in 0..240 {
        let arm =
            harness::snapshot::ArmResources::from_admin_state(&admin.state().await.expect("state"));
        let tagged = arm
            .pip_by_address(&ip)
            .is_some_and(|p| p.tags.contains_key(ccm_names::resource_tags::CLUSTER_NAME));
        let legacy_rule = arm
            .security_groups
            .iter()
            .flat_map(|n| &n.rules)
            .any(|r| r.name.starts_with(&base));
        if tagged && !legacy_rule {
            reconciled = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    assert!(reconciled, "the CCM never reconciled default/web");
    // Once a CCM has reconciled the load balancer, the same plan has nothing left to write.
    let out = preflight(&good);
    let (stdout, stderr) = text(&out);
    let writes = stdout
        .lines()
        .find(|l| l.starts_with("ARM writes the target CCM would make on its first reconcile: "))
        .unwrap_or_else(|| panic!("no ARM write count:\n{stdout}\n{stderr}"));
    assert!(
        writes.starts_with("ARM writes the target CCM would make on its first reconcile: 0 "),
        "{stdout}\n{stderr}"
    );
    outputs.push(stdout + &stderr);
    outputs.push(snapshot_cli(&after, "after"));
    // Preflight's dry run predicted the CCM's consolidated NSG rule by name.
    let predicted = outputs[0]
        .split_whitespace()
        .find_map(|w| w.split('/').find(|p| p.starts_with("k8s-azure-lb_allow_")))
        .unwrap_or_else(|| panic!("no consolidated rule predicted:\n{}", outputs[0]))
        .to_owned();
    let after_snapshot: harness::snapshot::Snapshot =
        serde_json::from_str(&std::fs::read_to_string(&after).expect("read")).expect("snapshot");
    assert!(
        after_snapshot
            .arm
            .security_groups
            .iter()
            .flat_map(|n| &n.rules)
            .any(|r| r.name == predicted),
        "{predicted} not written by the CCM: {:#?}",
        after_snapshot.arm.security_groups
    );
    let results = dir.0.join("results");
    let out = harness(
        &ca,
        &[
            "compare",
            before.to_str().expect("utf-8"),
            after.to_str().expect("utf-8"),
            "--artifacts",
            results.to_str().expect("utf-8"),
        ],
    );
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("compare: PASS"), "{stdout}");
    for file in [
        "started.json",
        "finished.json",
        "artifacts/junit_01.xml",
        "artifacts/report.html",
    ] {
        assert!(results.join(file).is_file(), "{file} written");
    }
    outputs.push(stdout + &stderr);

    // Shown with --nocapture, for a person reading what an operator sees.
    for output in &outputs {
        println!("{output}");
    }
    // No credential anywhere: outputs, snapshots, report files.
    for (i, output) in outputs.iter().enumerate() {
        assert!(
            !output.contains(&secret),
            "output {i} carries the client secret"
        );
    }
    for file in files(&results).into_iter().chain([before, after]) {
        let content = std::fs::read(&file).expect("read");
        assert!(
            !String::from_utf8_lossy(&content).contains(&secret),
            "{} carries the client secret",
            file.display()
        );
    }

    deployment.shutdown().await;
    cluster.teardown().await.expect("teardown");
}
