//! How each check of a scenario reads in the reports: one judgement shared by the JUnit rows and
//! the HTML page, so a colour never says something the grid does not (see the module docs of
//! `report` for why a negative scenario's checks are judged the way they are).

use crate::outcome::{CheckResult, ScenarioOutcome, Verdict};
use crate::scenario::{CheckName, Expect};

/// Whether a row counts for or against the scenario's expectation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Standing {
    /// Ended as expected (green).
    Good,
    /// Did not (red).
    Bad,
    /// Says nothing about the expectation: skipped, or a collateral failure in a negative
    /// scenario (an S cell, grey).
    Neutral,
}

/// One row of a scenario.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Row {
    /// `ingress-ip-stable`, `ingress-ip-stable fails as expected` or `run`.
    pub label: String,
    /// The raw verdict; `None` for the rows the report adds (`run`, a named check that never ran).
    pub verdict: Option<Verdict>,
    /// What the row means for the expectation.
    pub standing: Standing,
    /// One line, the check's reason with what the judgement adds.
    pub message: String,
    /// Offending objects, one per line.
    pub details: Vec<String>,
    /// Measured figure.
    pub measured: Option<String>,
    /// Budget.
    pub budget: Option<String>,
}

impl Row {
    /// The body of a failure or note: details, then the figures.
    pub fn body(&self) -> String {
        let mut lines = self.details.clone();
        match (&self.measured, &self.budget) {
            (Some(m), Some(b)) => lines.push(format!("measured {m}, budget {b}")),
            (Some(m), None) => lines.push(format!("measured {m}")),
            (None, Some(b)) => lines.push(format!("budget {b}")),
            (None, None) => {}
        }
        lines.join("\n")
    }
}

/// The row every scenario gets: fails when the run broke off before its checks.
pub(crate) fn run_row(o: &ScenarioOutcome) -> Row {
    let (standing, message, details) = match &o.failure {
        Some(failure) => (
            Standing::Bad,
            format!("run broke off: {failure}"),
            o.checks
                .iter()
                .map(|c| format!("{}: {}: {}", c.check, verdict_name(c.verdict), c.reason))
                .collect(),
        ),
        None => (
            Standing::Good,
            format!(
                "ran to its checks in {}",
                super::duration::human(o.duration_ms)
            ),
            Vec::new(),
        ),
    };
    Row {
        label: "run".to_owned(),
        verdict: None,
        standing,
        message,
        details,
        measured: None,
        budget: None,
    }
}

/// One row per check, in the outcome's order, plus a red row when a negative scenario's named
/// check is missing from it.
pub(crate) fn check_rows(o: &ScenarioOutcome) -> Vec<Row> {
    let mut rows: Vec<Row> = o
        .checks
        .iter()
        .map(|c| {
            let mut row = judge(o.expect, c);
            if o.tolerated(c) {
                row.standing = Standing::Neutral;
                row.message = format!(
                    "failed, which this build may do (its timing decides): {}",
                    c.reason
                );
            }
            row
        })
        .collect();
    if let Expect::Fail(named) = o.expect
        && !o.checks.iter().any(|c| c.check == named)
    {
        rows.push(Row {
            label: expected_failure_label(named),
            verdict: None,
            standing: Standing::Bad,
            message: format!("expected {named} to fail, but it did not run"),
            details: Vec::new(),
            measured: None,
            budget: None,
        });
    }
    rows
}

fn expected_failure_label(check: CheckName) -> String {
    format!("{check} fails as expected")
}

fn judge(expect: Expect, c: &CheckResult) -> Row {
    let reason = c.reason.as_str();
    let (label, standing, message) = match expect {
        Expect::Fail(named) if named == c.check => {
            let label = expected_failure_label(named);
            match c.verdict {
                Verdict::Fail => (
                    label,
                    Standing::Good,
                    format!("failed as expected: {reason}"),
                ),
                Verdict::Pass => (
                    label,
                    Standing::Bad,
                    format!("expected {named} to fail, it passed: {reason}"),
                ),
                Verdict::Error => (
                    label,
                    Standing::Bad,
                    format!("expected {named} to fail, it could not be evaluated: {reason}"),
                ),
                Verdict::Skipped => (
                    label,
                    Standing::Bad,
                    format!("expected {named} to fail, it was skipped: {reason}"),
                ),
            }
        }
        Expect::Fail(named) => {
            let label = c.check.to_string();
            match c.verdict {
                Verdict::Pass => (label, Standing::Good, reason.to_owned()),
                Verdict::Skipped => (label, Standing::Neutral, reason.to_owned()),
                Verdict::Fail | Verdict::Error => (
                    label,
                    Standing::Neutral,
                    format!(
                        "not judged (this negative scenario tests {named}): {}: {reason}",
                        verdict_name(c.verdict)
                    ),
                ),
            }
        }
        Expect::Pass => {
            let label = c.check.to_string();
            match c.verdict {
                Verdict::Pass => (label, Standing::Good, reason.to_owned()),
                Verdict::Fail => (label, Standing::Bad, reason.to_owned()),
                Verdict::Error => (label, Standing::Bad, format!("error: {reason}")),
                Verdict::Skipped => (label, Standing::Neutral, reason.to_owned()),
            }
        }
    };
    Row {
        label,
        verdict: Some(c.verdict),
        standing,
        message,
        details: c.details.clone(),
        measured: c.measured.clone(),
        budget: c.budget.clone(),
    }
}

