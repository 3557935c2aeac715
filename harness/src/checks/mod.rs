//! The 18 parity checks (named after migration.md §3's pitfalls): pure functions from the run's
//! snapshots, samples, marks and roster to a [`CheckResult`] with a reason a human reads first.
//! Checks never call the provider or the fakes' topology code: their expectations come from ARM
//! state, the Kubernetes objects and `ccm-names` (DESIGN.md), so they cannot inherit the CCM's bugs.
//!
//! The marks say what the scenario changed on purpose ([`intent::Intent`]): Services it created or
//! deleted, VMs it deleted (their Nodes may go), nodes it added, kubelets it stopped.
//!
//! Inferred, not verified:
//! - [infer] a process whose leader-election identity is unknown runs a lease-governed loop when
//!   the Lease has a holder and it is the only live process governed by that Lease (a Lease has one
//!   holder, so several such processes count as one writer).
//! - [infer] the node pool of a node is its scale set (from the providerID), else its availability
//!   set (ARM), else its name without the trailing instance number; nodes added after the switch
//!   are compared with a baseline node of the same pool.
//! - [infer] the in-tree and CCM callers are told apart in the journal by the fixed client ids of
//!   [`crate::cluster::Component::app`].

mod addresses_equal;
mod arm_call_budget;
mod downtime;
mod finalizer_present;
mod ingress_ip_stable;
mod intent;
mod labels_equal;
mod no_lb_recreate;
mod no_node_deleted;
mod no_orphans;
mod node_uid_stable;
mod p99;
mod pip_id_stable;
mod pod_cidr_stable;
mod provider_id_stable;
mod routes_stable;
mod single_writer;
mod taint_removal_delay;
mod taints_cleared;
mod time_to_ingress;

#[cfg(test)]
pub(crate) mod builders;

use crate::outcome::{CheckResult, Verdict};
use crate::record::Mark;
use crate::roster::ManagedProcess;
use crate::scenario::{Budget, CheckName, ScenarioPlan};
use crate::snapshot::{Sample, Snapshot};

pub use intent::Intent;

/// Everything a run hands to the checks.
#[derive(Debug, Clone, Copy)]
pub struct CheckInputs<'a> {
    /// The scenario's plan (checks, budgets, network).
    pub plan: &'a ScenarioPlan,
    /// In-tree, after the `before` phase settled.
    pub baseline: Option<&'a Snapshot>,
    /// After the switch and the `during` phase settled.
    pub switched: Option<&'a Snapshot>,
    /// After the `after` phase settled.
    pub final_: Option<&'a Snapshot>,
    /// After the rollback settled (procedure `rollback` only).
    pub rollback: Option<&'a Snapshot>,
    /// The sampler's ticks, in time order.
    pub samples: &'a [Sample],
    /// The runner's marks, in time order.
    pub marks: &'a [Mark],
    /// Every manager process of the run.
    pub roster: &'a [ManagedProcess],
}

impl<'a> CheckInputs<'a> {
    /// The snapshots after the baseline that exist, labelled: `switched`, `final`, `rollback`.
    pub fn later(&self) -> Vec<(&'static str, &'a Snapshot)> {
        [
            ("switched", self.switched),
            ("final", self.final_),
            ("rollback", self.rollback),
        ]
        .into_iter()
        .filter_map(|(label, s)| Some((label, s?)))
        .collect()
    }
}

/// Runs every check of `inputs.plan`, in its order.
pub fn evaluate(inputs: &CheckInputs<'_>) -> Vec<CheckResult> {
    let intent = Intent::from_marks(inputs.marks);
    inputs
        .plan
        .checks
        .iter()
        .map(|plan| run(plan.check, inputs, &intent, plan.budget.as_ref()))
        .collect()
}

/// Runs one check.
pub fn run(
    check: CheckName,
    inputs: &CheckInputs<'_>,
    intent: &Intent,
    budget: Option<&Budget>,
) -> CheckResult {
    use CheckName::*;
    match check {
        ProviderIdStable => provider_id_stable::check(inputs, intent),
        NodeUidStable => node_uid_stable::check(inputs, intent),
        LabelsEqual => labels_equal::check(inputs, intent),
        AddressesEqual => addresses_equal::check(inputs, intent),
        TaintsCleared => taints_cleared::check(inputs, intent),
        PodCidrStable => pod_cidr_stable::check(inputs, intent),
        NoNodeDeleted => no_node_deleted::check(inputs, intent),
        IngressIpStable => ingress_ip_stable::check(inputs, intent),
        PipIdStable => pip_id_stable::check(inputs, intent),
        NoLbRecreate => no_lb_recreate::check(inputs, intent),
        FinalizerPresent => finalizer_present::check(inputs, intent),
        SingleWriter => single_writer::check(inputs, intent),
        NoOrphans => no_orphans::check(inputs, intent),
        RoutesStable => routes_stable::check(inputs, intent),
        ArmCallBudget => arm_call_budget::check(inputs, intent, budget),
        TimeToIngress => time_to_ingress::check(inputs, intent, budget),
        TaintRemovalDelay => taint_removal_delay::check(inputs, intent, budget),
        Downtime => downtime::check(inputs, intent, budget),
    }
}

