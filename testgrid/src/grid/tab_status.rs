//! The dashboard tab's summary status as TestGrid's summarizer decides it (`overallStatus`):
//! BROKEN, then STALE, then FAIL (any row alert), then the most recent completed columns decide
//! FLAKY, PASS or UNKNOWN.

use std::fmt;

use super::Grid;
use super::alerts::{AlertSettings, RowAlert, alerts};
use super::status::{Coalesced, Status};
use crate::timefmt::utc_minute;

/// The test group and tab settings the summary depends on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TabSettings {
    /// Row alerting.
    pub alerts: AlertSettings,
    /// Hours after which the newest column makes the tab STALE; 0 = never.
    pub alert_stale_results_hours: u32,
    /// How many recent completed columns decide FLAKY or PASS.
    pub num_columns_recent: u32,
    /// A recent column whose failing-cell ratio exceeds this makes the tab BROKEN; 0 = never.
    pub broken_column_threshold: f32,
}

impl Default for TabSettings {
    /// The values `harness testgrid config` writes for our jobs (no broken threshold).
    fn default() -> Self {
        Self {
            alerts: AlertSettings {
                num_failures_to_alert: 1,
                num_passes_to_disable_alert: 1,
            },
            alert_stale_results_hours: 168,
            num_columns_recent: 10,
            broken_column_threshold: 0.0,
        }
    }
}

/// A dashboard tab's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TabStatus {
    /// A recent column is mostly failing.
    Broken,
    /// No recent enough column.
    Stale,
    /// At least one row alert.
    Fail,
    /// A recent completed column has a non-passing cell.
    Flaky,
    /// All recent completed columns are green.
    Pass,
    /// No completed column with results.
    Unknown,
}

impl TabStatus {
    /// The name TestGrid shows.
    pub fn name(self) -> &'static str {
        match self {
            TabStatus::Broken => "BROKEN",
            TabStatus::Stale => "STALE",
            TabStatus::Fail => "FAIL",
            TabStatus::Flaky => "FLAKY",
            TabStatus::Pass => "PASS",
            TabStatus::Unknown => "UNKNOWN",
        }
    }
}

impl fmt::Display for TabStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Counts over the `num_columns_recent` newest columns (TestGrid's `gridMetrics`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RecentStats {
    /// Columns with a passing and no failing cell.
    pub passing_cols: usize,
    /// Columns with any result.
    pub completed_cols: usize,
    /// Passing cells.
    pub passing_cells: usize,
    /// Cells with a result.
    pub filled_cells: usize,
}

/// The tab summary: status, why, the alerts behind it and the recent-column counts.
#[derive(Debug, Clone, PartialEq)]
pub struct TabSummary {
    /// The status.
    pub status: TabStatus,
    /// Why (for BROKEN, STALE and FAIL), else empty.
    pub reason: String,
    /// Row alerts.
    pub alerts: Vec<RowAlert>,
    /// Recent-column counts.
    pub stats: RecentStats,
}

impl TabSummary {
    /// TestGrid's one-line tab stats ("Tab stats: 3 of 5 (60.0%) recent columns passed ...").
    pub fn stats_line(&self) -> String {
        let s = &self.stats;
        if s.filled_cells == 0 {
            return "no completed results".to_owned();
        }
        format!(
            "Tab stats: {} of {} ({:.1}%) recent columns passed ({} of {} or {:.1}% cells)",
            s.passing_cols,
            s.completed_cols,
            percent(s.passing_cols, s.completed_cols),
            s.passing_cells,
            s.filled_cells,
            percent(s.passing_cells, s.filled_cells)
        )
    }
}

