//! The plain-text table `harness run` prints at the end (and the README shows).

use std::fmt::Write as _;

use super::duration::human;
use super::judgement::{expect_text, procedure_name};
use crate::outcome::{ScenarioOutcome, Verdict};

/// One line per scenario (scenario, procedure, checks passed/failed/errored/skipped, expectation,
/// whether it was met, duration, and why not), then a total line.
pub fn summary_table(outcomes: &[ScenarioOutcome]) -> String {
    let header = [
        "SCENARIO",
        "PROCEDURE",
        "PASS",
        "FAIL",
        "ERR",
        "SKIP",
        "EXPECT",
        "RESULT",
        "DURATION",
        "WHY",
    ];
    let mut rows: Vec<[String; 10]> = Vec::with_capacity(outcomes.len());
    for o in outcomes {
        let count = |v: Verdict| {
            o.checks
                .iter()
                .filter(|c| c.verdict == v)
                .count()
                .to_string()
        };
        let met = o.met_expectation();
        rows.push([
            o.name.clone(),
            procedure_name(o.procedure).to_owned(),
            count(Verdict::Pass),
            count(Verdict::Fail),
            count(Verdict::Error),
            count(Verdict::Skipped),
            expect_text(o.expect),
            match (met, &o.expected_for_build) {
                (true, None) => "met",
                (true, Some(_)) => "met (build)",
                (false, _) => "NOT MET",
            }
            .to_owned(),
            human(o.duration_ms),
            match (met, &o.expected_for_build) {
                (true, None) => String::new(),
                (true, Some(why)) => format!("as expected for this build: {}", one_line(why)),
                (false, _) => one_line(&o.explanation()),
            },
        ]);
    }
    let mut widths = header.map(str::len);
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let numeric = |i: usize| (2..=5).contains(&i);
    let mut out = String::new();
    let mut line = |cells: &[&str]| {
        let mut text = String::new();
        for (i, cell) in cells.iter().enumerate() {
            if i > 0 {
                text.push_str("  ");
            }
            if i + 1 == cells.len() {
                text.push_str(cell);
            } else if numeric(i) {
                let _ = write!(text, "{cell:>w$}", w = widths[i]);
            } else {
                let _ = write!(text, "{cell:<w$}", w = widths[i]);
            }
        }
        out.push_str(text.trim_end());
        out.push('\n');
    };
    line(&header);
    for row in &rows {
        line(&row.each_ref().map(String::as_str));
    }
    let met = outcomes.iter().filter(|o| o.met_expectation()).count();
    let total_ms: u64 = outcomes.iter().map(|o| o.duration_ms).sum();
    let _ = writeln!(
        out,
        "{met} of {} scenario(s) met their expectation; total scenario time {}",
        outcomes.len(),
        human(total_ms)
    );
    out
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
