//! What one scenario run produced: a verdict per check, whether the scenario met its `expect`,
//! and where its files are. The one input of every report (TestGrid artifacts, HTML, summary).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::scenario::{CheckName, Expect, Procedure};

/// How one check ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The invariant held (or the measure stayed within its budget).
    Pass,
    /// The invariant broke; `reason` says where.
    Fail,
    /// The check could not be evaluated (data missing because the run broke off).
    Error,
    /// Nothing to check in this scenario (e.g. `routes-stable` on Azure CNI).
    Skipped,
}

/// One check's verdict, with the reason a human reads first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckResult {
    /// Which check.
    pub check: CheckName,
    /// Its verdict.
    pub verdict: Verdict,
    /// One line: what held, or the first thing that broke ("service default/web: ingress 20.1.2.3
    /// became 20.1.2.9 after the switch; ...").
    pub reason: String,
    /// Every offending object, one line each (empty when it passed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<String>,
    /// The measured figure of a budgeted check (`p99 4.2s`, `7 calls/node`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured: Option<String>,
    /// The budget it was held to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<String>,
}

impl CheckResult {
    /// A result with no details or figures.
    pub fn new(check: CheckName, verdict: Verdict, reason: impl Into<String>) -> Self {
        Self {
            check,
            verdict,
            reason: reason.into(),
            details: Vec::new(),
            measured: None,
            budget: None,
        }
    }
}

/// The timing of one phase of the run (`provision`, `in-tree`, `before`, `switch`, `after`,
/// `rollback`, `checks`, `teardown`), for the report's timeline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PhaseTiming {
    /// Phase label.
    pub phase: String,
    /// Start, Unix epoch milliseconds.
    pub started_ms: i64,
    /// Duration in milliseconds.
    pub duration_ms: u64,
}

/// Everything one scenario run produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScenarioOutcome {
    /// Scenario name.
    pub name: String,
    /// Its description.
    pub description: String,
    /// Kubernetes minor it ran as.
    pub kubernetes_version: String,
    /// Switch procedure.
    pub procedure: Procedure,
    /// `pass`, or the check that had to fail.
    pub expect: Expect,
    /// Start, Unix epoch milliseconds.
    pub started_ms: i64,
    /// Wall time of the whole scenario, milliseconds.
    pub duration_ms: u64,
    /// Phase timings in order.
    pub phases: Vec<PhaseTiming>,
    /// Verdicts, in the plan's check order.
    pub checks: Vec<CheckResult>,
    /// Why the run broke off before its checks (a process failed to start, a timeout); the
    /// checks that could not run are then `Error`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// Directory of this scenario's logs, snapshots and samples.
    pub artifacts: PathBuf,
    /// Set when `expect` is the tested build's (a documented behaviour of that build): why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_for_build: Option<String>,
    /// Checks the tested build may fail without missing its expectation (see
    /// `crate::expectations`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub may_fail: Vec<CheckName>,
    /// What the run cost: managers' peak RSS and CPU, the out-of-tree managers' ARM calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub figures: Option<crate::figures::ScenarioFigures>,
}

impl ScenarioOutcome {
    /// True when the run ended as the scenario expects: every check passed (or was skipped) for
    /// `pass`; the named check failed for `{fail: check}`. A broken-off run never meets it.
    pub fn met_expectation(&self) -> bool {
        if self.failure.is_some() {
            return false;
        }
        match self.expect {
            Expect::Pass => self.checks.iter().all(|c| {
                matches!(c.verdict, Verdict::Pass | Verdict::Skipped) || self.tolerated(c)
            }),
            Expect::Fail(check) => self
                .checks
                .iter()
                .any(|c| c.check == check && c.verdict == Verdict::Fail),
        }
    }

    /// True for a failed check the tested build may fail (its timing decides).
    pub fn tolerated(&self, c: &CheckResult) -> bool {
        c.verdict == Verdict::Fail && self.may_fail.contains(&c.check)
    }

