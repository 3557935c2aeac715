//! Row alerts as TestGrid's updater raises them (`alertRow`): a streak of consecutive failing
//! builds, counted from the newest column back, reaching the test group's
//! `num_failures_to_alert` before enough passes close it.

use super::Grid;
use super::status::Coalesced;

/// The test group's alerting settings (the updater reads them from the group, not the tab).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AlertSettings {
    /// Consecutive failing builds that open an alert; 0 turns alerting off (TestGrid's default).
    pub num_failures_to_alert: u32,
    /// Passes, newer than the streak, that mean there is no outage.
    pub num_passes_to_disable_alert: u32,
}

/// An alert on one row.
#[derive(Debug, Clone, PartialEq)]
pub struct RowAlert {
    /// The row.
    pub row: String,
    /// Failing cells counted while walking back (TestGrid's `FailCount`).
    pub fail_count: u32,
    /// The oldest failing build of the streak: where it started.
    pub first_fail_build: String,
    /// The newest failing build.
    pub latest_fail_build: String,
    /// The newest passing build before the streak, if one was seen.
    pub last_pass_build: Option<String>,
    /// The message of the newest failing cell.
    pub message: String,
}

/// The alert on `row`, if TestGrid would raise one.
pub fn row_alert(grid: &Grid, row: &str, settings: &AlertSettings) -> Option<RowAlert> {
    let open = settings.num_failures_to_alert;
    let close = settings.num_passes_to_disable_alert;
    if open == 0 {
        return None;
    }
    let (mut concurrent, mut total, mut passes) = (0u32, 0u32, 0u32);
    let (mut first_fail, mut latest_fail, mut latest_pass) = (None, None, None);
    for index in 0..grid.columns.len() {
        let cell = grid.cell(row, index);
        match Coalesced::of(cell.map(|c| c.status)) {
            Coalesced::Pass => {
                passes += 1;
                if concurrent >= open {
                    latest_pass.get_or_insert(index);
                    if passes >= close {
                        break;
                    }
                } else if passes >= close {
                    return None;
                } else {
                    concurrent = 0;
                }
            }
            Coalesced::Fail => {
                passes = 0;
                latest_pass = None;
                concurrent += 1;
                total += 1;
                if total == 1 {
                    latest_fail = Some(index);
                }
                first_fail = Some(index);
            }
            Coalesced::Flaky => {
                passes = 0;
                if concurrent >= open {
                    break;
                }
                concurrent = 0;
            }
            Coalesced::NoResult | Coalesced::Unknown => {}
        }
    }
    if concurrent < open {
        return None;
    }
    let build = |i: usize| grid.columns[i].build.clone();
    let latest = latest_fail?;
    Some(RowAlert {
        row: row.to_owned(),
        fail_count: total,
        first_fail_build: build(first_fail?),
        latest_fail_build: build(latest),
        last_pass_build: latest_pass.map(build),
        message: grid
            .cell(row, latest)
            .map(|c| c.message.clone())
            .unwrap_or_default(),
    })
}

/// Every alert in the grid, in row order.
pub fn alerts(grid: &Grid, settings: &AlertSettings) -> Vec<RowAlert> {
    grid.rows
        .iter()
        .filter_map(|row| row_alert(grid, row, settings))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::{Cell, Column, Status};

    /// A one-row grid; `results` newest first (`P`, `F`, `K` flaky, `R` running, `-` none).
    fn grid(results: &str) -> Grid {
        let n = results.len() as i64;
        Grid::new(
            results
                .chars()
                .enumerate()
                .map(|(i, r)| {
                    let status = match r {
                        'P' => Some(Status::Pass),
                        'F' => Some(Status::Fail),
                        'K' => Some(Status::Flaky),
                        'R' => Some(Status::Running),
                        _ => None,
                    };
                    Column {
                        job: "j".into(),
                        build: format!("b{}", n - i as i64),
                        started: 1000 * (n - i as i64),
                        finished: None,
                        commit: String::new(),
                        headers: Vec::new(),
                        readable: true,
                        overall: Cell::new(Status::Pass),
                        pod: None,
                        rows: status
                            .map(|s| {
                                vec![("t".to_owned(), Cell::new(s).with_message(&format!("m{i}")))]
                            })
                            .unwrap_or_default(),
                    }
                })
                .collect(),
        )
    }

    fn alert(
        results: &str,
        open: u32,
        close: u32,
    ) -> Option<(u32, String, String, Option<String>)> {
        let settings = AlertSettings {
            num_failures_to_alert: open,
            num_passes_to_disable_alert: close,
        };
        row_alert(&grid(results), "t", &settings).map(|a| {
            (
                a.fail_count,
                a.first_fail_build,
                a.latest_fail_build,
                a.last_pass_build,
            )
        })
    }

    #[test]
    fn streaks_open_alerts_like_testgrid() {
        let some = |n, first: &str, latest: &str, pass: Option<&str>| {
            Some((
                n,
                first.to_owned(),
                latest.to_owned(),
                pass.map(str::to_owned),
            ))
        };
        assert_eq!(alert("FFFP", 0, 1), None, "0 = alerting off");
        assert_eq!(alert("FFP", 3, 1), None);
        assert_eq!(alert("FFFP", 3, 1), some(3, "b2", "b4", Some("b1")));
        assert_eq!(alert("RFF-FP", 3, 1), some(3, "b2", "b5", Some("b1")));
        assert_eq!(alert("FFF", 3, 1), some(3, "b1", "b3", None));
        assert_eq!(alert("FKF", 2, 1), None, "a flaky cell breaks the streak");
        // An older streak behind a flaky cell still counts once it is long enough.
        assert_eq!(alert("FKFF", 2, 1), some(3, "b1", "b4", None));
        assert_eq!(alert("FFKF", 2, 1), some(2, "b3", "b4", None));
        assert_eq!(alert("PFFF", 1, 1), None, "newest pass closes it");
        assert_eq!(alert("FPFF", 2, 2), some(3, "b1", "b4", None));
    }
}
