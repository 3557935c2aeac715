//! The controllers of one process, each started when the lease that governs it is held; shutdown
//! stops them all before the leases are released. A new controller set (built from a new provider,
//! `--enable-dynamic-reloading`) replaces the running one under the same leases.

use std::future::Future;
use std::time::Duration;

use ccm_cloud::Provider;
use futures::{Stream, StreamExt};
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
    pending: ControllerSet,
    roster: Roster,
    leases: Leases,
    running: RunningControllers,
    interval: Duration,
}

/// Which controllers a host runs and under which lease: what a rebuilt set is built from.
#[derive(Clone)]
pub struct Roster {
    startable: Vec<(&'static str, ControllerClass)>,
    classification: Classification,
    elected: bool,
}

/// Controllers built from one provider, not started yet.
pub struct ControllerSet(Vec<(&'static str, ControllerClass, Work)>);

impl Roster {
    /// Builds every startable controller over `inputs` (no API call).
    pub fn build<P: Provider>(&self, inputs: &BuildInputs<P>) -> Result<ControllerSet, HostError> {
        let mut set = Vec::new();
        for (name, class) in &self.startable {
            if let Some(work) = build(name, inputs)? {
                set.push((*name, class.clone(), work));
            }
        }
        Ok(ControllerSet(set))
    }
}

impl Host {
    /// Classifies and builds every enabled controller (no API call), logs which lease governs
    /// each, then starts campaigning. `election_client` carries only the lease traffic: like client-go's separate
    /// leader-election clientset it has its own rate limit, so a burst of controller requests
    /// (a thousand nodes initialised at once) never delays a renewal past the renew deadline.
    pub fn start<P: Provider>(
        election_client: kube::Client,
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
        let mut startable = Vec::new();
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
            startable.push((name, class));
        }
        let roster = Roster {
            startable,
            classification,
            elected: plan.election.is_some(),
        };
        let pending = roster.build(&inputs)?;
        let leases = Leases::start(election_client, plan.election, plan.migration)?;
        Ok(Host {
            pending,
            roster,
            leases,
            running,
            interval: inputs.settings.start_interval,
        })
    }

    /// What a replacement set is built from (see [`Host::run_reloading`]).
    pub fn roster(&self) -> Roster {
        self.roster.clone()
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
        self.run_reloading(shutdown, futures::stream::pending())
            .await
    }

    /// [`Host::run_until`], and each set from `replacements` replaces the running one: the
    /// running controllers stop and are awaited, then the new ones start as the leases allow.
    pub async fn run_reloading(
        self,
        shutdown: impl Future<Output = &'static str>,
        replacements: impl Stream<Item = ControllerSet>,
    ) -> Result<(), HostError> {
        let Host {
            pending,
            roster,
            leases,
            running,
            interval,
        } = self;
        tokio::pin!(shutdown);
        tokio::pin!(replacements);
        let mut current = pending;
        loop {
            let (stop_tx, stop_rx) = watch::channel(false);
            let work = run(
                current,
                (&roster.classification, roster.elected),
                interval,
                leases.subscribe(),
                stop_rx,
                running.clone(),
            );
            tokio::pin!(work);
            let outcome = tokio::select! {
                result = &mut work => Err(result.err().unwrap_or(HostError::Task("the controllers stopped".into()))),
                lease = leases.lost() => Err(HostError::LeaseLost(lease)),
                signal = &mut shutdown => { tracing::info!("{signal} received, shutting down"); Ok(None) }
                Some(next) = replacements.next() => Ok(Some(next)),
            };
            match outcome {
                Ok(Some(next)) => {
                    tracing::info!("restarting the controllers with the new provider");
                    let _ = stop_tx.send(true);
                    work.await?;
                    current = next;
                }
                Ok(None) => {
                    // Stop the controllers and wait for them before the leases are released.
                    let _ = stop_tx.send(true);
                    let _ = work.await;
                    leases.release().await;
                    return Ok(());
                }
                // Dropped without release, like a crash (upstream exits).
                Err(error) => return Err(error),
            }
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
    ControllerSet(mut pending): ControllerSet,
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
