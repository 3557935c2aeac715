//! One scenario, start to end: provision the embedded cluster, run it the in-tree way, apply the
//! `before` workload, snapshot `baseline`, switch (with the `during` workload running alongside),
//! snapshot `switched`, apply `after`, snapshot `final`, optionally roll back and snapshot
//! `rollback`; then the checks, the artifacts, and teardown of everything started, whatever failed.
//!
//! Within a phase: fault rules are installed first; the phase's actions run in file order (in the
//! `during` phase, alongside the switch procedure); the cluster settles with the faults in place;
//! the faults are cleared and the cluster settles again, so convergence is measured after the
//! faults end.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::time::Instant;

use super::artifacts;
use super::periods::ManagerPeriods;
use super::settle::{SettleLimits, settle};
use super::workload::{Workload, WorkloadError};
use crate::checks::{self, CheckInputs};
use crate::cluster::{
    ClusterError, ClusterProvider, EmbeddedCluster, EmbeddedOptions, FakeAdmin, TopologySource,
};
use crate::outcome::{CheckResult, PhaseTiming, ScenarioOutcome, Verdict};
use crate::record::{MarkKind, RunRecord, now_ms};
use crate::report::Progress;
use crate::roster::Roster;
use crate::scenario::{self, Action, Phase, ScenarioPlan};
use crate::snapshot::{self, Sample, Snapshot, SnapshotError};
use crate::switch::binaries::ManagerBinaries;
use crate::switch::{Deployment, SwitchError};

/// Interval of the sampler during a run (issue 13: every 250 ms).
pub const SAMPLE_INTERVAL: Duration = Duration::from_millis(250);

