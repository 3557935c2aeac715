//! The switch procedures and the rollback, step by step (see the module docs of [`super`]).

use std::collections::BTreeSet;
use std::time::Duration;

use ccm_names::leases;
use futures::{StreamExt, TryStreamExt};

use super::error::SwitchError;
use super::flags::{self, KcmRole};
use super::{Deployment, Stage, ccm_name, kcm_name, wait};
use crate::cluster::EmbeddedCluster;
use crate::intree::kubelet::{Mode, NodeIp};
use crate::record::MarkKind;
use crate::roster::ManagerKind;
use crate::scenario::{NodeInit, Procedure, ScenarioPlan};

/// CNMs started at once in a switch (a DaemonSet's rollout starts its Pods in parallel; the
/// bound keeps a 2-core machine responsive while Go binaries start).
const CNM_STARTS: usize = 8;

/// `--leader-elect-retry-period` when a command line does not set it (component-base's).
const DEFAULT_RETRY_PERIOD: Duration = Duration::from_secs(2);

/// How long a step of a rolling replacement lasts once its new replica is up (the CCM holds its
/// Lease) before the next old replica goes: a real control plane rolls one node in minutes
/// (image pull, readiness, `minReadySeconds`); compressed to 2 s, eight periods of the runner's
/// 250 ms sampler, so a state the rollout passes through (an in-tree leader and the CCM both
/// running a cloud loop, P2) lasts long enough to be seen. [infer]: the real duration varies.
pub const ROLLING_STEP: Duration = Duration::from_secs(2);

impl Deployment {
    /// Runs the procedure of the plan given to [`Deployment::start_in_tree`] (`plan` is accepted
    /// for the runner's convenience and not read; rollback: its cold switch). Marks `SwitchStarted` and
    /// `SwitchEnded` (also when a step fails); returns once every step ran and the CCM holds its
    /// Lease (and, with Leader Migration, a CCM holds the migration Lease).
    pub async fn switch(
        &self,
        _cluster: &EmbeddedCluster,
        _plan: &ScenarioPlan,
    ) -> Result<(), SwitchError> {
        if self.stage() == Stage::Switched {
            return Err(SwitchError::State(
                "the deployment is already switched".into(),
            ));
        }
        self.record.mark(MarkKind::SwitchStarted);
        self.set_switching(true).await;
        let result = match self.plan.switch.procedure {
            Procedure::Cold | Procedure::Rollback => self.cold().await,
            Procedure::Quiesce => self.quiesce().await,
            Procedure::LeaderMigration => self.leader_migration().await,
        };
        self.set_switching(false).await;
        self.record.mark(MarkKind::SwitchEnded);
        result
    }

    /// Back to in-tree: the CCM replicas and CNMs stop, each KCM restarts in-tree, kubelets flip
    /// back one by one; returns once every node is Ready and initialised and a KCM holds its
    /// Lease. Marks `RollbackStarted` and `RollbackEnded`.
    pub async fn rollback(
        &self,
        _cluster: &EmbeddedCluster,
        _plan: &ScenarioPlan,
    ) -> Result<(), SwitchError> {
        if self.stage() != Stage::Switched {
            return Err(SwitchError::State(
                "rollback needs a switched deployment".into(),
            ));
        }
        self.record.mark(MarkKind::RollbackStarted);
        let result = self.roll_back().await;
        self.record.mark(MarkKind::RollbackEnded);
        result
    }

    async fn roll_back(&self) -> Result<(), SwitchError> {
        let out_of_tree = [
            self.launcher.running(ManagerKind::CloudControllerManager),
            self.launcher.running(ManagerKind::CloudNodeManager),
        ]
        .concat();
        for name in out_of_tree {
            self.launcher.stop(&name).await?;
        }
        for i in 0..self.plan.switch.kcm_replicas {
            self.replace_kcm(
                i,
                KcmRole::InTree {
                    leader_migration: false,
                },
            )
            .await?;
        }
        self.enter_stage(Stage::RolledBack).await;
        self.flip_kubelets(Mode::InTree).await?;
        self.wait_in_tree().await
    }

    async fn cold(&self) -> Result<(), SwitchError> {
        for i in 0..self.plan.switch.kcm_replicas {
            self.replace_kcm(i, KcmRole::External).await?;
        }
        self.start_ccms().await?;
        self.finish().await
    }