/// The snapshots a check needs, or its `Error` result naming the missing ones.
pub(crate) fn require<'a>(
    check: CheckName,
    wanted: &[(&'static str, Option<&'a Snapshot>)],
) -> Result<Vec<&'a Snapshot>, CheckResult> {
    let missing: Vec<&str> = wanted
        .iter()
        .filter(|(_, s)| s.is_none())
        .map(|(label, _)| *label)
        .collect();
    if missing.is_empty() {
        Ok(wanted.iter().filter_map(|(_, s)| *s).collect())
    } else {
        Err(CheckResult::new(
            check,
            Verdict::Error,
            format!(
                "no {} snapshot: the run broke off before it was taken",
                missing.join(", ")
            ),
        ))
    }
}

/// Pass with `ok`, or Fail with the first offender as reason (plus a count) and all as details.
pub(crate) fn verdict(check: CheckName, offenders: Vec<String>, ok: String) -> CheckResult {
    match offenders.first() {
        None => CheckResult::new(check, Verdict::Pass, ok),
        Some(first) => {
            let reason = if offenders.len() > 1 {
                format!("{first} (and {} more)", offenders.len() - 1)
            } else {
                first.clone()
            };
            let mut result = CheckResult::new(check, Verdict::Fail, reason);
            result.details = offenders;
            result
        }
    }
}

/// A budgeted verdict: Pass when `within`, with the measured figure and budget filled in.
pub(crate) fn budgeted(
    check: CheckName,
    within: bool,
    reason: String,
    measured: String,
    budget: String,
    details: Vec<String>,
) -> CheckResult {
    let verdict = if within { Verdict::Pass } else { Verdict::Fail };
    let mut result = CheckResult::new(check, verdict, reason);
    result.measured = Some(measured);
    result.budget = Some(budget);
    result.details = details;
    result
}

/// The duration budget of a check, or its default.
pub(crate) fn duration_budget(budget: Option<&Budget>, default: crate::scenario::Duration) -> u64 {
    match budget {
        Some(Budget::Duration(d)) => d.as_millis(),
        _ => default.as_millis(),
    }
}

/// `1.5s` style figure of a millisecond count.
pub(crate) fn seconds(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{:.1}s", ms as f64 / 1000.0)
    }
}

#[cfg(test)]
mod tests {
    use super::builders::*;
    use super::*;
    use crate::record::MarkKind;
    use crate::roster::ManagerKind;
    use crate::snapshot::{
        FrontendSample, LeaseSample, NodeSample, ProcessSample, Sample, ServiceSample,
    };

    /// A tick of the healthy run: both nodes Ready, `web` served, one KCM holding its lease.
    fn tick(at_ms: i64) -> Sample {
        Sample {
            at_ms,
            leases: Some(vec![LeaseSample {
                name: "kube-controller-manager".into(),
                holder: "kcm-a".into(),
                renew_ms: Some(at_ms),
                duration_seconds: Some(15),
                transitions: Some(0),
            }]),
            processes: vec![ProcessSample {
                name: "kube-controller-manager-0".into(),
                kind: ManagerKind::KubeControllerManager,
                hostname: "kcm-a".into(),
                cloud_loops: [(
                    "service-lb-controller".to_owned(),
                    "kube-controller-manager".to_owned(),
                )]
                .into(),
            }],
            nodes: Some(
                ["node-0", "node-1"]
                    .iter()
                    .map(|n| NodeSample {
                        name: (*n).into(),
                        uid: format!("uid-{n}"),
                        ready: true,
                        uninitialized: false,
                        provider_id_set: true,
                    })
                    .collect(),
            ),
            services: Some(vec![ServiceSample {
                service: "default/web".into(),
                ingress: vec!["20.1.2.3".into()],
                finalizer: true,
            }]),
            lb: Some(vec![FrontendSample {
                service: "default/web".into(),
                has_rule: true,
                ready_backends: 2,
                backends: 2,
            }]),
        }
    }

    #[test]
    fn a_healthy_run_passes_every_check_in_plan_order() {
        let mut run = Run::healthy();
        run.samples = (0..8).map(|i| tick(i * 250)).collect();
        run.marks = vec![
            mark(100, MarkKind::SwitchStarted),
            mark(
                1_500,
                MarkKind::PhaseEnded {
                    phase: "during".into(),
                    settled: true,
                },
            ),
        ];
        let results = evaluate(&run.inputs());
        let names: Vec<CheckName> = results.iter().map(|r| r.check).collect();
        let planned: Vec<CheckName> = run.plan.checks.iter().map(|c| c.check).collect();
        assert_eq!(names, planned);
        assert!(names.len() >= 17, "{names:?}");
        for r in &results {
            assert!(
                matches!(r.verdict, Verdict::Pass | Verdict::Skipped),
                "{}: {:?} {}",
                r.check,
                r.verdict,
                r.reason
            );
        }
    }

    #[test]
    fn a_run_that_broke_off_answers_error_where_snapshots_are_missing() {
        let mut run = Run::healthy();
        run.switched = None;
        run.final_ = None;
        let results = evaluate(&run.inputs());
        let errors: Vec<CheckName> = results
            .iter()
            .filter(|r| r.verdict == Verdict::Error)
            .map(|r| r.check)
            .collect();
        assert!(errors.contains(&CheckName::NoLbRecreate), "{errors:?}");
        assert!(errors.contains(&CheckName::TaintsCleared), "{errors:?}");
        assert!(
            results.iter().all(|r| r.verdict != Verdict::Fail),
            "{results:#?}"
        );
    }
}
