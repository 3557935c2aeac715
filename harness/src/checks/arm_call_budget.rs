//! `arm-call-budget` (P13): ARM calls in the switch window (`SwitchStarted` to the end of the
//! `during` phase), compute/route/NIC calls per node and LB/PIP/NSG calls per Service, against
//! `Budget::ArmCalls`. Calls come from the journal of the latest snapshot.
//!
//! Premise of a zero per-node budget (a scenario claiming node initialisation makes no ARM
//! call): some Node needed initialisation in the window (a sample in it saw one uninitialized).
//! Without one, any routine call would fail the budget for a reason the check does not exist
//! for, so it is `Skipped`, naming the premise.

use std::str::FromStr;

use k8s_openapi::jiff::Timestamp;

use super::{CheckInputs, Intent, budgeted};
use crate::outcome::{CheckResult, Verdict};
use crate::scenario::{
    Budget, CheckName, DEFAULT_ARM_CALLS_PER_NODE, DEFAULT_ARM_CALLS_PER_SERVICE,
};
use crate::snapshot::JournalEntry;

const CHECK: CheckName = CheckName::ArmCallBudget;

/// Journal time as Unix epoch milliseconds.
pub(crate) fn entry_ms(entry: &JournalEntry) -> Option<i64> {
    Timestamp::from_str(&entry.time)
        .ok()
        .map(|t| t.as_millisecond())
}

/// True for calls on a Service's resources (LB, PIP, NSG, PLS); the rest are per node.
fn per_service(path: &str) -> bool {
    let p = path.to_ascii_lowercase();
    [
        "/loadbalancers",
        "/publicipaddresses",
        "/networksecuritygroups",
        "/privatelinkservices",
    ]
    .iter()
    .any(|k| p.contains(k))
}

pub(super) fn check(
    inputs: &CheckInputs<'_>,
    intent: &Intent,
    budget: Option<&Budget>,
) -> CheckResult {
    let (node_budget, service_budget) = match budget {
        Some(Budget::ArmCalls {
            per_node,
            per_service,
        }) => (*per_node, *per_service),
        _ => (DEFAULT_ARM_CALLS_PER_NODE, DEFAULT_ARM_CALLS_PER_SERVICE),
    };
    let Some((start, end)) = intent.switch_window() else {
        return CheckResult::new(CHECK, Verdict::Error, "no switch window in the run's marks");
    };
    let Some(latest) = inputs.rollback.or(inputs.final_).or(inputs.switched) else {
        return CheckResult::new(
            CHECK,
            Verdict::Error,
            "no switched or final snapshot: the run broke off before the journal was read",
        );
    };
    if node_budget == 0 {
        let initialising = inputs
            .samples
            .iter()
            .filter(|s| start <= s.at_ms && s.at_ms <= end)
            .filter_map(|s| s.nodes.as_ref())
            .flatten()
            .any(|n| n.uninitialized);
        if !initialising {
            return CheckResult::new(
                CHECK,
                Verdict::Skipped,
                "premise not met: the budget is 0 calls per node, and no node needed \
                 initialisation in the switch window",
            );
        }
    }
    let reference = inputs.switched.unwrap_or(latest);
    let nodes = reference.nodes.len().max(1);
    let services = reference.services.len();
    let calls: Vec<&JournalEntry> = latest
        .journal
        .iter()
        .filter(|e| e.surface == azure_fakes::journal::Surface::Arm)
        .filter(|e| entry_ms(e).is_some_and(|t| start <= t && t <= end))
        .collect();
    let (service_calls, node_calls): (Vec<&&JournalEntry>, Vec<&&JournalEntry>) =
        calls.iter().partition(|e| per_service(&e.path));
    let per_node = node_calls.len() as f64 / nodes as f64;
    let per_svc = service_calls.len() as f64 / services.max(1) as f64;
    let within = per_node <= f64::from(node_budget) && per_svc <= f64::from(service_budget);
    let measured = format!("{per_node:.1} calls/node, {per_svc:.1} calls/Service");
    let reason = format!(
        "{} ARM calls in the {} switch window: {} for {nodes} nodes, {} for {services} Services ({measured})",
        calls.len(),
        super::seconds((end - start).max(0) as u64),
        node_calls.len(),
        service_calls.len()
    );
    let mut by_operation = std::collections::BTreeMap::<&str, usize>::new();
    for e in &calls {
        *by_operation.entry(e.operation.as_str()).or_default() += 1;
    }
    let details = by_operation
        .into_iter()
        .map(|(op, n)| format!("{n} × {op}"))
        .collect();
    budgeted(
        CHECK,
        within,
        reason,
        measured,
        format!("{node_budget} calls/node, {service_budget} calls/Service"),
        details,
    )
}

