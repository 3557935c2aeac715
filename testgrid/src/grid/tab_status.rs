//! The dashboard tab's summary status as TestGrid's summarizer decides it (`overallStatus`):
//! BROKEN, then STALE, then FAIL (any row alert), then the most recent completed columns decide
//! FLAKY, PASS or UNKNOWN.

use std::fmt;

use super::Grid;
use super::alerts::{AlertSettings, RowAlert, alerts};
use super::status::Coalesced;
use crate::timefmt::utc_minute;

/// The test group and tab settings the summary depends on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TabSettings {
    /// Row alerting.
    pub alerts: AlertSettings,
    /// Hours after which the newest column makes the tab STALE; 0 = never.
    pub alert_stale_results_hours: u32,
    /// How many recent completed columns decide BROKEN, FLAKY or PASS.
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

/// Counts over the recent columns: the `num_columns_recent` newest that are not still running
/// (TestGrid's `gridMetrics`, over the same columns as the FLAKY/PASS decision).
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
    let recent = Recent::of(grid, settings);
    let stale = stale(grid, settings, now);
    let (status, reason) = if let Some(reason) = recent.broken {
        (TabStatus::Broken, reason)
    } else if let Some(reason) = stale {
        (TabStatus::Stale, reason)
    } else if !alerts.is_empty() {
        (TabStatus::Fail, format!("{} row alert(s)", alerts.len()))
    } else if recent.not_passing {
        (TabStatus::Flaky, String::new())
    } else if recent.stats.passing_cells > 0 {
        (TabStatus::Pass, String::new())
    } else {
        (TabStatus::Unknown, String::new())
    };
    TabSummary {
        status,
        reason,
        alerts,
        stats: recent.stats,
    }
}

/// What the recent columns say: the `num_columns_recent` newest columns that are not still
/// running (testgrid.md §3.5; TestGrid's summarizer skips a column while any cell in it runs).
#[derive(Debug, Default)]
struct Recent {
    /// Their counts.
    stats: RecentStats,
    /// The first of them whose failing-cell ratio is over the broken threshold, and why.
    broken: Option<String>,
    /// Whether any cell in them is not passing (FLAKY unless something decided earlier).
    not_passing: bool,
}

impl Recent {
    /// One pass over the recent columns.
    fn of(grid: &Grid, settings: &TabSettings) -> Self {
        let mut recent = Recent::default();
        let threshold = settings.broken_column_threshold;
        let completed = grid
            .columns
            .iter()
            .enumerate()
            .filter(|(_, column)| !column.is_running())
            .take(settings.num_columns_recent as usize);
        for (index, column) in completed {
            let (mut passes, mut failures, mut other) = (0usize, 0usize, 0usize);
            for row in &grid.rows {
                match Coalesced::of(grid.cell(row, index).map(|c| c.status)) {
                    Coalesced::Pass => passes += 1,
                    Coalesced::Fail => failures += 1,
                    Coalesced::NoResult => {}
                    Coalesced::Flaky | Coalesced::Unknown => other += 1,
                }
            }
            let filled = passes + failures + other;
            let stats = &mut recent.stats;
            stats.passing_cells += passes;
            stats.filled_cells += filled;
            if filled > 0 {
                stats.completed_cols += 1;
            }
            if failures == 0 && passes > 0 {
                stats.passing_cols += 1;
            }
            recent.not_passing |= failures + other > 0;
            let ratio = failures as f32 / filled.max(1) as f32;
            if passes + failures > 0
                && threshold > 0.0
                && ratio > threshold
                && recent.broken.is_none()
            {
                recent.broken = Some(format!(
                    "build {}: {failures} of {filled} cells failing, over broken_column_threshold {threshold}",
                    column.build,
                ));
            }
        }
        recent
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::alerts::AlertSettings;
    use crate::grid::{Cell, Column, Status};

    fn column(build: &str, overall: Status, pod: Option<Status>, test: Status) -> Column {
        let started = build.parse::<i64>().unwrap_or_default() * 1000;
        Column {
            job: "j".into(),
            build: build.into(),
            started,
            finished: (overall != Status::Running).then_some(started + 60),
            commit: String::new(),
            headers: Vec::new(),
            readable: true,
            overall: Cell::new(overall),
            pod: pod.map(Cell::new),
            rows: vec![("t".into(), Cell::new(test))],
        }
    }

    /// Running columns (Overall RUNNING, or Pod waiting for podinfo.json) are not recent for
    /// the counts and BROKEN either: the same columns decide everything.
    #[test]
    fn counts_broken_and_flaky_use_the_same_recent_completed_columns() {
        let grid = Grid::new(vec![
            column("4", Status::Running, None, Status::Fail),
            column("3", Status::Pass, Some(Status::Running), Status::Fail),
            column("2", Status::Pass, None, Status::Pass),
            column("1", Status::Pass, None, Status::Pass),
            column("0", Status::Fail, None, Status::Fail),
        ]);
        let settings = TabSettings {
            alerts: AlertSettings {
                num_failures_to_alert: 0,
                num_passes_to_disable_alert: 1,
            },
            alert_stale_results_hours: 0,
            num_columns_recent: 2,
            broken_column_threshold: 0.5,
        };
        let tab = summarize(&grid, &settings, 5000);
        assert_eq!((tab.status, tab.reason.as_str()), (TabStatus::Pass, ""));
        assert_eq!(
            tab.stats,
            RecentStats {
                passing_cols: 2,
                completed_cols: 2,
                passing_cells: 4,
                filled_cells: 4,
            }
        );
        let three = TabSettings {
            num_columns_recent: 3,
            ..settings
        };
        let tab = summarize(&grid, &three, 5000);
        assert_eq!(tab.status, TabStatus::Broken, "{}", tab.reason);
        assert!(
            tab.reason.starts_with("build 0: 2 of 2 cells failing"),
            "{}",
            tab.reason
        );
    }
}
