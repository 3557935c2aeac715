//! The switch from the in-tree Azure provider to the out-of-tree CCM, on an embedded cluster:
//! [`Deployment::start_in_tree`] runs the in-tree cluster (stand-in KCM replicas with
//! `--cloud-provider=azure`, simulated kubelets in in-tree mode), [`Deployment::switch`] runs the
//! plan's procedure (cold, quiesce, leader-migration, rollback = cold first), and
//! [`Deployment::rollback`] goes back. The CCM and the CNMs are the production binaries started
//! as child processes with the flags of the generated manifests ([`flags`] lists every local
//! change). Every manager is registered in the [`Roster`] with its cloud loops and the Lease
//! governing each, and every start, stop, kill and kubelet flip is marked in the [`RunRecord`].
//!
//! The managers run under the cluster's supervisor (logs `<artifacts>/logs/<name>.log`, earlier
//! runs of a restarted one `<name>.<n>.log`), so the cluster's teardown and Ctrl-C handler stop
//! them too. Every method takes `&self`: the `during` phase's churn and faults run while
//! [`Deployment::switch`] does ([`disrupt::ProcessFaults`] is a cloneable handle for spawned
//! tasks).
//!
//! Procedures (migration.md §2.5, §8 scenarios 1, 2, 4, 5, 8):
//! - cold: each KCM restarted external (no cloud loop; node IPAM only when it still allocates),
//!   then the CCM replicas, one CNM per node (`nodeInit: cloud-node-manager`), then kubelets
//!   flipped to external one by one with `kubeletFlags`;
//! - quiesce: the KCM replicas switched to external one at a time, then the CCM started from 0
//!   replicas; `quiesce: false` starts the CCM first and, once it holds its Lease, rolls the KCM
//!   replicas one [`ROLLING_STEP`] apart (the in-tree leader and the CCM both run cloud loops
//!   meanwhile: P2);
//! - leader-migration: KCM replicas restarted one at a time with `--enable-leader-migration` and
//!   the KCMs' LeaderMigrationConfiguration, then a rolling replacement: CCM replica i starts
//!   (same procedure for its file; the first one until it holds its main Lease) and runs for a
//!   [`ROLLING_STEP`], then KCM replica i is replaced by an external one; CNMs and the kubelet
//!   flips follow;
//! - rollback (procedure `rollback`): the CCM and CNMs stop, the KCMs restart in-tree, the kubelets
//!   flip back to in-tree.
//!
//! The CCM and CNM binaries are ours unless `harness run --ccm-binary/--cnm-binary` gives others
//! ([`binaries`]). With Leader Migration, a given CCM that holds no migration Lease once the KCMs
//! left it (the wait's deadline) is taken to ignore the Lease, as the upstream Azure CCM does
//! (migration.md P2: "anchor ignores leader migration"): the switch goes on and the roster reassigns its migrated loops to its own
//! Lease, so `single-writer` judges the rollout by that; ours breaking that way still fails the
//! switch.
//!
//! Inferred, not verified ([infer]):
//! - a killed CCM or CNM is started again after [`disrupt::RESTART_DELAY`] (a Deployment or
//!   DaemonSet replaces the Pod; the real delay depends on the kubelet's back-off and image pull);
//! - a node whose VM is deleted has its kubelet stopped and its Node marked unreachable at once
//!   (the node-lifecycle grace period compressed, as `Kubelets::stop` does);
//! - a VM that is not running when the deployment starts (a topology's `powerState:
//!   deallocated`) never had its Node registered: its kubelet starts stopped;
//! - the stand-in KCM hosts only the cloud loops: an external KCM is a process holding the
//!   `kube-controller-manager` Lease with no cloud loop (see [`flags`]).

pub mod binaries;
pub mod disrupt;
mod error;
pub mod files;
pub mod flags;
pub mod loops;
pub mod migration;
pub mod options;
mod ports;
mod procedures;
pub mod process;
pub mod wait;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

pub use error::SwitchError;
pub use procedures::ROLLING_STEP;

use crate::cluster::{ClusterError, ClusterProvider, EmbeddedCluster};
use crate::intree::kubelet::{
    KubeVersion, KubeletSpec, KubeletState, Kubelets, Mode, NodeIp, Timing,
};
use crate::record::{MarkKind, RunRecord};
use crate::roster::{ManagerKind, Roster};
use crate::scenario::{NodeInit, ScenarioPlan};
use crate::supervisor::Supervisor;
use binaries::ManagerBinaries;
use flags::{KcmRole, LocalFiles};
use process::{Launch, Launcher};

