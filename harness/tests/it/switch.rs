//! `harness::switch::Deployment` on an embedded cluster with the real processes: the stand-in
//! in-tree KCM (`harness kube-controller-manager`), the production `cloud-controller-manager` and
//! `cloud-node-manager`, simulated kubelets. A cold switch keeps every Node (UID, providerID,
//! labels) and hands the cloud loops to the CCM; a killed CCM is restarted; the API server
//! restarts with its objects; the rollback gives the loops back to the KCM and the kubelets go
//! in-tree again. Quiesce and Leader Migration are checked for their Lease facts.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use harness::cluster::{ClusterProvider, EmbeddedCluster, EmbeddedOptions, TopologySource};
use harness::intree::kubelet::Mode;
use harness::record::{MarkKind, RunRecord};
use harness::roster::{ManagedProcess, ManagerKind, Roster};
use harness::scenario::{ProcessAction, ScenarioPlan, load, plan};
use harness::switch::{Deployment, Stage, wait};
use k8s_openapi::api::core::v1::Node;
use kube::Api;

use crate::scratch::Scratch;
use crate::supervisor::alive;

const KCM_LEASE: &str = "kube-controller-manager";
const CCM_LEASE: &str = "cloud-controller-manager";
const MIGRATION_LEASE: &str = "cloud-provider-extraction-migration";

fn plan_of(file: &str) -> ScenarioPlan {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let scenario = load(&root.join("scenarios").join(file)).unwrap_or_else(|e| panic!("{e}"));
    plan(&scenario)
}

/// small.yaml on an embedded cluster; builds the binaries the deployment starts when missing.
async fn small(dir: &Scratch) -> EmbeddedCluster {
    fake_process::binary();
    fake_process::workspace_binary("azure-ccm", "cloud-controller-manager");
    fake_process::workspace_binary("azure-ccm", "cloud-node-manager");
    let topology = TopologySource::File(fake_process::example("small.yaml"));
    EmbeddedCluster::start(EmbeddedOptions::new(topology, dir.0.join("cluster")))
        .await
        .expect("embedded cluster starts")
}

/// Node name → (UID, providerID, labels).
async fn nodes(
    client: &kube::Client,
) -> BTreeMap<String, (String, String, BTreeMap<String, String>)> {
    let api: Api<Node> = Api::all(client.clone());
    api.list(&Default::default())
        .await
        .expect("list nodes")
        .items
        .into_iter()
        .map(|n| {
            let provider = n.spec.as_ref().and_then(|s| s.provider_id.clone());
            (
                n.metadata.name.clone().unwrap_or_default(),
                (
                    n.metadata.uid.clone().unwrap_or_default(),
                    provider.unwrap_or_default(),
                    n.metadata.labels.clone().unwrap_or_default(),
                ),
            )
        })
        .collect()
}

fn running(roster: &Roster, kind: ManagerKind) -> Vec<ManagedProcess> {
    roster
        .processes()
        .into_iter()
        .filter(|p| p.kind == kind && p.stopped_ms.is_none())
        .collect()
}

/// The running processes of `kind` that run `cloud_loop`, with the lease governing it.
fn loop_owners(roster: &Roster, cloud_loop: &str) -> Vec<(String, String)> {
    roster
        .processes()
        .into_iter()
        .filter(|p| p.stopped_ms.is_none())
        .filter_map(|p| {
            p.cloud_loops
                .get(cloud_loop)
                .map(|l| (p.name.clone(), l.clone()))
        })
        .collect()
}