#[cfg(test)]
mod tests {
    use super::super::builders::*;
    use super::*;
    use crate::record::MarkKind;

    fn call(seq: u64, ms: i64, method: &str, path: &str) -> JournalEntry {
        let time = Timestamp::from_millisecond(ms).unwrap().to_string();
        serde_json::from_value(serde_json::json!({
            "seq": seq, "time": time, "surface": "arm",
            "operation": format!("{method} {path}"), "method": method, "path": path,
            "status": 200, "durationMs": 1.0, "throttled": false
        }))
        .unwrap()
    }

    #[test]
    fn counts_calls_in_the_window_per_node_and_service() {
        let mut run = Run::healthy();
        run.marks = vec![
            mark(1_000, MarkKind::SwitchStarted),
            mark(
                2_000,
                MarkKind::PhaseEnded {
                    phase: "during".into(),
                    settled: true,
                },
            ),
        ];
        let mut journal = vec![call(
            1,
            500,
            "GET",
            "/x/Microsoft.Compute/virtualMachines/node-0",
        )];
        for i in 0..30 {
            journal.push(call(
                2 + i,
                1_500,
                "GET",
                "/x/Microsoft.Compute/virtualMachines/node-0",
            ));
        }
        journal.push(call(
            40,
            1_600,
            "PUT",
            "/x/Microsoft.Network/loadBalancers/k8s",
        ));
        run.final_.as_mut().unwrap().journal = journal;
        insta::assert_snapshot!(shown(&run.check(CHECK)));
        run.final_.as_mut().unwrap().journal.truncate(5);
        assert_eq!(run.check(CHECK).verdict, Verdict::Pass);
        run.marks.clear();
        assert_eq!(run.check(CHECK).verdict, Verdict::Error);
    }

    #[test]
    fn a_zero_node_budget_needs_a_node_to_initialise() {
        let mut run = Run::healthy();
        run.plan = plan("budgets:\n  armCallsPerNode: 0\n");
        run.marks = vec![
            mark(1_000, MarkKind::SwitchStarted),
            mark(
                2_000,
                MarkKind::PhaseEnded {
                    phase: "during".into(),
                    settled: true,
                },
            ),
        ];
        run.final_.as_mut().unwrap().journal = vec![call(
            1,
            1_500,
            "GET",
            "/x/Microsoft.Compute/virtualMachines",
        )];
        let skipped = run.check(CHECK);
        assert_eq!(skipped.verdict, Verdict::Skipped, "{skipped:?}");
        assert!(skipped.reason.starts_with("premise not met"), "{skipped:?}");
        let tainted = |at_ms| crate::snapshot::Sample {
            at_ms,
            nodes: Some(vec![crate::snapshot::NodeSample {
                name: "node-2".into(),
                uid: "u".into(),
                ready: false,
                uninitialized: true,
                provider_id_set: false,
            }]),
            ..Default::default()
        };
        // Outside the window it does not count.
        run.samples = vec![tainted(500)];
        assert_eq!(run.check(CHECK).verdict, Verdict::Skipped);
        run.samples = vec![tainted(1_200)];
        assert_eq!(run.check(CHECK).verdict, Verdict::Fail);
    }
}