/// The lower-case verdict word.
pub(crate) fn verdict_name(v: Verdict) -> &'static str {
    match v {
        Verdict::Pass => "pass",
        Verdict::Fail => "fail",
        Verdict::Error => "error",
        Verdict::Skipped => "skipped",
    }
}

/// `pass`, or `fail: CHECK`.
pub(crate) fn expect_text(e: Expect) -> String {
    match e {
        Expect::Pass => "pass".to_owned(),
        Expect::Fail(check) => format!("fail: {check}"),
    }
}

/// The procedure as spelled in scenario files.
pub(crate) fn procedure_name(p: crate::scenario::Procedure) -> &'static str {
    use crate::scenario::Procedure;
    match p {
        Procedure::Cold => "cold",
        Procedure::Quiesce => "quiesce",
        Procedure::LeaderMigration => "leader-migration",
        Procedure::Rollback => "rollback",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(expect: Expect, checks: Vec<CheckResult>) -> ScenarioOutcome {
        ScenarioOutcome::example(expect, checks)
    }

    fn standings(o: &ScenarioOutcome) -> Vec<(String, Standing)> {
        check_rows(o)
            .into_iter()
            .map(|r| (r.label, r.standing))
            .collect()
    }

    /// For every combination, the rows show red exactly when the scenario did not meet its
    /// expectation (the outcome's own rule), so the grid and finished.json never disagree.
    #[test]
    fn red_rows_exactly_when_the_expectation_is_not_met() {
        let verdicts = [
            Verdict::Pass,
            Verdict::Fail,
            Verdict::Error,
            Verdict::Skipped,
        ];
        let expects = [Expect::Pass, Expect::Fail(CheckName::IngressIpStable)];
        for expect in expects {
            for a in verdicts {
                for b in verdicts {
                    let o = outcome(
                        expect,
                        vec![
                            CheckResult::new(CheckName::IngressIpStable, a, "x"),
                            CheckResult::new(CheckName::PipIdStable, b, "y"),
                        ],
                    );
                    let red = check_rows(&o).iter().any(|r| r.standing == Standing::Bad);
                    assert_eq!(red, !o.met_expectation(), "{expect:?} {a:?} {b:?}");
                }
            }
        }
    }

    #[test]
    fn negative_scenario_rows() {
        let expect = Expect::Fail(CheckName::IngressIpStable);
        let o = outcome(
            expect,
            vec![
                CheckResult::new(CheckName::IngressIpStable, Verdict::Fail, "ip changed"),
                CheckResult::new(CheckName::PipIdStable, Verdict::Fail, "pip recreated"),
                CheckResult::new(CheckName::LabelsEqual, Verdict::Pass, "equal"),
            ],
        );
        assert_eq!(
            standings(&o),
            [
                (
                    "ingress-ip-stable fails as expected".to_owned(),
                    Standing::Good
                ),
                ("pip-id-stable".to_owned(), Standing::Neutral),
                ("labels-equal".to_owned(), Standing::Good),
            ]
        );
        let missing = outcome(expect, vec![]);
        let rows = check_rows(&missing);
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].standing, Standing::Bad);
        assert_eq!(
            rows[0].message,
            "expected ingress-ip-stable to fail, but it did not run"
        );
    }

    #[test]
    fn run_row_carries_the_break_off_reason() {
        let mut o = outcome(
            Expect::Pass,
            vec![CheckResult::new(
                CheckName::LabelsEqual,
                Verdict::Error,
                "no baseline",
            )],
        );
        assert_eq!(run_row(&o).standing, Standing::Good);
        o.failure = Some("fake did not start".into());
        let row = run_row(&o);
        assert_eq!(row.standing, Standing::Bad);
        assert_eq!(row.message, "run broke off: fake did not start");
        assert_eq!(row.body(), "labels-equal: error: no baseline");
    }
}