/// Why a run broke off before its checks.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The cluster could not be provisioned or torn down.
    #[error("cluster: {0}")]
    Cluster(#[from] ClusterError),
    /// A switch step failed.
    #[error("switch: {0}")]
    Switch(#[from] SwitchError),
    /// A workload action failed.
    #[error("workload: {0}")]
    Workload(#[from] WorkloadError),
    /// A snapshot could not be taken.
    #[error("snapshot: {0}")]
    Snapshot(#[from] SnapshotError),
    /// The provider offers no fake admin API (the embedded one always does).
    #[error("the cluster has no fake Azure admin API")]
    NoFake,
}

/// Options of one run that are not in the scenario.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Settle limits per phase; `None`: from the managers' periods ([`super::periods`]).
    pub settle: Option<SettleLimits>,
    /// The CCM and CNM builds under test (default: ours).
    pub binaries: ManagerBinaries,
}

/// What the phases left for the checks.
#[derive(Default)]
struct Collected {
    baseline: Option<Snapshot>,
    switched: Option<Snapshot>,
    final_: Option<Snapshot>,
    rollback: Option<Snapshot>,
    samples: Vec<Sample>,
    timings: Vec<PhaseTiming>,
}

/// Runs `plan` with its files under `dir`; never fails: a broken-off run is an outcome whose
/// `failure` says why and whose checks that lacked data are `Error`.
pub async fn run_scenario(
    plan: &ScenarioPlan,
    dir: &Path,
    options: RunOptions,
    progress: &Progress,
) -> ScenarioOutcome {
    let started_ms = now_ms();
    let clock = Instant::now();
    let record = RunRecord::new();
    let roster = Roster::new();
    let mut collected = Collected::default();
    progress.started(&plan.name);
    let failure = provision_and_drive(
        plan,
        dir,
        options,
        progress,
        &record,
        &roster,
        &mut collected,
    )
    .await
    .err()
    .map(|e| e.to_string());
    let checks_started = now_ms();
    progress.phase(&plan.name, "checks");
    let marks = record.marks();
    let processes = roster.processes();
    let checks = checks::evaluate(&CheckInputs {
        plan,
        baseline: collected.baseline.as_ref(),
        switched: collected.switched.as_ref(),
        final_: collected.final_.as_ref(),
        rollback: collected.rollback.as_ref(),
        samples: &collected.samples,
        marks: &marks,
        roster: &processes,
    });
    let checks = with_failure(checks, failure.as_deref());
    collected.timings.push(PhaseTiming {
        phase: "checks".into(),
        started_ms: checks_started,
        duration_ms: (now_ms() - checks_started).max(0) as u64,
    });
    let outcome = ScenarioOutcome {
        name: plan.name.clone(),
        description: plan.description.clone(),
        kubernetes_version: plan.kubernetes_version.clone(),
        procedure: plan.switch.procedure,
        expect: plan.expect,
        started_ms,
        duration_ms: clock.elapsed().as_millis() as u64,
        phases: collected.timings.clone(),
        checks,
        failure,
        artifacts: dir.to_path_buf(),
        expected_for_build: plan.expected_for_build.clone(),
        may_fail: plan.may_fail.clone(),
        figures: Some(crate::figures::figures(
            &processes,
            [
                &collected.rollback,
                &collected.final_,
                &collected.switched,
                &collected.baseline,
            ]
            .into_iter()
            .find_map(|s| s.as_ref())
            .map(|s| s.journal.as_slice())
            .unwrap_or_default(),
        )),
    };
    let snapshots = [
        &collected.baseline,
        &collected.switched,
        &collected.final_,
        &collected.rollback,
    ];
    if let Err(e) = artifacts::write_scenario(
        dir,
        plan,
        &snapshots
            .iter()
            .filter_map(|s| s.as_ref())
            .collect::<Vec<_>>(),
        &collected.samples,
        &marks,
        &processes,
        &outcome,
    ) {
        tracing::warn!(scenario = %plan.name, error = %e, "writing the scenario's artifacts");
    }
    for path in super::scrub::scrub(dir) {
        tracing::warn!(scenario = %plan.name, file = %path.display(), "could not scrub credentials");
    }
    progress.finished(&outcome);
    outcome
}

/// How a scenario's embedded cluster is started (by `harness run` and by `harness up SCENARIO`):
/// its topology, files under `dir`.
pub fn cluster_options(plan: &ScenarioPlan, dir: &Path) -> EmbeddedOptions {
    let topology = match &plan.topology {
        scenario::TopologySource::File { path, .. } => TopologySource::File(path.clone()),
        scenario::TopologySource::Inline { yaml } => TopologySource::Text(yaml.clone()),
    };
    // Speed only: long-running operations end at their first poll, which the fake answers at
    // once (they still go through the async-operation protocol); otherwise each write of a
    // Service costs the CCM's 1 s + 2 s poll backoff.
    // Each manager gets the fake's proxy of its host (`POST /admin/proxies`, see
    // `switch::process`): IMDS at 169.254.169.254 and the public Entra hosts.
    EmbeddedOptions::new(topology, dir).fake_flags(["--retry-after", "0", "--lro-polls", "0"])
}

/// A broken-off run turns the checks that could not be evaluated into `Error` with the reason.
fn with_failure(checks: Vec<CheckResult>, failure: Option<&str>) -> Vec<CheckResult> {
    let Some(failure) = failure else {
        return checks;
    };
    checks
        .into_iter()
        .map(|mut c| {
            if c.verdict == Verdict::Error {
                c.reason = format!("{} (run broke off: {failure})", c.reason);
            }
            c
        })
        .collect()
}

async fn provision_and_drive(
    plan: &ScenarioPlan,
    dir: &Path,
    options: RunOptions,
    progress: &Progress,
    record: &RunRecord,
    roster: &Roster,
    collected: &mut Collected,
) -> Result<(), RunError> {
    let timer = PhaseTimer::start(progress, plan, "provision");
    let cluster_options = cluster_options(plan, dir);
    let started = EmbeddedCluster::start(cluster_options).await;
    collected.timings.push(timer.stop());
    let mut cluster = started?;
    let result = drive(
        &mut cluster,
        plan,
        options,
        progress,
        record,
        roster,
        collected,
    )
    .await;
    let timer = PhaseTimer::start(progress, plan, "teardown");
    let teardown = cluster.teardown().await;
    collected.timings.push(timer.stop());
    result?;
    teardown?;
    Ok(())
}

async fn drive(
    cluster: &mut EmbeddedCluster,
    plan: &ScenarioPlan,
    options: RunOptions,
    progress: &Progress,
    record: &RunRecord,
    roster: &Roster,
    collected: &mut Collected,
) -> Result<(), RunError> {
    let client = cluster.kube_client().await?;
    let admin = cluster.fake_admin().cloned().ok_or(RunError::NoFake)?;
    let timer = PhaseTimer::start(progress, plan, "in-tree");
    record.mark(MarkKind::PhaseStarted {
        phase: "in-tree".into(),
    });
    let started = Deployment::start_in_tree_with(
        cluster,
        plan,
        roster.clone(),
        record.clone(),
        options.binaries.clone(),
    )
    .await;
    collected.timings.push(timer.stop());
    let deployment = started?;
    let limits = options.settle.unwrap_or_else(|| {
        let mut periods = ManagerPeriods {
            kubelet_status: crate::switch::KUBELET_TIMING.status_update,
            ..Default::default()
        };
        for line in deployment.command_lines() {
            periods.add_command_line(&line);
        }
        periods.settle_limits()
    });
    let sampler = snapshot::Sampler::start(
        client.clone(),
        admin.clone(),
        roster.clone(),
        SAMPLE_INTERVAL,
    );
    let mut phases = Phases {
        cluster,
        deployment: &deployment,
        plan,
        limits,
        progress,
        record,
        client: &client,
        admin: &admin,
        workload: Workload::new(
            client.clone(),
            admin.clone(),
            record.clone(),
            plan.fault_seed,
        ),
        collected,
    };
    // A manager that exits on its own ends the scenario as an error at once, naming it.
    let result = tokio::select! {
        result = phases.run() => result,
        exited = deployment.exited() => Err(exited.into()),
    };
    phases.collected.samples = sampler.stop().await;
    deployment.shutdown().await;
    result
}

struct Phases<'a> {
    cluster: &'a EmbeddedCluster,
    deployment: &'a Deployment,
    plan: &'a ScenarioPlan,
    limits: SettleLimits,
    progress: &'a Progress,
    record: &'a RunRecord,
    client: &'a kube::Client,
    admin: &'a FakeAdmin,
    workload: Workload,
    collected: &'a mut Collected,
}

impl Phases<'_> {
    async fn run(&mut self) -> Result<(), RunError> {
        self.phase(Phase::Before).await?;
        self.collected.baseline = Some(self.snapshot("baseline").await?);
        self.phase(Phase::During).await?;
        self.collected.switched = Some(self.snapshot("switched").await?);
        self.phase(Phase::After).await?;
        self.collected.final_ = Some(self.snapshot("final").await?);
        if self.plan.switch.rollback {
            let timer = PhaseTimer::start(self.progress, self.plan, "rollback");
            // The deployment marks the rollback's start and end itself.
            self.deployment.rollback(self.cluster, self.plan).await?;
            self.settle("rollback", self.limits).await;
            self.collected.timings.push(timer.stop());
            self.collected.rollback = Some(self.snapshot("rollback").await?);
        }
        Ok(())
    }

    async fn phase(&mut self, phase: Phase) -> Result<(), RunError> {
        let label = phase_label(phase);
        let timer = PhaseTimer::start(self.progress, self.plan, label);
        self.record.mark(MarkKind::PhaseStarted {
            phase: label.into(),
        });
        let actions: Vec<Action> = self
            .plan
            .phases
            .iter()
            .filter(|p| p.phase == phase)
            .flat_map(|p| p.actions.iter().cloned())
            .collect();
        let clears_faults = actions.iter().any(|a| matches!(a, Action::ClearFaults));
        let actions: Vec<Action> = actions
            .into_iter()
            .filter(|a| !matches!(a, Action::ClearFaults))
            .collect();
        let workload = &self.workload;
        let (deployment, cluster) = (self.deployment, self.cluster);
        let apply_all = async {
            for action in &actions {
                workload.apply(action, deployment, cluster).await?;
            }
            Ok::<(), WorkloadError>(())
        };
        if phase == Phase::During {
            // The deployment marks the switch's start and end itself.
            let (switched, applied) =
                tokio::join!(deployment.switch(cluster, self.plan), apply_all);
            switched?;
            applied?;
        } else {
            apply_all.await?;
        }
        let mut settled = self.settle(label, self.limits).await;
        if clears_faults {
            self.workload.cloud_step(&Action::ClearFaults).await?;
            settled = self.settle(label, self.limits.after_faults()).await;
        }
        self.record.mark(MarkKind::PhaseEnded {
            phase: label.into(),
            settled,
        });
        self.collected.timings.push(timer.stop());
        Ok(())
    }

    /// Settles; true when every condition held. Nodes whose VM the scenario deleted must be gone.
    async fn settle(&self, label: &str, limits: SettleLimits) -> bool {
        let gone: BTreeSet<String> =
            self.record
                .marks()
                .into_iter()
                .fold(BTreeSet::new(), |mut gone, m| {
                    match m.kind {
                        MarkKind::VmDeleted { node } => {
                            gone.insert(node);
                        }
                        MarkKind::NodeAdded { node } => {
                            gone.remove(&node);
                        }
                        _ => {}
                    }
                    gone
                });
        let routes = self.plan.network.configure_routes;
        let result = settle(self.client, self.admin, &gone, routes, limits).await;
        if !result.settled {
            tracing::info!(
                scenario = %self.plan.name,
                phase = label,
                pending = %result.pending.join("; "),
                "the cluster did not settle"
            );
        }
        result.settled
    }

    async fn snapshot(&mut self, label: &str) -> Result<Snapshot, RunError> {
        let snap = snapshot::capture(self.client, self.admin, label).await?;
        self.record.mark(MarkKind::Snapshot {
            label: label.into(),
        });
        Ok(snap)
    }
}

fn phase_label(phase: Phase) -> &'static str {
    match phase {
        Phase::Before => "before",
        Phase::During => "during",
        Phase::After => "after",
    }
}

/// Times a phase for the outcome and reports it to the progress display.
struct PhaseTimer {
    label: String,
    started_ms: i64,
}

impl PhaseTimer {
    fn start(progress: &Progress, plan: &ScenarioPlan, label: &str) -> Self {
        progress.phase(&plan.name, label);
        Self {
            label: label.to_owned(),
            started_ms: now_ms(),
        }
    }

    fn stop(self) -> PhaseTiming {
        PhaseTiming {
            phase: self.label,
            started_ms: self.started_ms,
            duration_ms: (now_ms() - self.started_ms).max(0) as u64,
        }
    }
}

/// The directory of one scenario's files under a run's artifacts directory.
pub fn scenario_dir(artifacts: &Path, name: &str) -> PathBuf {
    artifacts.join("artifacts").join("scenarios").join(name)
}
