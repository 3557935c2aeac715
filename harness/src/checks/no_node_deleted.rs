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
                    "node {}: deleted by {label} although its VM was not ({state} at baseline{}){}",
                    before.name,
                    last_seen(inputs, &before.name),
                    deleting_event(inputs, &before.name)
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

/// `, NotReady when last sampled` from the last sample listing `node` (empty without one).
fn last_seen(inputs: &CheckInputs<'_>, node: &str) -> String {
    inputs
        .samples
        .iter()
        .rev()
        .filter_map(|s| s.nodes.as_ref())
        .find_map(|nodes| nodes.iter().find(|n| n.name == node))
        .map(|n| {
            let state = if n.ready { "Ready" } else { "NotReady" };
            format!(", {state} when last sampled")
        })
        .unwrap_or_default()
}

/// `; Event DeletingNode from <component>: <message>` when a snapshot holds one for `node`:
/// who deleted it and why (P4: cloud-node-lifecycle found no instance).
fn deleting_event(inputs: &CheckInputs<'_>, node: &str) -> String {
    inputs
        .later()
        .into_iter()
        .flat_map(|(_, s)| s.events.iter())
        .find(|e| {
            e.involved_kind == "Node" && e.involved_name == node && e.reason == "DeletingNode"
        })
        .map(|e| {
            format!(
                "; Event DeletingNode from {}: \"{}\"",
                e.source_component, e.message
            )
        })
        .unwrap_or_default()
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
        // Who deleted it and in which state, when the run recorded it.
        let mut told = Run::healthy().after(|s| {
            s.nodes.retain(|n| n.name != "node-1");
            s.events.push(crate::snapshot::EventState {
                involved_namespace: String::new(),
                involved_kind: "Node".into(),
                involved_name: "node-1".into(),
                reason: "DeletingNode".into(),
                type_: "Normal".into(),
                source_component: "cloud-node-lifecycle-controller".into(),
                count: 1,
                message: "Deleting node node-1 because it does not exist in the cloud provider"
                    .into(),
                name: "node-1.1".into(),
            });
        });
        told.samples = vec![crate::snapshot::Sample {
            at_ms: 0,
            leases: None,
            processes: vec![],
            nodes: Some(vec![crate::snapshot::NodeSample {
                name: "node-1".into(),
                uid: "u".into(),
                ready: false,
                uninitialized: false,
                provider_id_set: true,
            }]),
            services: None,
            lb: None,
        }];
        assert_eq!(
            told.check(CHECK).reason,
            "node node-1: deleted by switched although its VM was not (Ready at baseline, \
             NotReady when last sampled); Event DeletingNode from cloud-node-lifecycle-controller: \
             \"Deleting node node-1 because it does not exist in the cloud provider\""
        );
        run.marks.push(mark(
            5,
            MarkKind::VmDeleted {
                node: "node-1".into(),
            },
        ));
        assert_eq!(run.check(CHECK).verdict, Verdict::Pass);
    }
}
