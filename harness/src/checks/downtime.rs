//! `downtime`: per Service existing through the switch (at baseline and final, not deleted), the
//! longest run of consecutive samples whose frontend had no rule or no Ready backend in the fake's
//! LB state, measured from the first bad sample to the next good one; against the duration budget.

use super::{CheckInputs, Intent, budgeted, duration_budget, require, seconds};
use crate::outcome::{CheckResult, Verdict};
use crate::scenario::{Budget, CheckName, DEFAULT_DOWNTIME};

const CHECK: CheckName = CheckName::Downtime;

pub(super) fn check(
    inputs: &CheckInputs<'_>,
    intent: &Intent,
    budget: Option<&Budget>,
) -> CheckResult {
    let limit = duration_budget(budget, DEFAULT_DOWNTIME);
    let (base, last) = match require(
        CHECK,
        &[("baseline", inputs.baseline), ("final", inputs.final_)],
    ) {
        Ok(s) => (s[0], s[1]),
        Err(e) => return e,
    };
    if inputs.samples.iter().all(|s| s.lb.is_none()) {
        return CheckResult::new(CHECK, Verdict::Error, "no sample read the fake's LB state");
    }
    let services: Vec<String> = base
        .services
        .iter()
        .map(|s| s.key())
        .filter(|k| last.service(k).is_some() && !intent.service_deleted(k))
        .collect();
    if services.is_empty() {
        return CheckResult::new(
            CHECK,
            Verdict::Skipped,
            "no Service existed through the switch",
        );
    }
    let mut worst: Vec<(u64, String)> = Vec::new();
    for key in &services {
        let (mut longest, mut from, mut cause_at) = (0u64, None::<i64>, String::new());
        let mut cause = String::new();
        let mut last_seen = None;
        // From the baseline on: before it, a Service may still be getting its first rule.
        for sample in inputs.samples.iter().filter(|s| s.at_ms >= base.taken_ms) {
            let Some(frontend) = sample.lb.iter().flatten().find(|f| &f.service == key) else {
                continue;
            };
            last_seen = Some(sample.at_ms);
            let bad = !frontend.has_rule || frontend.ready_backends == 0;
            match (bad, from) {
                (true, None) => {
                    from = Some(sample.at_ms);
                    cause = if frontend.has_rule {
                        format!("no Ready backend (of {})", frontend.backends)
                    } else {
                        "no LB rule".to_owned()
                    };
                }
                (false, Some(start)) => {
                    let d = (sample.at_ms - start).max(0) as u64;
                    if d > longest {
                        longest = d;
                        cause_at = format!("{cause} starting {}", intent.when(start));
                    }
                    from = None;
                }
                _ => {}
            }
        }
        if let (Some(start), Some(end)) = (from, last_seen) {
            let d = (end - start).max(0) as u64;
            if d >= longest {
                longest = d;
                cause_at = format!(
                    "{cause} starting {} until the last sample",
                    intent.when(start)
                );
            }
        }
        let line = if longest == 0 {
            format!("service {key}: no downtime")
        } else {
            format!("service {key}: down {} ({cause_at})", seconds(longest))
        };
        worst.push((longest, line));
    }
    worst.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let (max, first) = worst[0].clone();
    budgeted(
        CHECK,
        max <= limit,
        if max == 0 {
            format!("no downtime on {} Services", services.len())
        } else {
            format!("longest downtime {}: {first}", seconds(max))
        },
        format!("max {}", seconds(max)),
        seconds(limit),
        worst.into_iter().map(|(_, l)| l).collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::super::builders::*;
    use super::*;
    use crate::snapshot::{FrontendSample, Sample};

    fn sample(at_ms: i64, has_rule: bool, ready: usize) -> Sample {
        Sample {
            at_ms,
            leases: None,
            processes: vec![],
            nodes: None,
            services: None,
            lb: Some(vec![FrontendSample {
                service: "default/web".into(),
                has_rule,
                ready_backends: ready,
                backends: 2,
            }]),
        }
    }

    #[test]
    fn the_longest_bad_run_counts() {
        let mut run = Run::healthy();
        run.plan = plan("budgets:\n  downtime: 1s\n");
        run.samples = vec![
            sample(0, true, 2),
            sample(250, false, 0),
            sample(750, true, 2),
        ];
        let r = run.check(CHECK);
        assert_eq!(
            (r.verdict, r.measured.as_deref()),
            (Verdict::Pass, Some("max 0.5s"))
        );
        run.samples = vec![
            sample(0, true, 2),
            sample(250, true, 0),
            sample(500, true, 0),
            sample(2_000, true, 0),
            sample(2_250, true, 2),
        ];
        insta::assert_snapshot!(shown(&run.check(CHECK)));
    }
}
