//! `node-uid-stable` (P4): no Node is deleted and registered again: the UID of every Node is the
//! same in each later snapshot and in every sample that lists it.

use std::collections::BTreeMap;

use super::{CheckInputs, Intent, require, verdict};
use crate::outcome::CheckResult;
use crate::scenario::CheckName;

const CHECK: CheckName = CheckName::NodeUidStable;

pub(super) fn check(inputs: &CheckInputs<'_>, _intent: &Intent) -> CheckResult {
    let base = match require(CHECK, &[("baseline", inputs.baseline)]) {
        Ok(s) => s[0],
        Err(e) => return e,
    };
    let mut offenders = Vec::new();
    for (label, snap) in inputs.later() {
        for node in &snap.nodes {
            if let Some(before) = base.node(&node.name)
                && before.uid != node.uid
            {
                offenders.push(format!(
                        "node {}: uid {} became {} at {label} (the Node was deleted and registered again)",
                        node.name, before.uid, node.uid
                    ));
            }
        }
    }
    // Transient recreations between snapshots.
    let mut seen: BTreeMap<&str, &str> = base
        .nodes
        .iter()
        .map(|n| (n.name.as_str(), n.uid.as_str()))
        .collect();
    for sample in inputs.samples {
        for node in sample.nodes.iter().flatten() {
            let previous = seen.insert(&node.name, &node.uid);
            if let Some(previous) = previous.filter(|p| *p != node.uid) {
                let line = format!(
                    "node {}: uid {previous} became {} in the sample at {} ms",
                    node.name, node.uid, sample.at_ms
                );
                if !offenders
                    .iter()
                    .any(|o| o.starts_with(&format!("node {}: uid {previous}", node.name)))
                {
                    offenders.push(line);
                }
            }
        }
    }
    verdict(
        CHECK,
        offenders,
        format!("{} nodes kept their UID", base.nodes.len()),
    )
}

#[cfg(test)]
mod tests {
    use super::super::builders::*;
    use super::*;
    use crate::outcome::Verdict;

    #[test]
    fn a_recreated_node_fails() {
        assert_eq!(Run::healthy().check(CHECK).verdict, Verdict::Pass);
        let run = Run::healthy().after(|s| s.nodes[1].uid = "uid-node-1-again".into());
        insta::assert_snapshot!(shown(&run.check(CHECK)));
    }
}