    async fn quiesce(&self) -> Result<(), SwitchError> {
        if self.plan.switch.quiesce {
            for i in 0..self.plan.switch.kcm_replicas {
                self.replace_kcm(i, KcmRole::External).await?;
            }
            self.start_ccms().await?;
        } else {
            // P2: the CCM starts and takes its Lease while the in-tree KCMs still run their
            // cloud loops; the KCM replicas are then rolled one step at a time.
            self.start_ccms().await?;
            self.ccm_up().await?;
            for i in 0..self.plan.switch.kcm_replicas {
                tokio::time::sleep(ROLLING_STEP).await;
                self.replace_kcm(i, KcmRole::External).await?;
            }
        }
        self.finish().await
    }

    async fn leader_migration(&self) -> Result<(), SwitchError> {
        let kcms = self.plan.switch.kcm_replicas;
        let ccms = self.plan.switch.ccm_replicas;
        let migrating = flags::migration_flag(&self.plan);
        // Step 2: every KCM N restarted with Leader Migration, one at a time.
        for i in 0..kcms {
            self.replace_kcm(
                i,
                KcmRole::InTree {
                    leader_migration: migrating,
                },
            )
            .await?;
        }
        if migrating {
            let names = self.launcher.running(ManagerKind::KubeControllerManager);
            let hosts = self.launcher.hosts(&names);
            let alive = || self.launcher.check_alive(&names);
            wait::until(
                "a kube-controller-manager holding the migration Lease",
                wait::DEADLINE,
                alive,
                || wait::held_by(&self.client, leases::LEADER_MIGRATION, &hosts),
            )
            .await?;
        }
        // Steps 3-4: rolling replacement, one control-plane node at a time.
        for i in 0..kcms.max(ccms) {
            if i < ccms {
                self.start_ccm(i).await?;
                if i == 0 {
                    self.ccm_up().await?;
                }
                tokio::time::sleep(ROLLING_STEP).await;
            }
            if i < kcms {
                self.replace_kcm(i, KcmRole::External).await?;
            }
        }
        self.finish().await?;
        if flags::ccm_migrates(&self.plan) {
            if self
                .launcher
                .binary_given(ManagerKind::CloudControllerManager)
            {
                self.given_ccm_migrates().await?;
            } else {
                self.wait_ccm_lease(leases::LEADER_MIGRATION).await?;
            }
        }
        Ok(())
    }

    /// Waits until a given CCM build (e.g. the upstream CCM) holds the migration Lease, or
    /// shows that it ignores it: the Lease stays free for five of its retry periods after
    /// the KCMs' last term. Such a build runs its loops under its own Lease, and
    /// `single-writer` judges the rollout that way.
    async fn given_ccm_migrates(&self) -> Result<(), SwitchError> {
        let lease = leases::LEADER_MIGRATION;
        let retry = self
            .launcher
            .launch(&ccm_name(0))
            .and_then(|l| {
                l.args.iter().rev().find_map(|a| {
                    let v = a.strip_prefix("--leader-elect-retry-period=")?;
                    azure_ccm::go_duration::parse(v).ok()
                })
            })
            .unwrap_or(DEFAULT_RETRY_PERIOD);
        let since = crate::record::now_ms();
        let alive = || {
            let names = self.launcher.running(ManagerKind::CloudControllerManager);
            self.launcher.check_alive(&names)
        };
        let outcome = wait::until(
            &format!(
                "a cloud-controller-manager replica holding Lease {lease}, or leaving it free"
            ),
            wait::DEADLINE,
            alive,
            || async {
                let names = self.launcher.running(ManagerKind::CloudControllerManager);
                let hosts = self.launcher.hosts(&names);
                if hosts.is_empty() {
                    return Err("no cloud-controller-manager replica runs".to_owned());
                }
                wait::held_or_abandoned(&self.client, lease, &hosts, retry * 5, since).await
            },
        )
        .await?;
        if let wait::Campaign::Abandoned(why) = outcome {
            tracing::warn!(%why, "the given cloud-controller-manager ignores the migration Lease");
            for name in self.launcher.running(ManagerKind::CloudControllerManager) {
                self.launcher
                    .reassign_lease(&name, lease, leases::CLOUD_CONTROLLER_MANAGER);
            }
        }
        Ok(())
    }

