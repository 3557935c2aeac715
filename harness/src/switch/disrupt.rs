//! Process faults: a CCM or CNM SIGKILLed and started again as its Deployment or DaemonSet
//! would, and the API server restarted on the same address with the same state. A
//! [`ProcessFaults`] handle injects them while a procedure runs (the `during` phase).

use std::time::Duration;

use ccm_names::leases;

use super::error::SwitchError;
use super::process::Launcher;
use super::{Deployment, wait};
use crate::cluster::EmbeddedCluster;
use crate::record::{MarkKind, RunRecord};
use crate::roster::ManagerKind;
use crate::scenario::ProcessAction;

/// Pause between a kill and the replacement's start [infer: a Pod replacement takes about that
/// on a warm node; the harness has no image pull].
pub const RESTART_DELAY: Duration = Duration::from_secs(1);

/// Injects process faults; cheap to clone and usable while [`Deployment::switch`] runs (it
/// shares the deployment's managers).
#[derive(Clone)]
pub struct ProcessFaults {
    launcher: Launcher,
    client: kube::Client,
    record: RunRecord,
}

impl std::fmt::Debug for ProcessFaults {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProcessFaults").finish_non_exhaustive()
    }
}

impl ProcessFaults {
    /// Injects `action`: `kill-cloud-controller-manager` SIGKILLs the CCM replica holding Lease
    /// `cloud-controller-manager` (the first replica when none holds it; waits for a replica to
    /// run when the switch has not started one yet) and starts it again after
    /// [`RESTART_DELAY`]; `kill-kube-controller-manager` does the same to the KCM holding Lease
    /// `kube-controller-manager`; `kill-cloud-node-manager` does the same to the first CNM;
    /// `restart-kube-apiserver` restarts the API server (same port, same objects).
    pub async fn inject(
        &self,
        cluster: &EmbeddedCluster,
        action: ProcessAction,
    ) -> Result<(), SwitchError> {
        match action {
            ProcessAction::KillCloudControllerManager => {
                let victim = self
                    .leader(
                        ManagerKind::CloudControllerManager,
                        leases::CLOUD_CONTROLLER_MANAGER,
                    )
                    .await?;
                self.kill_and_restart(&victim).await
            }
            ProcessAction::KillKubeControllerManager => {
                let victim = self
                    .leader(
                        ManagerKind::KubeControllerManager,
                        leases::KUBE_CONTROLLER_MANAGER,
                    )
                    .await?;
                self.kill_and_restart(&victim).await
            }
            ProcessAction::KillCloudNodeManager => {
                let names = self.wait_running(ManagerKind::CloudNodeManager).await?;
                let victim = names
                    .first()
                    .cloned()
                    .ok_or_else(|| SwitchError::State("no CNM runs".into()))?;
                self.kill_and_restart(&victim).await
            }
            ProcessAction::RestartKubeApiserver => {
                cluster.restart_apiserver().await?;
                self.record.mark(MarkKind::ApiServerRestarted);
                Ok(())
            }
        }
    }

    /// The running manager of `kind` holding Lease `lease` (the first when none holds it),
    /// waiting until one runs.
    async fn leader(&self, kind: ManagerKind, lease: &str) -> Result<String, SwitchError> {
        let names = self.wait_running(kind).await?;
        let holder = wait::lease_holder(&self.client, lease).await.ok().flatten();
        names
            .iter()
            .find(|n| holder.as_deref().is_some_and(|h| self.launcher.holds(n, h)))
            .or_else(|| names.first())
            .cloned()
            .ok_or_else(|| SwitchError::State(format!("no {kind:?} runs")))
    }

    /// The running managers of `kind`, waiting until there is one.
    async fn wait_running(&self, kind: ManagerKind) -> Result<Vec<String>, SwitchError> {
        wait::until(
            &format!("a running {kind:?} to disrupt"),
            wait::DEADLINE,
            || Ok(()),
            || async {
                let names = self.launcher.running(kind);
                Ok((!names.is_empty()).then_some(names))
            },
        )
        .await
    }

    async fn kill_and_restart(&self, name: &str) -> Result<(), SwitchError> {
        let launch = self.launcher.kill(name)?;
        tokio::time::sleep(RESTART_DELAY).await;
        self.launcher.start(launch).await
    }
}

impl Deployment {
    /// A handle injecting process faults, usable while the switch runs.
    pub fn process_faults(&self) -> ProcessFaults {
        ProcessFaults {
            launcher: self.launcher.clone(),
            client: self.client.clone(),
            record: self.record.clone(),
        }
    }

    /// Injects `action` (see [`ProcessFaults::inject`]) between procedure steps.
    pub async fn disrupt(
        &self,
        cluster: &EmbeddedCluster,
        action: ProcessAction,
    ) -> Result<(), SwitchError> {
        self.process_faults().inject(cluster, action).await
    }
}
