//! The leases a host runs under: the main Lease then the migration Lease (a [`LeaseGate`]), or an
//! always-open gate with `--leader-elect=false`.

use tokio::sync::watch;

use super::error::HostError;
use crate::leader::ElectionConfig;
use crate::migration::{GateState, LeaderMigrationConfig, LeaseGate};

/// The running elections and the state controllers start on.
pub struct Leases {
    gate: Option<LeaseGate>,
    state: watch::Receiver<GateState>,
    /// Keeps the always-open gate's channel alive.
    _open: watch::Sender<GateState>,
}

impl Leases {
    /// Campaigns for `main` and, once it leads, for the migration lease of `migration`; without
    /// `main` everything may run at once.
    pub fn start(
        client: kube::Client,
        main: Option<&ElectionConfig>,
        migration: Option<&LeaderMigrationConfig>,
    ) -> Result<Leases, HostError> {
        let (open, open_rx) = watch::channel(GateState {
            main: true,
            ..GateState::default()
        });
        let Some(main) = main else {
            tracing::info!("--leader-elect=false: running controllers without a Lease");
            return Ok(Leases {
                gate: None,
                state: open_rx,
                _open: open,
            });
        };
        let second = migration.map(|m| main.for_lease(m.leader_name.clone()));
        let gate = LeaseGate::spawn(client, main.clone(), second)?;
        tracing::info!(
            identity = %main.identity,
            lease = %format!("{}/{}", main.namespace, main.name),
            "campaigning for the leader Lease"
        );
        Ok(Leases {
            state: gate.subscribe(),
            gate: Some(gate),
            _open: open,
        })
    }

    /// A receiver of every state change.
    pub fn subscribe(&self) -> watch::Receiver<GateState> {
        self.state.clone()
    }

    /// Resolves with the lost lease (never without election).
    pub(super) async fn lost(&self) -> String {
        match &self.gate {
            Some(gate) => gate.lost().await,
            None => std::future::pending().await,
        }
    }

    /// Graceful end: release the migration lease, then the main one.
    pub(super) async fn release(self) {
        if let Some(gate) = self.gate {
            gate.shutdown().await;
            tracing::info!("leader Lease released");
        }
    }
}