async fn holder(client: &kube::Client, lease: &str) -> Option<String> {
    wait::lease_holder(client, lease).await.expect("read lease")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cold_switch_faults_and_rollback_keep_every_node() {
    let dir = Scratch::new("switch-cold");
    let mut cluster = small(&dir).await;
    let plan = plan_of("01-cold-switch-azure-cni.yaml");
    let (roster, record) = (Roster::new(), RunRecord::new());
    let deployment = Deployment::start_in_tree(&cluster, &plan, roster.clone(), record.clone())
        .await
        .unwrap_or_else(|e| panic!("in-tree start: {e}"));
    let client = cluster.kube_client().await.expect("client");

    // In-tree: one KCM with the cloud loops under its Lease, which it holds; every node
    // initialised by its kubelet.
    let kcms = running(&roster, ManagerKind::KubeControllerManager);
    assert_eq!(kcms.len(), 1, "{kcms:#?}");
    assert_eq!(kcms[0].name, "kube-controller-manager-0");
    assert_eq!(
        kcms[0]
            .cloud_loops
            .get("service-lb-controller")
            .map(String::as_str),
        Some(KCM_LEASE)
    );
    assert!(kcms[0].holds(&holder(&client, KCM_LEASE).await.expect("held")));
    assert_eq!(kcms[0].hostname, "kube-controller-manager-0");
    let before = nodes(&client).await;
    assert_eq!(before.len(), cluster.nodes().len());
    assert!(
        before.values().all(|(_, p, _)| p.starts_with("azure://")),
        "{before:#?}"
    );

    deployment
        .switch(&cluster, &plan)
        .await
        .unwrap_or_else(|e| panic!("switch: {e}"));
    assert_eq!(deployment.stage(), Stage::Switched);

    // The CCM runs the loops under its Lease and holds it; one CNM per node; the KCM runs none.
    let ccms = running(&roster, ManagerKind::CloudControllerManager);
    assert_eq!(ccms.len(), 1, "{ccms:#?}");
    assert!(ccms[0].holds(&holder(&client, CCM_LEASE).await.expect("held")));
    assert_eq!(
        loop_owners(&roster, "service-lb-controller"),
        [(
            "cloud-controller-manager-0".to_string(),
            CCM_LEASE.to_string()
        )]
    );
    assert!(
        running(&roster, ManagerKind::KubeControllerManager)[0]
            .cloud_loops
            .is_empty()
    );
    // Started several at a time, as a DaemonSet rolls out: in no particular order.
    let cnms: BTreeSet<String> = running(&roster, ManagerKind::CloudNodeManager)
        .into_iter()
        .map(|p| p.name)
        .collect();
    let expected: BTreeSet<String> = cluster
        .nodes()
        .iter()
        .map(|n| format!("cloud-node-manager-{}", n.name))
        .collect();
    assert_eq!(cnms, expected);
    assert!(
        deployment
            .kubelet_states()
            .await
            .iter()
            .all(|k| k.spec.mode == Mode::External && k.running)
    );
    let flipped = record
        .marks()
        .iter()
        .filter(|m| matches!(&m.kind, MarkKind::KubeletFlipped { mode, .. } if mode == "external"))
        .count();
    assert_eq!(flipped, cluster.nodes().len());

    // Every manager the roster says runs is alive.
    let supervised: Vec<String> = deployment
        .supervisor()
        .handles()
        .into_iter()
        .map(|h| h.name)
        .collect();
    for p in roster.processes().iter().filter(|p| p.stopped_ms.is_none()) {
        assert!(supervised.contains(&p.name), "{} not supervised", p.name);
        let exited = deployment.supervisor().exited(&p.name);
        assert!(exited.is_none(), "{} exited: {exited:?}", p.name);
    }

    // Nodes: same UID and providerID, no label lost.
    let after = nodes(&client).await;
    for (name, (uid, provider, labels)) in &before {
        let (uid2, provider2, labels2) = after.get(name).unwrap_or_else(|| panic!("{name} gone"));
        assert_eq!((uid, provider), (uid2, provider2), "{name}");
        for (k, v) in labels {
            assert_eq!(labels2.get(k), Some(v), "{name}: label {k}");
        }
    }

    // A VM added after the switch gets an external kubelet and a CNM, which initialises it.
    let late = ["late-agent".to_string()];
    let admin = cluster.fake_admin().expect("fake admin").clone();
    admin
        .add_vm(serde_json::json!({"name": "late-agent", "availabilitySet": "agentpool-availabilitySet"}))
        .await
        .expect("add VM");
    deployment
        .add_node(&cluster, "late-agent")
        .await
        .unwrap_or_else(|e| panic!("add node: {e}"));
    wait::until(
        "late-agent initialised by its CNM",
        wait::DEADLINE,
        || Ok(()),
        || wait::nodes_initialised(&client, &late),
    )
    .await
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        running(&roster, ManagerKind::CloudNodeManager)
            .iter()
            .any(|p| p.name == "cloud-node-manager-late-agent")
    );
    deployment
        .remove_node("late-agent")
        .await
        .unwrap_or_else(|e| panic!("remove node: {e}"));
    assert!(
        !running(&roster, ManagerKind::CloudNodeManager)
            .iter()
            .any(|p| p.name == "cloud-node-manager-late-agent")
    );

    // A SIGKILLed CCM comes back under the same name: two runs in the roster, one killed.
    deployment
        .disrupt(&cluster, ProcessAction::KillCloudControllerManager)
        .await
        .unwrap_or_else(|e| panic!("kill ccm: {e}"));
    let runs: Vec<ManagedProcess> = roster
        .processes()
        .into_iter()
        .filter(|p| p.name == "cloud-controller-manager-0")
        .collect();
    assert_eq!(runs.len(), 2, "{runs:#?}");
    assert!(runs[0].stopped_ms.is_some() && runs[1].stopped_ms.is_none());
    assert!(record.marks().iter().any(
        |m| matches!(&m.kind, MarkKind::ProcessKilled { name } if name == "cloud-controller-manager-0")
    ));

    // The API server restarts on its port with its objects.
    deployment
        .disrupt(&cluster, ProcessAction::RestartKubeApiserver)
        .await
        .unwrap_or_else(|e| panic!("restart apiserver: {e}"));
    let restarted = cluster.kube_client().await.expect("client");
    let kept = nodes(&restarted).await;
    assert_eq!(
        kept.iter()
            .filter(|(n, _)| before.contains_key(*n))
            .map(|(n, (u, _, _))| (n.clone(), u.clone()))
            .collect::<Vec<_>>(),
        before
            .iter()
            .map(|(n, (u, _, _))| (n.clone(), u.clone()))
            .collect::<Vec<_>>()
    );
    assert!(
        record
            .marks()
            .iter()
            .any(|m| m.kind == MarkKind::ApiServerRestarted)
    );

    // Rollback: CCM and CNMs gone, the KCM in-tree again with the loops, kubelets in-tree.
    deployment
        .rollback(&cluster, &plan)
        .await
        .unwrap_or_else(|e| panic!("rollback: {e}"));
    assert!(running(&roster, ManagerKind::CloudControllerManager).is_empty());
    assert!(running(&roster, ManagerKind::CloudNodeManager).is_empty());
    let kcms = running(&roster, ManagerKind::KubeControllerManager);
    assert_eq!(
        loop_owners(&roster, "service-lb-controller"),
        [(
            "kube-controller-manager-0".to_string(),
            KCM_LEASE.to_string()
        )]
    );
    assert!(kcms[0].holds(&holder(&restarted, KCM_LEASE).await.expect("held")));
    assert!(
        deployment
            .kubelet_states()
            .await
            .iter()
            .all(|k| k.spec.mode == Mode::InTree && k.running == (k.spec.node != "late-agent"))
    );
    let back = nodes(&restarted).await;
    for (name, (uid, provider, _)) in &before {
        assert_eq!(
            back.get(name).map(|b| (&b.0, &b.1)),
            Some((uid, provider)),
            "{name}"
        );
    }
    deployment.shutdown().await;
    assert!(roster.processes().iter().all(|p| p.stopped_ms.is_some()));
    cluster.teardown().await.expect("teardown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quiesce_stops_every_in_tree_loop_before_the_first_ccm() {
    let dir = Scratch::new("switch-quiesce");
    let mut cluster = small(&dir).await;
    let plan = plan_of("04-ha-quiesce.yaml");
    let roster = Roster::new();
    let deployment = Deployment::start_in_tree(&cluster, &plan, roster.clone(), RunRecord::new())
        .await
        .unwrap_or_else(|e| panic!("in-tree start: {e}"));
    assert_eq!(
        running(&roster, ManagerKind::KubeControllerManager).len(),
        3
    );
    deployment
        .switch(&cluster, &plan)
        .await
        .unwrap_or_else(|e| panic!("switch: {e}"));

    let all = roster.processes();
    let first_ccm = all
        .iter()
        .filter(|p| p.kind == ManagerKind::CloudControllerManager)
        .map(|p| p.started_ms)
        .min()
        .expect("a CCM started");
    for kcm in all
        .iter()
        .filter(|p| p.kind == ManagerKind::KubeControllerManager && !p.cloud_loops.is_empty())
    {
        let stopped = kcm.stopped_ms.unwrap_or(i64::MAX);
        assert!(
            stopped <= first_ccm,
            "{} ran cloud loops until {stopped}, CCM from {first_ccm}",
            kcm.name
        );
    }
    let client = cluster.kube_client().await.expect("client");
    let ccms = running(&roster, ManagerKind::CloudControllerManager);
    assert_eq!(ccms.len(), 2);
    let ccm_holder = holder(&client, CCM_LEASE).await;
    assert!(
        ccm_holder
            .as_deref()
            .is_some_and(|h| ccms.iter().any(|c| c.holds(h))),
        "{ccm_holder:?} {ccms:#?}"
    );
    // External KCMs keep their Lease, with no cloud loop.
    let kcms = running(&roster, ManagerKind::KubeControllerManager);
    assert!(kcms.iter().all(|k| k.cloud_loops.is_empty()));
    let kcm_holder = holder(&client, KCM_LEASE).await;
    assert!(
        kcm_holder
            .as_deref()
            .is_some_and(|h| kcms.iter().any(|k| k.holds(h))),
        "{kcm_holder:?} {kcms:#?}"
    );
    // The managers run under the cluster's supervisor: its teardown stops them too.
    let pids = deployment.supervisor().pids();
    assert!(pids.len() >= 3 + 2 + cluster.nodes().len(), "{pids:?}");
    cluster.teardown().await.expect("teardown");
    assert!(pids.iter().all(|p| !alive(*p)), "left running: {pids:?}");
    drop(deployment);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leader_migration_hands_the_migration_lease_from_a_kcm_to_a_ccm() {
    let dir = Scratch::new("switch-lm");
    let mut cluster = small(&dir).await;
    let plan = plan_of("05-leader-migration.yaml");
    let (roster, record) = (Roster::new(), RunRecord::new());
    let deployment = Deployment::start_in_tree(&cluster, &plan, roster.clone(), record)
        .await
        .unwrap_or_else(|e| panic!("in-tree start: {e}"));
    let client = cluster.kube_client().await.expect("client");
    let history =
        fake_process::LeaseHistory::record(client.clone(), "kube-system", MIGRATION_LEASE);
    deployment
        .switch(&cluster, &plan)
        .await
        .unwrap_or_else(|e| panic!("switch: {e}"));

    // Migrating KCMs ran the migrated loops under the migration Lease, node IPAM nowhere
    // (Azure CNI); the CCMs run them under it too, cloud-node-lifecycle included.
    let all = roster.processes();
    let migrating_kcm = all
        .iter()
        .find(|p| {
            p.kind == ManagerKind::KubeControllerManager
                && !p.cloud_loops.is_empty()
                && p.cloud_loops.values().any(|l| l == MIGRATION_LEASE)
        })
        .unwrap_or_else(|| panic!("no migrating KCM: {all:#?}"));
    assert_eq!(
        migrating_kcm.cloud_loops["service-lb-controller"],
        MIGRATION_LEASE
    );
    let ccms = running(&roster, ManagerKind::CloudControllerManager);
    assert_eq!(ccms.len(), 2);
    assert!(
        ccms.iter()
            .all(|c| c.cloud_loops["service-lb-controller"] == MIGRATION_LEASE)
    );
    let migration_holder = holder(&client, MIGRATION_LEASE).await;
    assert!(
        migration_holder
            .as_deref()
            .is_some_and(|h| ccms.iter().any(|c| c.holds(h))),
        "{migration_holder:?}"
    );
    // The migration Lease went from a KCM to a CCM, never held by two at once.
    let tenures = history.tenures();
    assert!(
        all.iter()
            .filter(|p| p.kind == ManagerKind::KubeControllerManager)
            .any(|p| p.holds(&tenures[0].holder)),
        "{tenures:#?}"
    );
    assert_eq!(
        Some(tenures.last().expect("tenure").holder.clone()),
        migration_holder
    );
    assert!(fake_process::overlaps(&tenures).is_empty(), "{tenures:#?}");
    deployment.shutdown().await;
    cluster.teardown().await.expect("teardown");
}

/// P2 procedures (no quiesce; a CCM ignoring the migration Lease; Leader Migration without its
/// flag): the in-tree leader keeps running its cloud loops for a whole rolling step after the
/// CCM took its Lease, so the runner's sampler can see both running them (before the fix, the
/// leader was replaced within milliseconds of the CCM's start and no sample caught the overlap).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn p2_procedures_overlap_the_in_tree_leader_and_the_ccm_for_a_rolling_step() {
    for (file, leader_lease) in [
        ("04-ha-no-quiesce.yaml", KCM_LEASE),
        ("06-leader-migration-lease-ignored.yaml", MIGRATION_LEASE),
        ("07-leader-migration-flag-missing.yaml", KCM_LEASE),
    ] {
        let dir = Scratch::new("switch-p2");
        let mut cluster = small(&dir).await;
        let mut plan = plan_of(file);
        plan.switch.kcm_replicas = plan.switch.kcm_replicas.min(2);
        let roster = Roster::new();
        let deployment =
            Deployment::start_in_tree(&cluster, &plan, roster.clone(), RunRecord::new())
                .await
                .unwrap_or_else(|e| panic!("{file}: in-tree start: {e}"));
        let client = cluster.kube_client().await.expect("client");
        let ccm_lease =
            fake_process::LeaseHistory::record(client.clone(), "kube-system", CCM_LEASE);
        let leader_history =
            fake_process::LeaseHistory::record(client.clone(), "kube-system", leader_lease);
        let switched = deployment.switch(&cluster, &plan).await;
        let ccm_tenures = ccm_lease.tenures();
        let leader_tenures = leader_history.tenures();
        deployment.shutdown().await;
        cluster.teardown().await.expect("teardown");
        switched.unwrap_or_else(|e| panic!("{file}: switch: {e}"));

        let ccm_acquired = ccm_tenures
            .first()
            .unwrap_or_else(|| panic!("{file}: the CCM never held its Lease"))
            .acquired
            .as_millisecond();
        // The in-tree KCM process that held the loops' Lease last before the CCM took its own
        // (processes of one host share its identity: the one running at that time).
        let all = roster.processes();
        let in_tree_leader = leader_tenures
            .iter()
            .rev()
            .filter(|t| t.acquired.as_millisecond() <= ccm_acquired)
            .find_map(|t| {
                all.iter().find(|p| {
                    p.kind == ManagerKind::KubeControllerManager
                        && !p.cloud_loops.is_empty()
                        && p.holds(&t.holder)
                        && p.alive_at(ccm_acquired)
                })
            })
            .unwrap_or_else(|| panic!("{file}: no in-tree leader: {leader_tenures:#?} {all:#?}"));
        let stopped = in_tree_leader.stopped_ms.expect("stopped at shutdown");
        let step = i64::try_from(harness::switch::ROLLING_STEP.as_millis()).expect("ms");
        assert!(
            stopped - ccm_acquired >= step,
            "{file}: {} stopped {} ms after the CCM took its Lease, less than a rolling step",
            in_tree_leader.name,
            stopped - ccm_acquired
        );
    }
}

/// Where a variant must have put the loops (`Err`: what is wrong).
type VariantCheck = fn(&Roster) -> Result<(), String>;

/// Every switch variant the shipped scenarios ask for starts and completes on small.yaml (the
/// negatives too: they must fail their check later, not the switch), with the loops where the
/// variant puts them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_shipped_switch_variant_completes() {
    let cases: [(&str, VariantCheck); 7] = [
        ("02-cold-switch-kubenet.yaml", |r| {
            // Routes and IPAM move to the CCM; the external KCM runs nothing.
            let owners = loop_owners(r, "node-ipam");
            (owners
                == [(
                    "cloud-controller-manager-0".to_string(),
                    CCM_LEASE.to_string(),
                )]
                && loop_owners(r, "node-route-controller").len() == 1)
                .then_some(())
                .ok_or(format!("node-ipam: {owners:?}"))
        }),
        ("19-ipam-both-allocate.yaml", |r| {
            let owners = loop_owners(r, "node-ipam");
            (owners.len() == 2)
                .then_some(())
                .ok_or(format!("node-ipam: {owners:?}"))
        }),
        ("04-ha-no-quiesce.yaml", |r| {
            // P2: a CCM started while in-tree KCMs still ran their cloud loops.
            let all = r.processes();
            let first_ccm = all
                .iter()
                .filter(|p| p.kind == ManagerKind::CloudControllerManager)
                .map(|p| p.started_ms)
                .min()
                .unwrap_or(0);
            all.iter()
                .any(|p| {
                    p.kind == ManagerKind::KubeControllerManager
                        && !p.cloud_loops.is_empty()
                        && p.alive_at(first_ccm)
                })
                .then_some(())
                .ok_or("no in-tree KCM overlapped the CCM".into())
        }),
        ("06-leader-migration-lease-ignored.yaml", |r| {
            let ccm = running(r, ManagerKind::CloudControllerManager);
            ccm.iter()
                .all(|c| c.cloud_loops["service-lb-controller"] == CCM_LEASE)
                .then_some(())
                .ok_or(format!("{ccm:#?}"))
        }),
        ("07-leader-migration-flag-missing.yaml", |r| {
            r.processes()
                .iter()
                .all(|p| !p.cloud_loops.values().any(|l| l == MIGRATION_LEASE))
                .then_some(())
                .ok_or("a process used the migration Lease".into())
        }),
        ("07-leader-migration-config.yaml", |r| {
            let ccm = running(r, ManagerKind::CloudControllerManager);
            ccm.iter()
                .all(|c| c.cloud_loops["service-lb-controller"] == MIGRATION_LEASE)
                .then_some(())
                .ok_or(format!("{ccm:#?}"))
        }),
        ("01-cold-switch-no-node-init.yaml", |r| {
            (running(r, ManagerKind::CloudNodeManager).is_empty()
                && loop_owners(r, "cloud-node-controller").is_empty())
            .then_some(())
            .ok_or("someone initialises nodes".into())
        }),
    ];
    for (file, check) in cases {
        let dir = Scratch::new("switch-variant");
        let mut cluster = small(&dir).await;
        let mut plan = plan_of(file);
        // Fewer replicas than the shipped files keep this loop short; the variant is the same.
        plan.switch.kcm_replicas = plan.switch.kcm_replicas.min(2);
        let roster = Roster::new();
        let deployment =
            Deployment::start_in_tree(&cluster, &plan, roster.clone(), RunRecord::new())
                .await
                .unwrap_or_else(|e| panic!("{file}: in-tree start: {e}"));
        let switched = deployment.switch(&cluster, &plan).await;
        let checked = check(&roster);
        deployment.shutdown().await;
        cluster.teardown().await.expect("teardown");
        switched.unwrap_or_else(|e| panic!("{file}: switch: {e}"));
        checked.unwrap_or_else(|e| panic!("{file}: {e}"));
    }
}

