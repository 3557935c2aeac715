//! The scenarios as TestGrid rows: one `<testsuite>` per scenario, one `<testcase>` per check,
//! through the `testgrid` crate's JUnit types (which refuse bare skips and stray duplicates).

use std::time::Duration;

use testgrid::junit::{Case, JunitError, JunitReport, SkipReason, Suite};

use super::judgement::{Row, Standing, check_rows, run_row};
use crate::outcome::ScenarioOutcome;

/// Name of every scenario's testsuite: the prefix of each TestGrid row.
pub const SUITE: &str = "ccm-migration-parity";

/// The JUnit document of a run (see the `report` module docs for the row names and verdicts).
pub fn junit_report(outcomes: &[ScenarioOutcome]) -> Result<JunitReport, JunitError> {
    let mut report = JunitReport::new();
    for o in outcomes {
        let mut suite = Suite::new(SUITE)?;
        let run = case(&o.name, &run_row(o))?.with_time(Duration::from_millis(o.duration_ms));
        suite.add_case(run)?;
        if o.failure.is_none() {
            for row in check_rows(o) {
                let case = case(&o.name, &row)?;
                if suite.cases().iter().any(|c| c.name() == case.name()) {
                    suite.add_retry(case)?;
                } else {
                    suite.add_case(case)?;
                }
            }
        }
        report.add_suite(suite);
    }
    Ok(report)
}

/// `[scenario NAME] LABEL`.
fn case_name(scenario: &str, label: &str) -> String {
    format!("[scenario {scenario}] {label}")
}

fn case(scenario: &str, row: &Row) -> Result<Case, JunitError> {
    let name = case_name(scenario, &row.label);
    let body = row.body();
    Ok(match row.standing {
        Standing::Good => {
            let case = Case::pass(name);
            if row.verdict.is_some() {
                // What held (or, for a negative, how it failed) is worth reading in the cell.
                let out = if body.is_empty() {
                    row.message.clone()
                } else {
                    format!("{}\n{body}", row.message)
                };
                case.with_system_out(out)
            } else {
                case
            }
        }
        Standing::Bad => Case::fail(name, row.message.clone(), body),
        Standing::Neutral => {
            let reason = SkipReason::new(row.message.clone())
                .or_else(|_| SkipReason::new("not applicable (no reason given)"))?;
            let case = Case::skip(name, reason);
            if body.is_empty() {
                case
            } else {
                case.with_system_out(body)
            }
        }
    })
}