    /// One line for logs and the summary table: why it did not meet its expectation, or `ok`.
    pub fn explanation(&self) -> String {
        if let Some(failure) = &self.failure {
            return format!("run broke off: {failure}");
        }
        match self.expect {
            Expect::Pass => {
                let failed: Vec<String> = self
                    .checks
                    .iter()
                    .filter(|c| !matches!(c.verdict, Verdict::Pass | Verdict::Skipped))
                    .filter(|c| !self.tolerated(c))
                    .map(|c| format!("{}: {}", c.check, c.reason))
                    .collect();
                if failed.is_empty() {
                    "ok".to_owned()
                } else {
                    failed.join("; ")
                }
            }
            Expect::Fail(check) => match self.checks.iter().find(|c| c.check == check) {
                Some(c) if c.verdict == Verdict::Fail => {
                    format!("ok: {check} failed: {}", c.reason)
                }
                Some(c) => format!(
                    "expected {check} to fail, it ended {:?}: {}",
                    c.verdict, c.reason
                ),
                None => format!("expected {check} to fail, but it did not run"),
            },
        }
    }
}

#[cfg(test)]
impl ScenarioOutcome {
    /// A one-second cold-switch outcome named `s` with `checks`, for tests of what reads outcomes.
    pub(crate) fn example(expect: Expect, checks: Vec<CheckResult>) -> Self {
        ScenarioOutcome {
            name: "s".into(),
            description: String::new(),
            kubernetes_version: "1.29".into(),
            procedure: Procedure::Cold,
            expect,
            started_ms: 0,
            duration_ms: 1_000,
            phases: vec![],
            checks,
            failure: None,
            artifacts: PathBuf::new(),
            expected_for_build: None,
            may_fail: Vec::new(),
            figures: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(expect: Expect, checks: Vec<CheckResult>) -> ScenarioOutcome {
        ScenarioOutcome::example(expect, checks)
    }

    #[test]
    fn pass_needs_every_check_to_pass_or_skip() {
        let ok = CheckResult::new(CheckName::LabelsEqual, Verdict::Pass, "equal");
        let skipped = CheckResult::new(CheckName::RoutesStable, Verdict::Skipped, "no routes");
        let failed = CheckResult::new(CheckName::IngressIpStable, Verdict::Fail, "changed");
        assert!(outcome(Expect::Pass, vec![ok.clone(), skipped.clone()]).met_expectation());
        let bad = outcome(Expect::Pass, vec![ok, failed]);
        assert!(!bad.met_expectation());
        assert_eq!(bad.explanation(), "ingress-ip-stable: changed");
    }

    #[test]
    fn a_check_the_build_may_fail_is_tolerated_only_when_it_fails() {
        let ok = CheckResult::new(CheckName::LabelsEqual, Verdict::Pass, "equal");
        let over = CheckResult::new(CheckName::ArmCallBudget, Verdict::Fail, "30 calls/Service");
        let error = CheckResult::new(CheckName::ArmCallBudget, Verdict::Error, "no journal");
        let mut o = outcome(Expect::Pass, vec![ok.clone(), over]);
        assert!(!o.met_expectation());
        o.may_fail = vec![CheckName::ArmCallBudget];
        assert!(o.met_expectation(), "{}", o.explanation());
        assert_eq!(o.explanation(), "ok");
        let mut broken = outcome(Expect::Pass, vec![ok, error]);
        broken.may_fail = vec![CheckName::ArmCallBudget];
        assert!(!broken.met_expectation(), "an error is never tolerated");
    }

    #[test]
    fn a_negative_needs_its_named_check_to_fail() {
        let failed = CheckResult::new(CheckName::IngressIpStable, Verdict::Fail, "changed");
        let error = CheckResult::new(CheckName::IngressIpStable, Verdict::Error, "no data");
        let expect = Expect::Fail(CheckName::IngressIpStable);
        assert!(outcome(expect, vec![failed]).met_expectation());
        assert!(!outcome(expect, vec![error]).met_expectation());
        assert!(!outcome(expect, vec![]).met_expectation());
        let mut broken = outcome(expect, vec![]);
        broken.failure = Some("fake did not start".into());
        assert!(!broken.met_expectation());
        assert_eq!(broken.explanation(), "run broke off: fake did not start");
    }
}
