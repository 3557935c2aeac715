//! The embedded cluster provider on small.yaml through the real `azure-fakes` binary, and
//! `harness up` as a user runs it: kubectl works against it, each component signs in as its own
//! Entra app, teardown and drop leave no process, and Ctrl-C of `harness up` stops its children.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use harness::cluster::{
    ClusterProvider, Component, EmbeddedCluster, EmbeddedOptions, TopologySource,
};
use k8s_openapi::api::core::v1::Node;
use serde_json::Value;

use crate::scratch::Scratch;
use crate::supervisor::alive;

/// small.yaml on an embedded cluster with its artifacts in `dir`.
pub(crate) async fn small(dir: &Scratch) -> EmbeddedCluster {
    // Builds azure-fakes when this `-p harness` run has not yet.
    fake_process::binary();
    let topology = TopologySource::File(fake_process::example("small.yaml"));
    EmbeddedCluster::start(EmbeddedOptions::new(topology, dir.0.join("cluster")))
        .await
        .expect("embedded cluster starts")
}

#[tokio::test]
async fn an_embedded_cluster_serves_kubectl_and_the_fake_then_stops() {
    let dir = Scratch::new("cluster-small");
    let mut cluster = small(&dir).await;
    assert_eq!(cluster.provider(), "embedded");

    let healthz = Command::new("kubectl")
        .arg("--kubeconfig")
        .arg(cluster.kubeconfig())
        .args(["get", "--raw", "/healthz"])
        .output()
        .expect("kubectl runs");
    assert!(healthz.status.success(), "{healthz:?}");
    assert_eq!(String::from_utf8_lossy(&healthz.stdout).trim(), "ok");
    let nodes: kube::Api<Node> = kube::Api::all(cluster.kube_client().await.expect("client"));
    nodes.list(&Default::default()).await.expect("list nodes");

    let names: Vec<&str> = cluster.nodes().iter().map(|n| n.name.as_str()).collect();
    assert_eq!(
        names,
        ["k8s-agentpool-0-0", "k8s-agentpool-0-1", "k8s-master-0"]
    );
    assert!(cluster.nodes().iter().all(|n| n.imds.is_some()));
    let azure = cluster.azure().clone();
    assert_eq!(azure.subscription, "0b1f6471-1bf0-4dda-aec3-111122223333");
    assert!(azure.ca_file.as_ref().is_some_and(|ca| ca.exists()));

    // Each component has its own app, and the fake knows it: the CCM's token request is
    // journaled under the CCM's client id.
    let json = |c: Component| -> Value {
        let path = cluster.azure_json(c).expect("azure.json written");
        serde_json::from_str(&std::fs::read_to_string(path).expect("read")).expect("JSON")
    };
    let ccm = json(Component::CloudControllerManager);
    let in_tree = json(Component::InTree);
    assert_ne!(ccm["aadClientId"], in_tree["aadClientId"]);
    assert_eq!(ccm["resourceGroup"], "k8s-small-rg");
    assert_eq!(ccm["vmType"], "standard");
    assert_eq!(ccm["securityGroupName"], "k8s-nsg");
    assert_eq!(ccm["resourceManagerEndpoint"], azure.arm.as_str());
    let admin = cluster.fake_admin().expect("embedded has the admin API");
    let token = admin
        .http()
        .post(format!(
            "{}{}/oauth2/v2.0/token",
            azure.authority, azure.tenant
        ))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!(
            "grant_type=client_credentials&client_id={}&client_secret={}\
             &scope=https%3A%2F%2Fmanagement.azure.com%2F.default",
            ccm["aadClientId"].as_str().expect("id"),
            ccm["aadClientSecret"].as_str().expect("secret"),
        ))
        .send()
        .await
        .expect("token request");
    assert_eq!(token.status(), 200);
    let token: Value = token.json().await.expect("token JSON");
    let group = admin
        .http()
        .get(format!(
            "{}subscriptions/{}/resourceGroups/k8s-small-rg?api-version=2021-04-01",
            azure.arm, azure.subscription
        ))
        .bearer_auth(token["access_token"].as_str().expect("access token"))
        .send()
        .await
        .expect("ARM GET");
    assert_eq!(group.status(), 200);
    let journal = admin.journal().await.expect("journal");
    let callers: Vec<&Value> = journal["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .filter(|e| e["surface"] == "arm")
        .map(|e| &e["clientId"])
        .collect();
    assert_eq!(callers, [&ccm["aadClientId"]], "{journal}");

    let pids = cluster.supervisor().pids();
    assert_eq!(pids.len(), 2);
    cluster.teardown().await.expect("clean teardown");
    for pid in pids {
        assert!(!alive(pid), "pid {pid} survived teardown");
    }
}

#[tokio::test]
async fn dropping_an_embedded_cluster_leaves_no_process() {
    let dir = Scratch::new("cluster-drop");
    let cluster = small(&dir).await;
    let pids = cluster.supervisor().pids();
    assert_eq!(pids.len(), 2);
    assert!(pids.iter().all(|p| alive(*p)));
    drop(cluster);
    for pid in pids {
        assert!(!alive(pid), "pid {pid} survived the drop");
    }
}