/// Where the deployment stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// In-tree: KCMs run the cloud loops, kubelets initialise their Nodes.
    InTree,
    /// Switched: the CCM (and CNMs) run the cloud loops, kubelets are external.
    Switched,
    /// Rolled back to in-tree after a switch.
    RolledBack,
}

/// What changes while the deployment runs (nodes come and go, kubelets stop).
#[derive(Debug)]
struct State {
    /// Node name → its IMDS base URL.
    nodes: BTreeMap<String, String>,
    /// Nodes whose kubelet is stopped (stopKubelet, VM deleted or powered off).
    stopped: BTreeSet<String>,
    stage: Stage,
    /// A switch to out-of-tree is under way: a node joining now gets the external kubelet (the
    /// node pool's template changed when the switch began), so it needs the cloud to initialise it.
    switching: bool,
}

/// The managers and kubelets of one parity run on an embedded cluster. Every method takes
/// `&self`, so the runner can apply the `during` phase's workload, churn and faults while
/// [`Deployment::switch`] runs (e.g. in one `tokio::join!`); each step locks only what it
/// changes.
pub struct Deployment {
    /// The plan given to [`Deployment::start_in_tree`] (the one the procedures follow).
    plan: ScenarioPlan,
    files: LocalFiles,
    launcher: Launcher,
    kubelets: tokio::sync::Mutex<Kubelets>,
    client: kube::Client,
    record: RunRecord,
    version: KubeVersion,
    state: Mutex<State>,
    /// One lock per node, so its CNM starts once while CNMs of different nodes start at once.
    cnm_gates: Mutex<BTreeMap<String, Arc<tokio::sync::Mutex<()>>>>,
}

impl std::fmt::Debug for Deployment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Deployment")
            .field("plan", &self.plan.name)
            .field("state", &*self.state())
            .finish_non_exhaustive()
    }
}

/// Supervisor name of KCM replica `i`.
pub fn kcm_name(i: u32) -> String {
    format!("kube-controller-manager-{i}")
}

/// The simulated kubelets' loop periods in a run. The status post (and, in tree, the cloud
/// address refresh before it) every 2 s instead of the kubelet's 10 s `nodeStatusUpdateFrequency`:
/// speed only, so a node's view of the cloud catches up within the runner's settle quiet period
/// (`run::settle`) instead of after it.
pub const KUBELET_TIMING: Timing = Timing {
    lease_renew: std::time::Duration::from_secs(10),
    status_update: std::time::Duration::from_secs(2),
    retry: std::time::Duration::from_secs(1),
};

/// How often [`Deployment::exited`] looks for managers that ended on their own.
pub const EXIT_POLL: std::time::Duration = std::time::Duration::from_millis(500);

/// Supervisor name of CCM replica `i`.
pub fn ccm_name(i: u32) -> String {
    format!("cloud-controller-manager-{i}")
}

/// Supervisor name of `node`'s CNM.
pub fn cnm_name(node: &str) -> String {
    format!("cloud-node-manager-{node}")
}

impl Deployment {
    /// Starts the in-tree cluster: `kcm_replicas` stand-in KCMs (`--cloud-provider=azure`,
    /// leader election on) and an in-tree kubelet per node; returns once every node is
    /// registered, Ready and initialised (providerID set) and a KCM holds Lease
    /// `kube-system/kube-controller-manager`. On failure everything started is stopped.
    pub async fn start_in_tree(
        cluster: &EmbeddedCluster,
        plan: &ScenarioPlan,
        roster: Roster,
        record: RunRecord,
    ) -> Result<Deployment, SwitchError> {
        Self::start_in_tree_with(cluster, plan, roster, record, ManagerBinaries::default()).await
    }

