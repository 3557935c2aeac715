//! `time-to-ingress` (P3): p99 of the time from a `ServiceCreated` mark to the first sample in
//! which the Service has an ingress, against the duration budget. Services created before the
//! first sample are not measured (their first sample would overstate the delay).

use super::p99::{Delays, p99_verdict};
use super::{CheckInputs, Intent, duration_budget, seconds};
use crate::outcome::{CheckResult, Verdict};
use crate::scenario::{Budget, CheckName, DEFAULT_TIME_TO_INGRESS};

const CHECK: CheckName = CheckName::TimeToIngress;

pub(super) fn check(
    inputs: &CheckInputs<'_>,
    intent: &Intent,
    budget: Option<&Budget>,
) -> CheckResult {
    let limit = duration_budget(budget, DEFAULT_TIME_TO_INGRESS);
    let Some(first) = inputs.samples.first() else {
        return CheckResult::new(
            CHECK,
            Verdict::Error,
            "no samples: the sampler recorded nothing",
        );
    };
    let last_ms = inputs.samples.last().map_or(first.at_ms, |s| s.at_ms);
    let mut measured = Delays::default();
    for (key, created) in intent
        .services_created
        .iter()
        .filter(|(_, t)| **t >= first.at_ms)
    {
        let got = inputs
            .samples
            .iter()
            .filter(|s| s.at_ms >= *created)
            .find(|s| {
                s.services
                    .iter()
                    .flatten()
                    .any(|x| &x.service == key && !x.ingress.is_empty())
            });
        match got {
            Some(s) => {
                let d = (s.at_ms - created).max(0) as u64;
                measured.done(d, format!("service {key}: ingress after {}", seconds(d)));
            }
            None if intent
                .services_deleted
                .get(key)
                .is_some_and(|d| d <= &last_ms) => {}
            None => {
                let d = (last_ms - created).max(0) as u64;
                let line = format!("service {key}: no ingress in {} of samples", seconds(d));
                measured.unfinished(d, limit, line);
            }
        }
    }
    p99_verdict(
        CHECK,
        measured,
        limit,
        "time to ingress",
        "Services",
        "no Service was created while sampling",
    )
}

#[cfg(test)]
mod tests {
    use super::super::builders::*;
    use super::*;
    use crate::record::MarkKind;
    use crate::snapshot::{Sample, ServiceSample};

    fn sample(at_ms: i64, ingress: &[&str]) -> Sample {
        Sample {
            at_ms,
            leases: None,
            processes: vec![],
            nodes: None,
            services: Some(vec![ServiceSample {
                service: "default/api".into(),
                ingress: ingress.iter().map(|s| (*s).into()).collect(),
                finalizer: true,
            }]),
            lb: None,
        }
    }

    #[test]
    fn measures_from_the_mark_to_the_first_sample_with_ingress() {
        let mut run = Run::healthy();
        run.plan = plan("budgets:\n  timeToIngress: 2s\n");
        run.samples = vec![
            sample(0, &[]),
            sample(1_000, &[]),
            sample(1_500, &["20.1.2.7"]),
        ];
        run.marks = vec![mark(250, MarkKind::ServiceCreated(obj("api")))];
        let r = run.check(CHECK);
        assert_eq!(r.verdict, Verdict::Pass, "{r:?}");
        assert_eq!(r.measured.as_deref(), Some("p99 1.2s"));
        run.samples[2] = sample(4_000, &["20.1.2.7"]);
        insta::assert_snapshot!(shown(&run.check(CHECK)));
    }
}
