//! Process faults: a CCM or CNM SIGKILLed and started again as its Deployment or DaemonSet
//! would, and the API server restarted on the same address with the same state.

use std::time::Duration;

use ccm_names::leases;

use super::error::SwitchError;
use super::{Deployment, wait};
use crate::cluster::EmbeddedCluster;
use crate::record::MarkKind;
use crate::roster::ManagerKind;
use crate::scenario::ProcessAction;

/// Pause between a kill and the replacement's start [infer: a Pod replacement takes about that
/// on a warm node; the harness has no image pull].
pub const RESTART_DELAY: Duration = Duration::from_secs(1);

impl Deployment {
    /// Injects `action`: `kill-cloud-controller-manager` SIGKILLs the CCM replica holding Lease
    /// `cloud-controller-manager` (the first replica when none does) and restarts it;
    /// `kill-cloud-node-manager` SIGKILLs the first running CNM and restarts it;
    /// `restart-kube-apiserver` restarts the API server (same port, same objects).
    pub async fn disrupt(
        &mut self,
        cluster: &mut EmbeddedCluster,
        action: ProcessAction,
    ) -> Result<(), SwitchError> {
        match action {
            ProcessAction::KillCloudControllerManager => {
                let names = self.launcher.running(ManagerKind::CloudControllerManager);
                let holder = wait::lease_holder(&self.client, leases::CLOUD_CONTROLLER_MANAGER)
                    .await
                    .ok()
                    .flatten();
                let victim = names
                    .iter()
                    .find(|n| holder.is_some() && self.launcher.identity(n) == holder)
                    .or_else(|| names.first())
                    .cloned()
                    .ok_or_else(|| {
                        SwitchError::State("kill-cloud-controller-manager: no CCM runs".into())
                    })?;
                self.kill_and_restart(&victim).await
            }
            ProcessAction::KillCloudNodeManager => {
                let victim = self
                    .launcher
                    .running(ManagerKind::CloudNodeManager)
                    .into_iter()
                    .next()
                    .ok_or_else(|| {
                        SwitchError::State("kill-cloud-node-manager: no CNM runs".into())
                    })?;
                self.kill_and_restart(&victim).await
            }
            ProcessAction::RestartKubeApiserver => {
                cluster.restart_apiserver().await?;
                self.record.mark(MarkKind::ApiServerRestarted);
                Ok(())
            }
        }
    }

    async fn kill_and_restart(&mut self, name: &str) -> Result<(), SwitchError> {
        let launch = self.launcher.kill(name)?;
        tokio::time::sleep(RESTART_DELAY).await;
        self.launcher.start(launch).await
    }
}
