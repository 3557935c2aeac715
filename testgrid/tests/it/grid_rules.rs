//! Golden tests of the grid-level rules (reference testgrid.md section 3): row alerts from
//! failure streaks and the dashboard tab's summary status (status coalescing is tested in
//! src/grid/status.rs).

use std::fmt::Write as _;

use crate::fixture::{NOW, START, Tree, case, grid_of};
use testgrid::grid::alerts::AlertSettings;
use testgrid::grid::tab_status::{TabSettings, summarize};
use testgrid::grid::{Grid, ReadOptions};
use testgrid::summary::tab_lines;

const HOUR: i64 = 3600;

/// One build of [`job`]: `passed` (None = still running) and one result letter per test.
type Build<'a> = (Option<bool>, &'a str);

/// Writes job `ci-job` with one build per entry of `builds` (oldest first): each entry gives
/// `passed` (None = still running) and one result letter per test (`P`, `F`, `S`, `K` for a
/// flaky retry, `-` for no testcase).
fn job(t: &Tree, tests: &[&str], builds: &[Build]) -> Grid {
    for (i, (passed, results)) in builds.iter().enumerate() {
        let cases: String = tests
            .iter()
            .zip(results.chars())
            .map(|(name, r)| match r {
                'K' => format!("{}{}", case(name, 'F'), case(name, 'P')),
                '-' => String::new(),
                r => case(name, r),
            })
            .collect();
        let start = START - (builds.len() - i) as i64 * HOUR;
        t.run("ci-job", &(i + 1).to_string(), start, *passed, &cases);
    }
    grid_of(&[t.job("ci-job")], &ReadOptions::at(NOW))
}

fn settings(open: u32, close: u32) -> TabSettings {
    TabSettings {
        alerts: AlertSettings {
            num_failures_to_alert: open,
            num_passes_to_disable_alert: close,
        },
        ..TabSettings::default()
    }
}

/// Walking back from the newest build, `num_failures_to_alert` consecutive failures (running
/// and empty cells skipped) open an alert unless `num_passes_to_disable_alert` newer passes
/// close it first; a flaky cell breaks a streak; 0 turns alerting off.
#[test]
fn row_alerts_follow_num_failures_to_alert_streaks() {
    let t = Tree::new();
    let tests = [
        "fails-since-3",
        "fixed-in-6",
        "flaky-in-6",
        "skips",
        "gap-in-5",
    ];
    let grid = job(
        &t,
        &tests,
        &[
            (Some(false), "PFPSF"),
            (Some(false), "PFPSF"),
            (Some(false), "FFPSF"),
            (Some(false), "FFFSF"),
            (Some(false), "FFFS-"),
            (Some(false), "FPKSF"),
            (None, "F-PSP"),
        ],
    );
    let mut out = String::new();
    for (open, close) in [(1, 1), (2, 1), (3, 1), (2, 2), (0, 1)] {
        let tab = summarize(&grid, &settings(open, close), NOW);
        let _ = write!(
            out,
            "== num_failures_to_alert {open}, num_passes_to_disable_alert {close}\n{}",
            tab_lines(&tab)
        );
    }
    insta::assert_snapshot!(out);
}

/// BROKEN, then STALE, then FAIL (any alert), then the recent completed columns: any
/// non-passing cell makes FLAKY, all green PASS, nothing UNKNOWN. Running columns do not count
/// as recent, and only `num_columns_recent` completed columns are looked at.
#[test]
fn tab_status_decision_order() {
    let tests = ["a", "b", "c"];
    let no_alerts = settings(0, 1);
    let scenarios: Vec<(&str, Vec<Build>, TabSettings, i64)> = vec![
        (
            "pass",
            vec![(Some(true), "PPS"), (Some(true), "PPP")],
            no_alerts,
            NOW,
        ),
        (
            "flaky without alerts",
            vec![(Some(true), "PPP"), (Some(true), "PKP")],
            settings(1, 1),
            NOW,
        ),
        (
            "fail: an alert",
            vec![(Some(true), "PPP"), (Some(false), "PFP")],
            settings(1, 1),
            NOW,
        ),
        (
            "stale beats fail",
            vec![(Some(false), "PFP")],
            settings(1, 1),
            NOW + 200 * HOUR,
        ),
        (
            "broken beats stale",
            vec![(Some(false), "FFP")],
            TabSettings {
                broken_column_threshold: 0.5,
                ..settings(1, 1)
            },
            NOW + 200 * HOUR,
        ),
        (
            "running column skipped",
            vec![(Some(true), "PPP"), (None, "FFF")],
            no_alerts,
            NOW,
        ),
        ("only running", vec![(None, "PPP")], no_alerts, NOW),
        (
            "flaky outside recent window",
            vec![
                (Some(false), "PKP"),
                (Some(true), "PPP"),
                (Some(true), "PPP"),
            ],
            TabSettings {
                num_columns_recent: 2,
                ..no_alerts
            },
            NOW,
        ),
        (
            "flaky inside recent window",
            vec![
                (Some(false), "PKP"),
                (Some(true), "PPP"),
                (Some(true), "PPP"),
            ],
            TabSettings {
                num_columns_recent: 3,
                ..no_alerts
            },
            NOW,
        ),
    ];
    let mut out = String::new();
    for (name, builds, settings, now) in scenarios {
        let t = Tree::new();
        let grid = job(&t, &tests, &builds);
        let tab = summarize(&grid, &settings, now);
        let _ = writeln!(
            out,
            "{name}: {} -- {} | {}",
            tab.status,
            tab.reason,
            tab.stats_line()
        );
    }
    insta::assert_snapshot!(out);
}