    /// Common tail: CNMs, kubelet flips, the CCM's Lease.
    async fn finish(&self) -> Result<(), SwitchError> {
        self.enter_stage(Stage::Switched).await;
        if self.plan.switch.node_init == NodeInit::CloudNodeManager {
            // As a DaemonSet rolls out: several at a time, then again from the live list until
            // no node is left without one, so a node added meanwhile gets its CNM too.
            let mut handled = BTreeSet::new();
            loop {
                let batch: Vec<String> = self
                    .live_nodes()
                    .into_iter()
                    .filter(|n| !handled.contains(n))
                    .collect();
                if batch.is_empty() {
                    break;
                }
                handled.extend(batch.iter().cloned());
                let starts: Vec<_> = batch.iter().map(|node| self.ensure_cnm(node)).collect();
                futures::stream::iter(starts)
                    .buffer_unordered(CNM_STARTS)
                    .try_collect::<Vec<()>>()
                    .await?;
            }
        }
        self.flip_kubelets(Mode::External).await?;
        self.ccm_up().await
    }

    /// Waits until the CCM is up: a running replica holds its main Lease (with
    /// `--leader-elect=false`, started is up). From then on it runs every loop its Lease
    /// governs (and, migrating, waits for the migration Lease for the others).
    async fn ccm_up(&self) -> Result<(), SwitchError> {
        let elects = self
            .launcher
            .launch(&ccm_name(0))
            .is_none_or(|l| !l.args.iter().any(|a| a == "--leader-elect=false"));
        if elects {
            self.wait_ccm_lease(leases::CLOUD_CONTROLLER_MANAGER)
                .await?;
        }
        Ok(())
    }

    /// Waits until a running CCM replica holds `lease`; the replicas and their hosts are
    /// read at each poll, as a process fault may replace one meanwhile.
    async fn wait_ccm_lease(&self, lease: &str) -> Result<(), SwitchError> {
        let alive = || {
            let names = self.launcher.running(ManagerKind::CloudControllerManager);
            self.launcher.check_alive(&names)
        };
        wait::until(
            &format!("a cloud-controller-manager replica holding Lease {lease}"),
            wait::DEADLINE,
            alive,
            || async {
                let names = self.launcher.running(ManagerKind::CloudControllerManager);
                let hosts = self.launcher.hosts(&names);
                if hosts.is_empty() {
                    return Err("no cloud-controller-manager replica runs".to_owned());
                }
                wait::held_by(&self.client, lease, &hosts).await
            },
        )
        .await?;
        Ok(())
    }

    async fn start_ccms(&self) -> Result<(), SwitchError> {
        for i in 0..self.plan.switch.ccm_replicas {
            self.start_ccm(i).await?;
        }
        Ok(())
    }

    /// Stops KCM replica `i` (if it runs) and starts it again as `role`.
    async fn replace_kcm(&self, i: u32, role: KcmRole) -> Result<(), SwitchError> {
        let name = kcm_name(i);
        if self.launcher.launch(&name).is_some() {
            self.launcher.stop(&name).await?;
        }
        self.start_kcm(i, role).await
    }

    /// Flips every kubelet to `mode`, one by one; a stopped kubelet gets the new flags for when
    /// it starts again.
    async fn flip_kubelets(&self, mode: Mode) -> Result<(), SwitchError> {
        let node_ip = match mode {
            Mode::External => self.external_node_ip(),
            Mode::InTree => NodeIp::Unset,
        };
        // Nodes are picked one at a time under the kubelets' lock, so one added meanwhile (in
        // the old mode, before the stage changed) is flipped too.
        let mut handled = BTreeSet::new();
        loop {
            let mut kubelets = self.kubelets.lock().await;
            let next = self
                .state()
                .nodes
                .keys()
                .find(|n| !handled.contains(*n))
                .cloned();
            let Some(node) = next else { break };
            handled.insert(node.clone());
            kubelets.reconfigure(&node, mode, node_ip.clone())?;
            if self.state().stopped.contains(&node) {
                continue;
            }
            kubelets.flip(&node, mode).await?;
            drop(kubelets);
            self.record.mark(MarkKind::KubeletFlipped {
                node,
                mode: match mode {
                    Mode::InTree => "azure".into(),
                    Mode::External => "external".into(),
                },
            });
        }
        Ok(())
    }
}
