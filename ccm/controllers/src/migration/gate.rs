//! Enforcement: the main lease first, then the migration lease; which classes may run; loss of
//! either lease is the on-lost signal.

use kube::Client;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::classify::ControllerClass;
use crate::leader::{ElectionConfig, ElectionConfigError, LeaderHandle, LeaderState};

/// What the process may run right now.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GateState {
    /// Holding the main lease.
    pub main: bool,
    /// Holding the migration lease (always false without migration).
    pub migration: bool,
    /// `namespace/name` of a lease that was lost: stop everything and exit non-zero.
    pub lost: Option<String>,
    /// Graceful shutdown began: stop everything.
    pub stopping: bool,
}

impl GateState {
    /// Whether a controller of `class` may run in this state.
    pub fn may_run(&self, class: &ControllerClass) -> bool {
        if self.lost.is_some() || self.stopping {
            return false;
        }
        match class {
            ControllerClass::NotMigrated => self.main,
            ControllerClass::Migrated => self.main && self.migration,
            ControllerClass::Unowned { .. } => false,
        }
    }
}

/// The running pair of elections (main, then migration when configured).
pub struct LeaseGate {
    state: watch::Receiver<GateState>,
    stop: watch::Sender<bool>,
    task: Option<JoinHandle<()>>,
}

impl LeaseGate {
    /// Campaigns for `main`, and once it leads, for `migration` (same identity and timings).
    pub fn spawn(
        client: Client,
        main: ElectionConfig,
        migration: Option<ElectionConfig>,
    ) -> Result<Self, ElectionConfigError> {
        main.validate()?;
        if let Some(m) = &migration {
            m.validate()?;
        }
        let (state_tx, state) = watch::channel(GateState::default());
        let (stop, stop_rx) = watch::channel(false);
        let task = tokio::spawn(run(client, main, migration, state_tx, stop_rx));
        Ok(LeaseGate {
            state,
            stop,
            task: Some(task),
        })
    }

    /// A receiver of every state change; controllers start and stop on `may_run`.
    pub fn subscribe(&self) -> watch::Receiver<GateState> {
        self.state.clone()
    }

    /// Resolves with the lost lease when either lease is lost (the binary exits non-zero).
    pub async fn lost(&self) -> String {
        let mut rx = self.state.clone();
        match rx.wait_for(|s| s.lost.is_some()).await {
            Ok(s) => s.lost.clone().unwrap_or_default(),
            Err(_) => String::from("leader election task ended"),
        }
    }

    /// Graceful shutdown after the controllers stopped: release the migration lease, then the main one.
    pub async fn shutdown(mut self) {
        let _ = self.stop.send(true);
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

impl Drop for LeaseGate {
    /// Dropping without `shutdown` abandons both leases without releasing them (like a crash).
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

async fn run(
    client: Client,
    main: ElectionConfig,
    migration: Option<ElectionConfig>,
    state: watch::Sender<GateState>,
    mut stop: watch::Receiver<bool>,
) {
    let Ok(main) = LeaderHandle::spawn(client.clone(), main) else {
        return;
    };
    let mut main_rx = main.subscribe();
    let mut second: Option<(LeaderHandle, watch::Receiver<LeaderState>)> = None;
    loop {
        let main_state = main_rx.borrow_and_update().clone();
        match main_state {
            LeaderState::Lost => {
                lose(&state, main.lease());
                return;
            }
            LeaderState::Leading if second.is_none() => {
                state.send_modify(|s| s.main = true);
                // Only now campaign for the migration lease, so no manager can hold the migration
                // lease without its main lease (upstream's `MigrationReady`).
                if let Some(config) = &migration {
                    match LeaderHandle::spawn(client.clone(), config.clone()) {
                        Ok(handle) => {
                            let rx = handle.subscribe();
                            second = Some((handle, rx));
                        }
                        Err(_) => {
                            lose(&state, &format!("{}/{}", config.namespace, config.name));
                            return;
                        }
                    }
                }
            }
            _ => {}
        }
        if let Some((handle, rx)) = second.as_mut() {
            let migration_state = rx.borrow_and_update().clone();
            match migration_state {
                LeaderState::Lost => {
                    lose(&state, handle.lease());
                    return;
                }
                LeaderState::Leading => {
                    state.send_if_modified(|s| !std::mem::replace(&mut s.migration, true));
                }
                _ => {}
            }
        }
        tokio::select! {
            () = async { let _ = stop.wait_for(|s| *s).await; } => {
                state.send_modify(|s| { s.stopping = true; s.main = false; s.migration = false; });
                if let Some((handle, _)) = second.take() {
                    handle.shutdown().await;
                }
                main.shutdown().await;
                return;
            }
            changed = main_rx.changed() => { if changed.is_err() { lose(&state, main.lease()); return; } }
            changed = async {
                match second.as_mut() {
                    Some((_, rx)) => rx.changed().await,
                    None => std::future::pending().await,
                }
            } => {
                if changed.is_err() {
                    if let Some((handle, _)) = &second { lose(&state, handle.lease()); }
                    return;
                }
            }
        }
    }
}

fn lose(state: &watch::Sender<GateState>, lease: &str) {
    tracing::error!(lease = %lease, "leader lease lost: stopping every controller");
    state.send_modify(|s| {
        s.lost = Some(lease.to_string());
        s.main = false;
        s.migration = false;
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrated_controllers_need_both_leases_and_nothing_runs_after_loss() {
        let unowned = ControllerClass::Unowned {
            owner: "kube-controller-manager".into(),
        };
        let table = [
            // main, migration, lost, stopping → (not migrated, migrated)
            (false, false, false, false, (false, false)),
            (true, false, false, false, (true, false)),
            (true, true, false, false, (true, true)),
            (false, true, false, false, (false, false)),
            (true, true, true, false, (false, false)),
            (true, true, false, true, (false, false)),
        ];
        for (main, migration, lost, stopping, (not_migrated, migrated)) in table {
            let state = GateState {
                main,
                migration,
                lost: lost.then(|| "kube-system/x".to_string()),
                stopping,
            };
            assert_eq!(
                state.may_run(&ControllerClass::NotMigrated),
                not_migrated,
                "{state:?}"
            );
            assert_eq!(
                state.may_run(&ControllerClass::Migrated),
                migrated,
                "{state:?}"
            );
            assert!(!state.may_run(&unowned));
        }
    }
}
