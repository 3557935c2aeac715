//! The terminal summary printed by `harness report`: the tab status and alerts TestGrid would
//! show, counts per status, and what is failing in each job's newest build.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::grid::tab_status::TabSummary;
use crate::grid::{Grid, Status};
use crate::timefmt::utc_minute;

/// Renders the summary: totals over all cells, the tab status and alerts, then each job's
/// newest build with its failures.
pub fn render(grid: &Grid, tab: &TabSummary) -> String {
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
    out.push_str(&tab_lines(tab));
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

/// The tab status, its reason, TestGrid's tab stats line and the row alerts.
pub fn tab_lines(tab: &TabSummary) -> String {
    let mut out = format!("tab {}", tab.status);
    if !tab.reason.is_empty() {
        let _ = write!(out, " -- {}", tab.reason);
    }
    let _ = writeln!(out, "\n{}", tab.stats_line());
    if tab.alerts.is_empty() {
        out.push_str("no alerts\n");
        return out;
    }
    let _ = writeln!(out, "alerts ({}):", tab.alerts.len());
    for a in &tab.alerts {
        let _ = write!(
            out,
            "  {}: {} failure(s), failing since build {} (newest failure {}",
            a.row, a.fail_count, a.first_fail_build, a.latest_fail_build
        );
        match &a.last_pass_build {
            Some(p) => {
                let _ = write!(out, ", last pass {p})");
            }
            None => out.push_str(", no pass seen)"),
        }
        if !a.message.is_empty() {
            let _ = write!(out, " -- {}", a.message.replace('\n', " "));
        }
        out.push('\n');
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
