//! The grid TestGrid draws: columns are builds (newest first), rows are tests plus Overall.

pub mod alerts;
pub mod cell;
pub mod column;
pub mod json_file;
pub mod junit_rows;
pub mod load;
pub mod metadata_files;
pub mod notes;
pub mod pod_row;
pub mod status;
pub mod tab_status;

use std::collections::{BTreeMap, BTreeSet};

use crate::natural::natural_cmp;
pub use cell::Cell;
pub use column::{BuildRead, Column, DAYS_OF_RESULTS, ReadOptions, place_unreadable, read_build};
pub use status::{Coalesced, Status};

/// Columns and rows ready to draw or summarise.
#[derive(Debug, Clone, PartialEq)]
pub struct Grid {
    /// Builds, newest `started` first (ties: greater build id first).
    pub columns: Vec<Column>,
    /// Row names: the synthetic Overall (and Pod) rows first, then tests in natural order.
    /// This is our page's choice; TestGrid itself sorts every row naturally, see
    /// [`Grid::testgrid_rows`].
    pub rows: Vec<String>,
    cells: Vec<BTreeMap<String, Cell>>,
}

impl Grid {
    /// Builds the grid. With builds of more than one job, test rows are prefixed with
    /// `<job>.` and plain `Overall` (and `Pod`) rows are added, as in TestGrid's multi-job groups.
    pub fn new(mut columns: Vec<Column>) -> Self {
        place_unreadable(&mut columns);
        columns.sort_by(|a, b| {
            b.started
                .cmp(&a.started)
                .then_with(|| natural_cmp(&b.build, &a.build))
        });
        let jobs: BTreeSet<&str> = columns.iter().map(|c| c.job.as_str()).collect();
        let multi_job = jobs.len() > 1;
        let mut overall_rows = BTreeSet::new();
        let mut test_rows = BTreeSet::new();
        let cells: Vec<BTreeMap<String, Cell>> = columns
            .iter()
            .map(|col| {
                let mut map = BTreeMap::new();
                for (name, cell) in col.injected_rows() {
                    if multi_job {
                        // Multi-job groups also get the plain `Overall`/`Pod` rows.
                        overall_rows.insert(name.to_owned());
                        map.insert(name.to_owned(), cell.clone());
                    }
                    let row = col.job_row(name);
                    overall_rows.insert(row.clone());
                    map.insert(row, cell.clone());
                }
                for (name, cell) in &col.rows {
                    let row = if multi_job {
                        format!("{}.{name}", col.job)
                    } else {
                        name.clone()
                    };
                    test_rows.insert(row.clone());
                    map.insert(row, cell.clone());
                }
                map
            })
            .collect();
        let mut overall_rows: Vec<String> = overall_rows.into_iter().collect();
        overall_rows.sort_by(|a, b| natural_cmp(a, b));
        let mut test_rows: Vec<String> = test_rows
            .into_iter()
            .filter(|r| !overall_rows.contains(r))
            .collect();
        test_rows.sort_by(|a, b| natural_cmp(a, b));
        let rows = overall_rows.into_iter().chain(test_rows).collect();
        Self {
            columns,
            rows,
            cells,
        }
    }

    /// The rows in the order TestGrid's dashboard lists them: `ConstructGrid`
    /// (`pkg/updater/updater.go`) sorts every row, Overall included, by natural order of its
    /// name (so `ccm-parity.*` comes before `ci-job.Overall`).
    pub fn testgrid_rows(&self) -> Vec<&str> {
        let mut rows: Vec<&str> = self.rows.iter().map(String::as_str).collect();
        rows.sort_by(|a, b| natural_cmp(a, b));
        rows
    }

    /// The cell of `row` in column `index`, if that build has one.
    pub fn cell(&self, row: &str, index: usize) -> Option<&Cell> {
        self.cells.get(index).and_then(|m| m.get(row))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column(job: &str, build: &str, started: i64, rows: &[(&str, Status)]) -> Column {
        Column {
            job: job.into(),
            build: build.into(),
            started,
            finished: Some(started + 60),
            commit: "missing".into(),
            headers: Vec::new(),
            readable: true,
            overall: Cell::new(Status::Pass),
            pod: None,
            rows: rows
                .iter()
                .map(|(n, s)| ((*n).to_owned(), Cell::new(*s)))
                .collect(),
        }
    }

    #[test]
    fn columns_newest_first_by_start_then_id() {
        let g = Grid::new(vec![
            column("j", "9", 100, &[]),
            column("j", "10", 300, &[]),
            column("j", "11", 300, &[]),
        ]);
        let order: Vec<&str> = g.columns.iter().map(|c| c.build.as_str()).collect();
        assert_eq!(order, ["11", "10", "9"]);
    }

    #[test]
    fn overall_first_then_natural_rows_and_job_prefix_for_many_jobs() {
        let g = Grid::new(vec![column(
            "j",
            "1",
            1,
            &[("s.t10", Status::Pass), ("s.t9", Status::Fail)],
        )]);
        assert_eq!(g.rows, ["j.Overall", "s.t9", "s.t10"]);
        assert_eq!(g.testgrid_rows(), ["j.Overall", "s.t9", "s.t10"]);
        assert_eq!(g.cell("s.t9", 0).map(|c| c.status), Some(Status::Fail));
        let g = Grid::new(vec![
            column("a", "1", 1, &[("s.x", Status::Pass)]),
            column("b", "1", 2, &[("s.x", Status::Pass)]),
        ]);
        assert_eq!(
            g.rows,
            ["Overall", "a.Overall", "b.Overall", "a.s.x", "b.s.x"]
        );
    }
}