#[tokio::test]
async fn a_bad_topology_fails_with_the_fakes_own_error() {
    fake_process::binary();
    let dir = Scratch::new("cluster-bad");
    let options = EmbeddedOptions::new(
        TopologySource::Text("tenantId: [not, a, tenant\n".into()),
        dir.0.join("cluster"),
    );
    let error = EmbeddedCluster::start(options)
        .await
        .expect_err("fake refuses");
    let text = error.to_string();
    assert!(
        text.contains("azure-fakes exited before it was ready"),
        "{text}"
    );
    assert!(text.contains("azure-fakes.log"), "{text}");
    // The tail quotes what the fake said about the topology.
    assert!(text.contains("topology"), "{text}");
}

#[test]
fn harness_up_prints_the_endpoints_and_stops_its_children_on_ctrl_c() {
    fake_process::binary();
    let dir = Scratch::new("cluster-up");
    let mut up = Command::new(env!("CARGO_BIN_EXE_harness"))
        .args(["up", "--topology"])
        .arg(fake_process::example("small.yaml"))
        .arg("--artifacts")
        .arg(dir.0.join("up"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("harness up starts");
    let mut lines = BufReader::new(up.stdout.take().expect("stdout")).lines();
    let mut printed = Vec::new();
    for line in lines.by_ref() {
        let line = line.expect("stdout line");
        let done = line == "Press Ctrl-C to stop.";
        printed.push(line);
        if done {
            break;
        }
    }
    let has = |prefix: &str| printed.iter().any(|l| l.starts_with(prefix));
    assert!(
        has("kubeconfig: ") && has("arm: https://127.0.0.1:") && has("ca: "),
        "{printed:#?}"
    );
    assert!(
        has("  kubectl --kubeconfig ") && has("  curl --cacert "),
        "{printed:#?}"
    );
    let pids: Vec<u32> = printed
        .iter()
        .filter_map(|l| l.strip_prefix("process "))
        .filter_map(|l| l.split_once(": pid "))
        .filter_map(|(_, rest)| rest.split(',').next()?.parse().ok())
        .collect();
    assert_eq!(pids.len(), 2, "{printed:#?}");
    assert!(pids.iter().all(|p| alive(*p)));

    let harness_pid = libc::pid_t::try_from(up.id()).expect("pid");
    // SAFETY: signals one process this test started.
    assert_eq!(unsafe { libc::kill(harness_pid, libc::SIGINT) }, 0);
    let status = up.wait().expect("harness up exits");
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    assert!(status.success(), "{status}; stdout after ready: {rest:?}");
    assert!(rest.iter().any(|l| l == "harness up: stopped"), "{rest:?}");
    for pid in pids {
        assert!(!alive(pid), "pid {pid} survived Ctrl-C of harness up");
    }
}

#[tokio::test]
async fn fake_flags_reach_the_fake_and_scale_sets_make_vmss_configs() {
    fake_process::binary();
    let dir = Scratch::new("cluster-vmss");
    let faults = dir.write(
        "faults.yaml",
        "seed: 7\nrules:\n- id: flaky-rg\n  method: GET\n  path: /subscriptions/*/resourcegroups/*\n  fault: {kind: status, status: 503}\n  probability: 0.5\n",
    );
    let options = EmbeddedOptions::new(
        TopologySource::File(fake_process::example("zonal-vmss.yaml")),
        dir.0.join("cluster"),
    )
    .fake_flags([
        std::ffi::OsString::from("--faults"),
        faults.into_os_string(),
    ]);
    let mut cluster = EmbeddedCluster::start(options).await.expect("starts");
    let path = cluster
        .azure_json(Component::CloudNodeManager)
        .expect("written");
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("read")).expect("JSON");
    assert_eq!(json["vmType"], "vmss");
    let admin = cluster.fake_admin().expect("admin");
    let rules = admin
        .expect_ok(reqwest::Method::GET, "/admin/faults", None)
        .await
        .expect("faults");
    assert!(rules.to_string().contains("flaky-rg"), "{rules}");
    cluster.teardown().await.expect("teardown");
}

/// Pids of live processes whose command line mentions `needle`.
fn processes_mentioning(needle: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains(needle))
        })
        .collect()
}

#[tokio::test]
async fn a_failed_start_leaves_no_process_behind() {
    fake_process::binary();
    let dir = Scratch::new("cluster-half");
    let artifacts = dir.0.join("cluster");
    let options = EmbeddedOptions::new(
        TopologySource::File(fake_process::example("small.yaml")),
        &artifacts,
    )
    .apiserver_flags(["--service-cidr", "not-a-cidr"]);
    let error = EmbeddedCluster::start(options)
        .await
        .expect_err("the API server refuses its flags");
    let text = error.to_string();
    assert!(
        text.contains("kube-apiserver exited before it was ready"),
        "{text}"
    );
    assert!(text.contains("not-a-cidr"), "{text}");
    let left = processes_mentioning(&artifacts.display().to_string());
    assert!(left.is_empty(), "still running: {left:?}");
}
