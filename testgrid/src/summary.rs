//! The terminal summary printed by `harness report`: counts per status and what is failing.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::grid::{Grid, Status};
use crate::timefmt::utc_minute;

/// Renders the summary: totals over all cells, then each job's newest build with its failures.
pub fn render(grid: &Grid) -> String {
    let mut out = String::new();
    let mut totals: BTreeMap<Status, usize> = BTreeMap::new();
    for i in 0..grid.columns.len() {
        for row in &grid.rows {
            if let Some(c) = grid.cell(row, i) {
                *totals.entry(c.status).or_default() += 1;
            }
        }
    }
    let _ = writeln!(
        out,
        "{} build(s), {} row(s); cells: {}",
        grid.columns.len(),
        grid.rows.len(),
        counts(&totals)
    );
    let mut seen_jobs = Vec::new();
    for (i, col) in grid.columns.iter().enumerate() {
        if seen_jobs.contains(&col.job) {
            continue;
        }
        seen_jobs.push(col.job.clone());
        let mut newest: BTreeMap<Status, usize> = BTreeMap::new();
        let mut failing = Vec::new();
        for row in &grid.rows {
            let Some(c) = grid.cell(row, i) else { continue };
            *newest.entry(c.status).or_default() += 1;
            if c.status.is_failing() || c.status == Status::Flaky {
                failing.push((row, c));
            }
        }
        let _ = writeln!(
            out,
            "newest {} build {} ({} UTC, commit {}): Overall {}; {}",
            col.job,
            col.build,
            utc_minute(col.started),
            col.commit,
            col.overall.status.name(),
            counts(&newest)
        );
        if failing.is_empty() {
            let _ = writeln!(out, "  nothing failing");
        } else {
            let _ = writeln!(out, "  failing ({}):", failing.len());
            for (row, c) in failing {
                let msg = c.message.replace('\n', " ");
                let _ = writeln!(
                    out,
                    "  {:<6} {row}{}",
                    c.status.name(),
                    if msg.is_empty() {
                        String::new()
                    } else {
                        format!(" -- {msg}")
                    }
                );
            }
        }
    }
    out
}

fn counts(m: &BTreeMap<Status, usize>) -> String {
    if m.is_empty() {
        return "none".to_owned();
    }
    m.iter()
        .map(|(s, n)| format!("{} {n}", s.name()))
        .collect::<Vec<_>>()
        .join(", ")
}
