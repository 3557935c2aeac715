//! `taints-cleared` (P8): no Node still carries `node.cloudprovider.kubernetes.io/uninitialized`
//! at the end (final, and after a rollback).
//!
//! Premise: some Node needed initialisation (a sample or snapshot saw it with the taint); without
//! one nothing was there to clear and the check is `Skipped`, never `Pass`.

use super::{CheckInputs, Intent, require, verdict};
use crate::outcome::{CheckResult, Verdict};
use crate::scenario::CheckName;

const CHECK: CheckName = CheckName::TaintsCleared;

pub(super) fn check(inputs: &CheckInputs<'_>, _intent: &Intent) -> CheckResult {
    let last = match require(CHECK, &[("final", inputs.final_)]) {
        Ok(s) => s[0],
        Err(e) => return e,
    };
    let taint = ccm_names::taints::UNINITIALIZED;
    let mut offenders = Vec::new();
    let ends = [("final", Some(last)), ("rollback", inputs.rollback)];
    for (label, snap) in ends.into_iter().filter_map(|(l, s)| Some((l, s?))) {
        for node in snap.nodes.iter().filter(|n| n.has_taint(taint)) {
            offenders.push(format!(
                "node {}: still has taint {taint} at {label}",
                node.name
            ));
        }
    }
    let needed_init = inputs
        .samples
        .iter()
        .filter_map(|s| s.nodes.as_ref())
        .flatten()
        .any(|n| n.uninitialized)
        || [inputs.baseline, inputs.switched]
            .into_iter()
            .flatten()
            .any(|s| s.nodes.iter().any(|n| n.has_taint(taint)));
    if offenders.is_empty() && !needed_init {
        return CheckResult::new(
            CHECK,
            Verdict::Skipped,
            format!("premise not met: no node needed initialisation (none was seen with {taint})"),
        );
    }
    verdict(
        CHECK,
        offenders,
        format!(
            "no node has {taint} at the end ({} nodes)",
            last.nodes.len()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::super::builders::*;
    use super::*;
    use crate::snapshot::{NodeSample, Sample, TaintState};

    #[test]
    fn a_node_left_tainted_fails() {
        let healthy = Run::healthy().check(CHECK);
        assert_eq!(healthy.verdict, Verdict::Skipped, "{healthy:?}");
        assert!(healthy.reason.starts_with("premise not met"), "{healthy:?}");
        let mut initialised = Run::healthy();
        initialised.samples = vec![Sample {
            at_ms: 1,
            nodes: Some(vec![NodeSample {
                name: "node-1".into(),
                uid: "u".into(),
                ready: true,
                uninitialized: true,
                provider_id_set: false,
            }]),
            ..Sample::default()
        }];
        assert_eq!(initialised.check(CHECK).verdict, Verdict::Pass);
        let run = Run::healthy().after(|s| {
            s.nodes[1].taints.push(TaintState {
                key: ccm_names::taints::UNINITIALIZED.into(),
                effect: "NoSchedule".into(),
                value: Some("true".into()),
            })
        });
        insta::assert_snapshot!(shown(&run.check(CHECK)));
    }
}