fn percent(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

/// Summarises the grid as one dashboard tab at time `now` (epoch seconds).
pub fn summarize(grid: &Grid, settings: &TabSettings, now: i64) -> TabSummary {
    let alerts = alerts(grid, &settings.alerts);
    let (stats, broken) = recent_stats(grid, settings);
    let stale = stale(grid, settings, now);
    let (status, reason) = if let Some(reason) = broken {
        (TabStatus::Broken, reason)
    } else if let Some(reason) = stale {
        (TabStatus::Stale, reason)
    } else if !alerts.is_empty() {
        (TabStatus::Fail, format!("{} row alert(s)", alerts.len()))
    } else {
        (
            recent_status(grid, settings.num_columns_recent),
            String::new(),
        )
    };
    TabSummary {
        status,
        reason,
        alerts,
        stats,
    }
}

fn coalesced(grid: &Grid, row: &str, index: usize) -> Coalesced {
    Coalesced::of(grid.cell(row, index).map(|c| c.status), true)
}

/// Counts over the newest `num_columns_recent` columns, and the first too-red column.
fn recent_stats(grid: &Grid, settings: &TabSettings) -> (RecentStats, Option<String>) {
    let mut stats = RecentStats::default();
    let mut broken = None;
    let recent = settings.num_columns_recent as usize;
    for (index, column) in grid.columns.iter().enumerate().take(recent) {
        let (mut passes, mut failures, mut other) = (0usize, 0usize, 0usize);
        for row in &grid.rows {
            match coalesced(grid, row, index) {
                Coalesced::Pass => passes += 1,
                Coalesced::Fail => failures += 1,
                Coalesced::NoResult => {}
                Coalesced::Flaky | Coalesced::Unknown => other += 1,
            }
        }
        stats.passing_cells += passes;
        stats.filled_cells += passes + failures + other;
        if passes + failures + other > 0 {
            stats.completed_cols += 1;
        }
        if failures == 0 && passes > 0 {
            stats.passing_cols += 1;
        }
        let threshold = settings.broken_column_threshold;
        let ratio = failures as f32 / (passes + failures + other).max(1) as f32;
        if passes + failures > 0 && threshold > 0.0 && ratio > threshold && broken.is_none() {
            broken = Some(format!(
                "build {}: {failures} of {} cells failing, over broken_column_threshold {threshold}",
                column.build,
                passes + failures + other
            ));
        }
    }
    (stats, broken)
}

/// Why the tab is stale, if it is (TestGrid's `staleAlert`, on the newest column's start).
fn stale(grid: &Grid, settings: &TabSettings, now: i64) -> Option<String> {
    let hours = settings.alert_stale_results_hours;
    if hours == 0 {
        return None;
    }
    let newest = grid.columns.first().map_or(0, |c| c.started);
    if newest <= 0 {
        return Some("no completed results".to_owned());
    }
    let age = now - newest;
    (age > i64::from(hours) * 3600).then(|| {
        format!(
            "latest column from {} UTC ({} old), over alert_stale_results_hours {hours}",
            utc_minute(newest),
            go_duration(age - age % 900)
        )
    })
}

/// A duration as Go prints it (`170h15m0s`, `45m0s`).
fn go_duration(secs: i64) -> String {
    let (h, m, s) = (secs / 3600, secs % 3600 / 60, secs % 60);
    if h > 0 {
        format!("{h}h{m}m{s}s")
    } else if m > 0 {
        format!("{m}m{s}s")
    } else {
        format!("{s}s")
    }
}

/// FLAKY, PASS or UNKNOWN from the `recent` newest columns that are not still running.
fn recent_status(grid: &Grid, recent: u32) -> TabStatus {
    let mut recent = recent;
    let mut passing = false;
    for index in 0..grid.columns.len() {
        if recent == 0 {
            break;
        }
        let cells: Vec<Option<Status>> = grid
            .rows
            .iter()
            .map(|row| grid.cell(row, index).map(|c| c.status))
            .collect();
        if cells.contains(&Some(Status::Running)) {
            continue; // unfinished: not yet one of the recent columns
        }
        let mut found = false;
        for status in cells {
            match Coalesced::of(status, true) {
                Coalesced::NoResult => {}
                Coalesced::Pass => found = true,
                _ => return TabStatus::Flaky,
            }
        }
        if found {
            passing = true;
            recent -= 1;
        }
    }
    if passing {
        TabStatus::Pass
    } else {
        TabStatus::Unknown
    }
}
