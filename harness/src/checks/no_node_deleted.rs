//! `no-node-deleted` (P4): no Node whose VM still exists disappears: checked between the snapshots
//! and between consecutive samples. Nodes of VMs the scenario deleted may go.

use std::collections::BTreeSet;

use super::{CheckInputs, Intent, require, verdict};
use crate::outcome::CheckResult;
use crate::scenario::CheckName;

const CHECK: CheckName = CheckName::NoNodeDeleted;

pub(super) fn check(inputs: &CheckInputs<'_>, intent: &Intent) -> CheckResult {
    let base = match require(
        CHECK,
        &[("baseline", inputs.baseline), ("final", inputs.final_)],
    ) {
        Ok(s) => s[0],
        Err(e) => return e,
    };
    let mut offenders: Vec<String> = Vec::new();
    let mut reported = BTreeSet::new();
    for (label, snap) in inputs.later() {
        for before in &base.nodes {
            if snap.node(&before.name).is_none()
                && !intent.vm_deleted(&before.name)
                && reported.insert(before.name.clone())
            {
                let state = if before.ready() { "Ready" } else { "NotReady" };
                offenders.push(format!(
                    "node {}: deleted by {label} although its VM was not ({state} at baseline)",
                    before.name
                ));
            }
        }
    }
    let mut previous: Option<(i64, BTreeSet<&str>)> = None;
    for sample in inputs.samples {
        let Some(nodes) = &sample.nodes else { continue };
        let now: BTreeSet<&str> = nodes.iter().map(|n| n.name.as_str()).collect();
        if let Some((_, before)) = &previous {
            for gone in before.difference(&now) {
                if !intent.vm_deleted(gone) && reported.insert((*gone).to_owned()) {
                    offenders.push(format!(
                        "node {gone}: gone {} although its VM was not deleted",
                        intent.when(sample.at_ms)
                    ));
                }
            }
        }
        previous = Some((sample.at_ms, now));
    }
    verdict(
        CHECK,
        offenders,
        format!(
            "no node of an existing VM was deleted ({} VMs deleted on purpose)",
            intent.vms_deleted.len()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::super::builders::*;
    use super::*;
    use crate::outcome::Verdict;
    use crate::record::MarkKind;

    #[test]
    fn a_deleted_vm_may_go_but_another_node_may_not() {
        let mut run = Run::healthy().after(|s| {
            s.nodes.retain(|n| n.name != "node-1");
        });
        assert_eq!(run.check(CHECK).verdict, Verdict::Fail);
        insta::assert_snapshot!(shown(&run.check(CHECK)));
        run.marks.push(mark(
            5,
            MarkKind::VmDeleted {
                node: "node-1".into(),
            },
        ));
        assert_eq!(run.check(CHECK).verdict, Verdict::Pass);
    }
}
