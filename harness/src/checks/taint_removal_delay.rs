//! `taint-removal-delay` (P3): per node, the time from its first sample with the uninitialized
//! taint to the first later sample without it; p99 against the duration budget. Nodes never seen
//! tainted are ignored; Skipped when none was.

use std::collections::BTreeMap;

use super::p99::{Delays, p99_verdict};
use super::{CheckInputs, Intent, duration_budget, seconds};
use crate::outcome::{CheckResult, Verdict};
use crate::scenario::{Budget, CheckName, DEFAULT_TAINT_REMOVAL_DELAY};

const CHECK: CheckName = CheckName::TaintRemovalDelay;

pub(super) fn check(
    inputs: &CheckInputs<'_>,
    _intent: &Intent,
    budget: Option<&Budget>,
) -> CheckResult {
    let limit = duration_budget(budget, DEFAULT_TAINT_REMOVAL_DELAY);
    if inputs.samples.is_empty() {
        return CheckResult::new(
            CHECK,
            Verdict::Error,
            "no samples: the sampler recorded nothing",
        );
    }
    let last_ms = inputs.samples.last().map_or(0, |s| s.at_ms);
    // node → (first tainted, first untainted after it)
    let mut spans: BTreeMap<&str, (i64, Option<i64>)> = BTreeMap::new();
    for sample in inputs.samples {
        for node in sample.nodes.iter().flatten() {
            match spans.get_mut(node.name.as_str()) {
                None if node.uninitialized => {
                    spans.insert(&node.name, (sample.at_ms, None));
                }
                Some((_, end @ None)) if !node.uninitialized => *end = Some(sample.at_ms),
                _ => {}
            }
        }
    }
    let last_nodes = inputs.samples.iter().rev().find_map(|s| s.nodes.as_ref());
    let still_listed =
        |node: &str| last_nodes.is_some_and(|list| list.iter().any(|n| n.name == node));
    if spans.is_empty() {
        return CheckResult::new(
            CHECK,
            Verdict::Skipped,
            "no node was seen with the uninitialized taint",
        );
    }
    let mut measured = Delays::default();
    for (node, (start, end)) in &spans {
        match end {
            Some(end) => {
                let d = (end - start).max(0) as u64;
                measured.done(
                    d,
                    format!("node {node}: taint removed after {}", seconds(d)),
                );
            }
            // Gone before its taint was removed (VM deleted): no-node-deleted judges that.
            None if !still_listed(node) => {}
            None => {
                let d = (last_ms - start).max(0) as u64;
                let line = format!(
                    "node {node}: still tainted {} after it was first seen",
                    seconds(d)
                );
                measured.unfinished(d, limit, line);
            }
        }
    }
    p99_verdict(
        CHECK,
        measured,
        limit,
        "taint removal",
        "nodes",
        "every tainted node was gone before its taint was removed",
    )
}

#[cfg(test)]
mod tests {
    use super::super::builders::*;
    use super::*;
    use crate::snapshot::{NodeSample, Sample};

    fn sample(at_ms: i64, tainted: bool) -> Sample {
        Sample {
            at_ms,
            leases: None,
            processes: vec![],
            nodes: Some(vec![NodeSample {
                name: "node-2".into(),
                uid: "u".into(),
                ready: true,
                uninitialized: tainted,
                provider_id_set: !tainted,
            }]),
            services: None,
            lb: None,
        }
    }

    #[test]
    fn skipped_without_taints_and_fails_when_never_removed() {
        let mut run = Run::healthy();
        run.samples = vec![sample(0, false)];
        assert_eq!(run.check(CHECK).verdict, Verdict::Skipped);
        run.samples = vec![sample(0, false), sample(500, true), sample(1_000, false)];
        let r = run.check(CHECK);
        assert_eq!(
            (r.verdict, r.measured.as_deref()),
            (Verdict::Pass, Some("p99 0.5s"))
        );
        let mut gone = sample(500, false);
        gone.nodes = Some(vec![]);
        run.samples = vec![sample(0, true), gone];
        assert_eq!(run.check(CHECK).verdict, Verdict::Skipped);
        run.samples = vec![sample(0, true), sample(90_000, true)];
        insta::assert_snapshot!(shown(&run.check(CHECK)));
    }
}
