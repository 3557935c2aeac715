//! The controllers of one process, each started when the lease that governs it is held, started
//! once and never restarted; shutdown stops them all before the leases are released.

use std::future::Future;
use std::time::Duration;

use ccm_cloud::Provider;
use tokio::sync::watch;
use tokio::task::JoinSet;

use super::build::{BuildInputs, Work, build};
use super::error::HostError;
use super::leases::Leases;
use super::running::RunningControllers;
use crate::leader::ElectionConfig;
use crate::migration::{
    Classification, ControllerClass, GateState, LeaderMigrationConfig, classify,
};

/// What a process hosts and under which leases.
pub struct HostPlan<'a> {
    /// The component name Leader Migration configs use (`cloud-controller-manager`, ...).
    pub component: &'static str,
    /// Canonical names of the enabled controllers, in start order.
    pub controllers: &'a [&'static str],
    /// The main election (`None`: `--leader-elect=false`).
    pub election: Option<&'a ElectionConfig>,
    /// Leader Migration when enabled.
    pub migration: Option<&'a LeaderMigrationConfig>,
    /// `--leader-elect-resource-namespace`, for the summary when election is off.
    pub lease_namespace: &'a str,
    /// `--leader-elect-resource-name`, likewise.
    pub lease_name: &'a str,
}

/// The controllers built and the leases campaigning for them.
pub struct Host {
    pending: Vec<(&'static str, ControllerClass, Work)>,
    classification: Classification,
    leases: Leases,
    running: RunningControllers,
    interval: Duration,
    elected: bool,
}

impl Host {
    /// Classifies and builds every enabled controller (no API call), logs which lease governs
    /// each, then starts campaigning.
    pub fn start<P: Provider>(
        client: kube::Client,
        plan: HostPlan<'_>,
        inputs: BuildInputs<P>,
        running: RunningControllers,
    ) -> Result<Host, HostError> {
        let classification = classify(
            plan.migration,
            plan.component,
            plan.controllers,
            plan.lease_namespace,
            plan.lease_name,
        );
        classification.log();
        let mut pending = Vec::new();
        for &name in plan.controllers {
            let class = classification
                .class_of(name)
                .cloned()
                .unwrap_or(ControllerClass::NotMigrated);
            if let ControllerClass::Unowned { owner } = &class {
                tracing::info!(
                    controller = name,
                    "not started: Leader Migration gives it to {owner}"
                );
                continue;
            }
            if let Some(work) = build(name, &inputs)? {
                pending.push((name, class, work));
            }
        }
        let leases = Leases::start(client, plan.election, plan.migration)?;
        Ok(Host {
            pending,
            classification,
            leases,
            running,
            interval: inputs.settings.start_interval,
            elected: plan.election.is_some(),
        })
    }

    /// The lease state (for health checks and metrics).
    pub fn gate(&self) -> watch::Receiver<GateState> {
        self.leases.subscribe()
    }

    /// Runs until `shutdown` resolves (Ok, after the controllers stopped and the leases were
    /// released) or a lease is lost or a controller stops (Err, leases abandoned like a crash).
    pub async fn run_until(
        self,
        shutdown: impl Future<Output = &'static str>,
    ) -> Result<(), HostError> {
        let Host {
            pending,
            classification,
            leases,
            running,
            interval,
            elected,
        } = self;
        let (stop_tx, stop_rx) = watch::channel(false);
        let work = run(
            pending,
            (&classification, elected),
            interval,
            leases.subscribe(),
            stop_rx,
            running,
        );
        tokio::pin!(work);
        let outcome = tokio::select! {
            result = &mut work => Err(result.err().unwrap_or(HostError::Task("the controllers stopped".into()))),
            lease = leases.lost() => Err(HostError::LeaseLost(lease)),
            signal = shutdown => { tracing::info!("{signal} received, shutting down"); Ok(()) }
        };
        match outcome {
            Ok(()) => {
                // Stop the controllers and wait for them before the leases are released.
                let _ = stop_tx.send(true);
                let _ = work.await;
                leases.release().await;
                Ok(())
            }
            // Dropped without release, like a crash (upstream exits).
            Err(error) => Err(error),
        }
    }
}

/// The lease a controller of `class` runs under, for the start log.
fn governing(class: &ControllerClass, classification: &Classification, elected: bool) -> String {
    match (class, &classification.migration_lease) {
        (ControllerClass::Migrated, Some(lease)) => lease.clone(),
        _ if elected => classification.main_lease.clone(),
        _ => "none (--leader-elect=false)".to_owned(),
    }
}

/// Starts each controller when the gate lets its class run, `interval` apart. Resolves with an
/// error when one stops, or with `Ok` once `stop` is set and every started controller has ended.
async fn run(
    mut pending: Vec<(&'static str, ControllerClass, Work)>,
    (classification, elected): (&Classification, bool),
    interval: Duration,
    mut gate: watch::Receiver<GateState>,
    mut stop: watch::Receiver<bool>,
    running: RunningControllers,
) -> Result<(), HostError> {
    let mut tasks = JoinSet::new();
    loop {
        let state = gate.borrow_and_update().clone();
        let (ready, waiting): (Vec<_>, Vec<_>) = pending
            .into_iter()
            .partition(|(_, class, _)| state.may_run(class));
        pending = waiting;
        for (name, class, work) in ready {
            if !tasks.is_empty() && !interval.is_zero() {
                tokio::time::sleep(interval).await;
            }
            let lease = governing(&class, classification, elected);
            tracing::info!(controller = name, lease = %lease, "starting controller");
            running.set(name, 1);
            tasks.spawn(async move { (name, work.await) });
        }
        tokio::select! {
            _ = stop.wait_for(|s| *s) => {
                // Stop every controller and wait until none runs, so the Lease is released only
                // after the last write.
                tasks.abort_all();
                while tasks.join_next().await.is_some() {}
                return Ok(());
            }
            changed = gate.changed(), if !pending.is_empty() => {
                if changed.is_err() {
                    // The election ended (lost or stopping): the caller handles it; start nothing more.
                    pending.clear();
                }
            }
            Some(joined) = tasks.join_next() => {
                return match joined {
                    Ok((name, result)) => {
                        running.set(name, 0);
                        result.and(Err(HostError::Stopped { controller: name }))
                    }
                    Err(error) => Err(HostError::Task(error.to_string())),
                };
            }
        }
    }
}