    /// [`Deployment::start_in_tree`], with `binaries` as the CCM and CNM the switch starts (a
    /// given one behind the fake's CONNECT proxy, when the fake runs one).
    pub async fn start_in_tree_with(
        cluster: &EmbeddedCluster,
        plan: &ScenarioPlan,
        roster: Roster,
        record: RunRecord,
        binaries: ManagerBinaries,
    ) -> Result<Deployment, SwitchError> {
        let version: KubeVersion = plan.kubernetes_version.parse().map_err(
            |e: crate::intree::kubelet::profile::BadVersion| SwitchError::Plan {
                scenario: plan.name.clone(),
                reason: format!("kubernetesVersion: {}", e.0),
            },
        )?;
        let files = files::prepare(cluster, plan)?;
        let client = cluster.kube_client().await?;
        let ca = cluster.printed().ca.clone();
        let kubelets = Kubelets::new(client.clone(), &ca, KUBELET_TIMING)?;
        let mut launcher =
            Launcher::new(cluster.supervisor().clone(), &ca, roster, record.clone())?
                .with_binaries(binaries);
        if let Some(admin) = cluster.fake_admin() {
            launcher = launcher.with_admin(admin.clone());
        }
        let nodes = cluster
            .nodes()
            .iter()
            .map(|n| {
                let url = n
                    .imds
                    .clone()
                    .unwrap_or_else(|| format!("{}/imds/{}", cluster.printed().base(), n.name));
                (n.name.clone(), url)
            })
            .collect();
        let mut powered_off = BTreeSet::new();
        if let Some(admin) = cluster.fake_admin() {
            for node in cluster.nodes() {
                let vm = admin
                    .describe_node(&node.name)
                    .await
                    .map_err(ClusterError::from)?;
                if vm["powerState"].as_str().is_some_and(|p| p != "running") {
                    powered_off.insert(node.name.clone());
                }
            }
        }
        let deployment = Deployment {
            plan: plan.clone(),
            files,
            launcher,
            kubelets: tokio::sync::Mutex::new(kubelets),
            client,
            record,
            version,
            state: Mutex::new(State {
                nodes,
                stopped: BTreeSet::new(),
                stage: Stage::InTree,
                switching: false,
            }),
            cnm_gates: Mutex::new(BTreeMap::new()),
        };
        match deployment.bring_up_in_tree(powered_off).await {
            Ok(()) => Ok(deployment),
            Err(e) => {
                deployment.shutdown().await;
                Err(e)
            }
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// KCMs, then one kubelet per node; the kubelet of a VM that is not running is stopped at
    /// once (it never registers: IMDS does not answer for a stopped VM) and starts with
    /// [`Deployment::start_kubelet`] once the scenario powers the VM on.
    async fn bring_up_in_tree(&self, powered_off: BTreeSet<String>) -> Result<(), SwitchError> {
        for i in 0..self.plan.switch.kcm_replicas {
            self.start_kcm(
                i,
                KcmRole::InTree {
                    leader_migration: false,
                },
            )
            .await?;
        }
        let nodes: Vec<(String, String)> = self
            .state()
            .nodes
            .iter()
            .map(|(n, u)| (n.clone(), u.clone()))
            .collect();
        let mut kubelets = self.kubelets.lock().await;
        for (node, imds_url) in nodes {
            kubelets.add(KubeletSpec {
                node: node.clone(),
                imds_url,
                mode: Mode::InTree,
                version: self.version,
                node_ip: NodeIp::Unset,
            })?;
            if powered_off.contains(&node) {
                kubelets.stop(&node, false).await?;
                self.state().stopped.insert(node);
            }
        }
        drop(kubelets);
        self.wait_in_tree().await
    }

    /// Nodes whose kubelet runs.
    fn live_nodes(&self) -> Vec<String> {
        let state = self.state();
        state
            .nodes
            .keys()
            .filter(|n| !state.stopped.contains(*n))
            .cloned()
            .collect()
    }

    /// Every node with a running kubelet Ready and initialised, and a running KCM holding its
    /// Lease.
    async fn wait_in_tree(&self) -> Result<(), SwitchError> {
        let names = self.live_nodes();
        let kcms = self.launcher.running(ManagerKind::KubeControllerManager);
        let alive = || self.launcher.check_alive(&kcms);
        wait::until(
            "every node Ready with a providerID",
            wait::DEADLINE,
            alive,
            || wait::nodes_initialised(&self.client, &names),
        )
        .await?;
        let hosts = self.launcher.hosts(&kcms);
        wait::until(
            "a kube-controller-manager replica holding its Lease",
            wait::DEADLINE,
            alive,
            || {
                wait::held_by(
                    &self.client,
                    ccm_names::leases::KUBE_CONTROLLER_MANAGER,
                    &hosts,
                )
            },
        )
        .await?;
        Ok(())
    }

    /// Where the deployment stands.
    pub fn stage(&self) -> Stage {
        self.state().stage
    }

    /// Changes the stage under the kubelets' lock: a node added concurrently either sees the
    /// old stage and is in the node list before the procedure walks it, or sees the new one.
    async fn enter_stage(&self, stage: Stage) {
        let _kubelets = self.kubelets.lock().await;
        self.state().stage = stage;
    }

    /// Marks a switch under way (or over) under the kubelets' lock, as [`Self::enter_stage`].
    async fn set_switching(&self, switching: bool) {
        let _kubelets = self.kubelets.lock().await;
        self.state().switching = switching;
    }

    /// The command-line files the managers read.
    pub fn files(&self) -> &LocalFiles {
        &self.files
    }

    /// The supervisor of the manager processes: the cluster's (shared), so the cluster's Ctrl-C
    /// teardown and `teardown()` stop the managers too.
    pub fn supervisor(&self) -> &Supervisor {
        self.launcher.supervisor()
    }

    /// What each simulated kubelet is and did (for samples and tests).
    pub async fn kubelet_states(&self) -> Vec<KubeletState> {
        self.kubelets.lock().await.states()
    }

    /// The kubelet mode of the current stage.
    fn kubelet_mode(&self) -> Mode {
        let state = self.state();
        match state.stage {
            Stage::Switched => Mode::External,
            Stage::InTree if state.switching => Mode::External,
            Stage::InTree | Stage::RolledBack => Mode::InTree,
        }
    }

    /// `--node-ip` of kubelets flipped to external (`kubeletFlags`).
    fn external_node_ip(&self) -> NodeIp {
        self.plan
            .switch
            .kubelet_flags
            .iter()
            .find(|(k, _)| k.trim_start_matches('-') == "node-ip")
            .map_or(NodeIp::Unset, |(_, v)| {
                NodeIp::Fixed(v.split(',').map(|s| s.trim().to_owned()).collect())
            })
    }

    fn cnms_run(&self) -> bool {
        self.stage() == Stage::Switched && self.plan.switch.node_init == NodeInit::CloudNodeManager
    }

    /// A VM the runner just added gets a kubelet in the current mode, and a CNM if CNMs run.
    pub async fn add_node(&self, cluster: &EmbeddedCluster, node: &str) -> Result<(), SwitchError> {
        let imds_url = format!("{}/imds/{node}", cluster.printed().base());
        let mut kubelets = self.kubelets.lock().await;
        let mode = self.kubelet_mode();
        let node_ip = match mode {
            Mode::External => self.external_node_ip(),
            Mode::InTree => NodeIp::Unset,
        };
        kubelets.add(KubeletSpec {
            node: node.to_owned(),
            imds_url: imds_url.clone(),
            mode,
            version: self.version,
            node_ip,
        })?;
        self.state().nodes.insert(node.to_owned(), imds_url);
        drop(kubelets);
        if self.cnms_run() {
            self.ensure_cnm(node).await?;
        }
        Ok(())
    }

    /// The command line of every kind of manager the plan runs (in-tree and external KCM, CCM,
    /// a CNM), whose loop periods decide how long a phase takes to show its effects.
    pub fn command_lines(&self) -> Vec<Vec<String>> {
        let lines = [
            flags::kcm(
                &self.plan,
                &self.files,
                KcmRole::InTree {
                    leader_migration: flags::migration_flag(&self.plan),
                },
            ),
            flags::kcm(&self.plan, &self.files, KcmRole::External),
            flags::ccm(&self.plan, &self.files),
        ];
        lines
            .into_iter()
            .filter_map(Result::ok)
            .map(|l| l.args)
            .collect()
    }

    /// Resolves when a manager the deployment started and did not stop or kill has exited on
    /// its own (a refused flag, a crash), polled every [`EXIT_POLL`]; never otherwise. A run
    /// races its phases against it, so such a manager ends the scenario within a second.
    pub async fn exited(&self) -> SwitchError {
        loop {
            if let Some(exited) = self.launcher.unexpected_exit() {
                return SwitchError::Exited(exited);
            }
            tokio::time::sleep(EXIT_POLL).await;
        }
    }

    /// Stops `node`'s kubelet (its Node goes NotReady; the VM keeps running).
    pub async fn stop_kubelet(&self, node: &str) -> Result<(), SwitchError> {
        // The stopped set changes under the kubelets' lock, so a flip never restarts a kubelet
        // stopped in between.
        let mut kubelets = self.kubelets.lock().await;
        kubelets.stop(node, true).await?;
        self.state().stopped.insert(node.to_owned());
        drop(kubelets);
        self.record.mark(MarkKind::KubeletStopped {
            node: node.to_owned(),
        });
        Ok(())
    }

    /// Starts `node`'s stopped kubelet again (with the flags of the current stage).
    pub async fn start_kubelet(&self, node: &str) -> Result<(), SwitchError> {
        let mut kubelets = self.kubelets.lock().await;
        kubelets.start(node)?;
        self.state().stopped.remove(node);
        drop(kubelets);
        self.record.mark(MarkKind::KubeletStarted {
            node: node.to_owned(),
        });
        Ok(())
    }

    /// `node`'s VM was deleted: its kubelet stops (Node marked unreachable) and its CNM stops.
    pub async fn remove_node(&self, node: &str) -> Result<(), SwitchError> {
        let mut kubelets = self.kubelets.lock().await;
        if !self.state().stopped.contains(node) {
            kubelets.stop(node, true).await?;
            self.state().stopped.insert(node.to_owned());
        }
        drop(kubelets);
        let cnm = cnm_name(node);
        if self.launcher.launch(&cnm).is_some() {
            self.launcher.stop(&cnm).await?;
        }
        Ok(())
    }

    /// Stops everything the deployment started (kubelets, then CNMs, CCMs and KCMs); the
    /// cluster's own teardown stops the fake and the API server.
    pub async fn shutdown(&self) {
        self.kubelets.lock().await.shutdown().await;
        for error in self.launcher.stop_all().await {
            tracing::warn!(%error, "stopping a manager");
        }
    }

    async fn start_kcm(&self, i: u32, role: KcmRole) -> Result<(), SwitchError> {
        let line = flags::kcm(&self.plan, &self.files, role)?;
        let migrated = match role {
            KcmRole::InTree {
                leader_migration: true,
            } => migration::migrated_loops(
                &read(&self.files.kcm_migration),
                ccm_names::leases::KUBE_CONTROLLER_MANAGER,
            ),
            _ => Vec::new(),
        };
        self.launcher
            .start(Launch {
                name: kcm_name(i),
                kind: ManagerKind::KubeControllerManager,
                host: kcm_name(i),
                args: line.args,
                migrated,
            })
            .await
    }

    async fn start_ccm(&self, i: u32) -> Result<(), SwitchError> {
        let line = flags::ccm(&self.plan, &self.files)?;
        let migrated = if flags::ccm_migrates(&self.plan) {
            migration::migrated_loops(
                &read(&self.files.ccm_migration),
                ccm_names::leases::CLOUD_CONTROLLER_MANAGER,
            )
        } else {
            Vec::new()
        };
        self.launcher
            .start(Launch {
                name: ccm_name(i),
                kind: ManagerKind::CloudControllerManager,
                host: ccm_name(i),
                args: line.args,
                migrated,
            })
            .await
    }

    /// Starts `node`'s CNM unless it runs (the switch and `add_node` may both want it).
    async fn ensure_cnm(&self, node: &str) -> Result<(), SwitchError> {
        let gate = Arc::clone(
            self.cnm_gates
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .entry(node.to_owned())
                .or_default(),
        );
        let _gate = gate.lock().await;
        if self.launcher.launch(&cnm_name(node)).is_some() {
            return Ok(());
        }
        self.start_cnm(node).await
    }

    async fn start_cnm(&self, node: &str) -> Result<(), SwitchError> {
        let line = flags::cnm(&self.plan, &self.files, node)?;
        self.launcher
            .start(Launch {
                name: cnm_name(node),
                kind: ManagerKind::CloudNodeManager,
                host: node.to_owned(),
                args: line.args,
                migrated: Vec::new(),
            })
            .await
    }
}

/// A file the deployment wrote (empty when unreadable: the process then says why).
fn read(path: &std::path::Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}
