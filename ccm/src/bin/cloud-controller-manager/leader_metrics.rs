//! `leader_election_master_status{name}`: 1 while this process holds the Lease `name`, else 0
//! (client-go's leader election metric, anchor-ccm.md §8).

use ccm_controllers::migration::GateState;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;
use tokio::sync::watch;

/// The gauge family.
#[derive(Clone, Default)]
pub struct LeaderMetrics(Family<Vec<(String, String)>, Gauge>);

impl LeaderMetrics {
    /// Registers the family.
    pub fn register(registry: &mut Registry) -> Self {
        let this = Self::default();
        registry.register(
            "leader_election_master_status",
            "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease.",
            this.0.clone(),
        );
        this
    }

    fn set(&self, lease: &str, leading: bool) {
        let labels = vec![("name".to_owned(), lease.to_owned())];
        self.0.get_or_create(&labels).set(i64::from(leading));
    }

    /// Follows `gate` in the background: `main` names the main Lease, `migration` the other.
    pub fn follow(
        self,
        mut gate: watch::Receiver<GateState>,
        main: String,
        migration: Option<String>,
    ) {
        tokio::spawn(async move {
            loop {
                let state = gate.borrow_and_update().clone();
                self.set(&main, state.main);
                if let Some(migration) = &migration {
                    self.set(migration, state.migration);
                }
                if gate.changed().await.is_err() {
                    self.set(&main, false);
                    if let Some(migration) = &migration {
                        self.set(migration, false);
                    }
                    return;
                }
            }
        });
    }
}
