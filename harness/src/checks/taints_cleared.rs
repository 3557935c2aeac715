//! `taints-cleared` (P8): no Node still carries `node.cloudprovider.kubernetes.io/uninitialized`
//! at the end (final, and after a rollback).

use super::{CheckInputs, Intent, require, verdict};
use crate::outcome::CheckResult;
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
    use crate::outcome::Verdict;
    use crate::snapshot::TaintState;

    #[test]
    fn a_node_left_tainted_fails() {
        assert_eq!(Run::healthy().check(CHECK).verdict, Verdict::Pass);
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