/// The fault scenarios inject during the switch: a CCM SIGKILLed as soon as it runs and the API
/// server restarted, both while the cold switch is under way; the switch still completes and
/// the restarted CCM holds its Lease.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn faults_during_the_switch_are_survived() {
    let dir = Scratch::new("switch-faults");
    let mut cluster = small(&dir).await;
    let plan = plan_of("fault-ccm-sigkill.yaml");
    let (roster, record) = (Roster::new(), RunRecord::new());
    let deployment = Deployment::start_in_tree(&cluster, &plan, roster.clone(), record.clone())
        .await
        .unwrap_or_else(|e| panic!("in-tree start: {e}"));
    let faults = deployment.process_faults();
    // Churn while the switch runs: one kubelet stops (its node then gets the external flags
    // for when it comes back, and is not flipped in the meantime).
    let (switched, churned, killed, restarted) = tokio::join!(
        deployment.switch(&cluster, &plan),
        async {
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            deployment.stop_kubelet("k8s-agentpool-0-1").await
        },
        faults.inject(&cluster, ProcessAction::KillCloudControllerManager),
        async {
            tokio::time::sleep(std::time::Duration::from_millis(300)).await;
            faults
                .inject(&cluster, ProcessAction::RestartKubeApiserver)
                .await
        },
    );
    switched.unwrap_or_else(|e| panic!("switch: {e}"));
    killed.unwrap_or_else(|e| panic!("kill: {e}"));
    restarted.unwrap_or_else(|e| panic!("restart: {e}"));
    churned.unwrap_or_else(|e| panic!("stop kubelet: {e}"));
    let stopped = deployment
        .kubelet_states()
        .await
        .into_iter()
        .find(|k| k.spec.node == "k8s-agentpool-0-1")
        .expect("kubelet");
    assert!(
        !stopped.running && stopped.spec.mode == Mode::External,
        "{stopped:?}"
    );
    deployment
        .start_kubelet("k8s-agentpool-0-1")
        .await
        .unwrap_or_else(|e| panic!("start kubelet: {e}"));
    let marks = record.marks();
    let at =
        |pred: &dyn Fn(&MarkKind) -> bool| marks.iter().find(|m| pred(&m.kind)).map(|m| m.at_ms);
    let started = at(&|k| *k == MarkKind::SwitchStarted).expect("switch started");
    at(&|k| *k == MarkKind::SwitchEnded).expect("switch ended");
    let kill = at(&|k| matches!(k, MarkKind::ProcessKilled { .. })).expect("a kill");
    let restart = at(&|k| *k == MarkKind::ApiServerRestarted).expect("a restart");
    // (Whether the kill lands before the switch returns depends on the machine: not asserted.)
    assert!(started <= kill, "{marks:#?}");
    assert!(started <= restart, "{marks:#?}");
    let client = cluster.kube_client().await.expect("client");
    let ccms = running(&roster, ManagerKind::CloudControllerManager);
    assert_eq!(ccms.len(), 1);
    let done = wait::until(
        "the restarted CCM leads",
        wait::DEADLINE,
        || Ok(()),
        || async {
            // Held on its host and renewed since it started (the killed one on the same host
            // can renew no more).
            let candidate = wait::Candidate {
                host: ccms[0].hostname.clone(),
                started_ms: ccms[0].started_ms,
            };
            wait::held_by(&client, CCM_LEASE, &[candidate])
                .await
                .map(|h| h.map(drop))
        },
    )
    .await;
    done.unwrap_or_else(|e| panic!("{e}"));
    deployment.shutdown().await;
    cluster.teardown().await.expect("teardown");
}
