//! Reads one build directory into the column TestGrid's updater would draw, recording every
//! file or value it would drop, misread or reject.

use std::path::Path;

use serde_json::Map;

use super::cell::{Cell, DURATION_METRIC};
use super::json_file::JsonFile;
use super::junit_rows::{self, JunitRows};
use super::metadata_files::{self, FinishedFields, MetadataFiles};
use super::notes::Notes;
use super::pod_row::pod_cell;
use super::status::Status;
use crate::finding::{Code, Finding, Severity};

pub use super::junit_rows::MAX_JUNIT_BYTES;

/// A build without a finished time fails this long after its start (TestGrid's default).
const MAX_RUNTIME_SECS: i64 = 24 * 3600;
/// TestGrid waits this long after the finish time for late files (podinfo.json).
const AFTER_FINISH_SECS: i64 = 3600;

/// Inputs that are not in the files: the clock and the test group's settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReadOptions {
    /// "Now" in epoch seconds: decides RUNNING vs timed out.
    pub now: i64,
    /// The test group's `days_of_results`: older builds show as UNKNOWN. `None` = no limit.
    pub days_of_results: Option<u32>,
    /// The opposite of the group's `disable_prowjob_analysis`: draw the `<job>.Pod` row.
    pub prowjob_analysis: bool,
}

impl ReadOptions {
    /// Options as our generated configuration sets them (no age limit, no Pod row), at `now`.
    pub fn at(now: i64) -> Self {
        Self {
            now,
            days_of_results: None,
            prowjob_analysis: false,
        }
    }
}

/// One build as a grid column.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// Job name: the name of the directory holding the build directory.
    pub job: String,
    /// Build label: the build directory's name.
    pub build: String,
    /// `started.json` timestamp (0 when missing): the display order key.
    pub started: i64,
    /// `finished.json` timestamp, when TestGrid counts the build as complete.
    pub finished: Option<i64>,
    /// The "Commit" header value (blank while running without a version).
    pub commit: String,
    /// The `<job>.Overall` cell.
    pub overall: Cell,
    /// The `<job>.Pod` cell, when the group analyses Prow pods.
    pub pod: Option<Cell>,
    /// Test rows in natural order of their names (Overall and Pod excluded).
    pub rows: Vec<(String, Cell)>,
}

impl Column {
    /// Name of the synthetic Overall row.
    pub fn overall_row(&self) -> String {
        format!("{}.Overall", self.job)
    }

    /// Name of the synthetic Pod row.
    pub fn pod_row(&self) -> String {
        format!("{}.Pod", self.job)
    }

    /// The synthetic rows this column has (Overall, then Pod if drawn).
    pub fn injected_rows(&self) -> Vec<(String, &Cell)> {
        let mut out = vec![(self.overall_row(), &self.overall)];
        if let Some(pod) = &self.pod {
            out.push((self.pod_row(), pod));
        }
        out
    }
}

/// A column plus what TestGrid would have said about the files behind it.
#[derive(Debug, Clone, PartialEq)]
pub struct BuildRead {
    /// The column.
    pub column: Column,
    /// Findings, in the order they were noticed.
    pub findings: Vec<Finding>,
}

/// Problems that stop reading a build directory at all.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// Not a directory we can list.
    #[error("cannot read build directory {path}: {source}")]
    Dir {
        /// The directory.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// Reads a build directory the way TestGrid's updater does.
pub fn read_build(dir: &Path, opts: &ReadOptions) -> Result<BuildRead, ReadError> {
    let meta = std::fs::metadata(dir).map_err(|source| ReadError::Dir {
        path: dir.display().to_string(),
        source,
    })?;
    if !meta.is_dir() {
        return Err(ReadError::Dir {
            path: dir.display().to_string(),
            source: std::io::Error::new(std::io::ErrorKind::NotADirectory, "not a directory"),
        });
    }
    let canonical = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let dir = canonical.as_path();
    let mut notes = Notes::default();
    let job = name_of(dir.parent().unwrap_or(Path::new("")));
    let build = name_of(dir);

    let files = MetadataFiles::read(dir);
    let mut download_failure = None;
    let started = metadata_files::started(&mut notes, &files.started, &mut download_failure);
    let finished = metadata_files::finished(&mut notes, &files.finished, &mut download_failure);
    let podinfo = metadata_files::podinfo(&mut notes, &files.podinfo, &mut download_failure, &job);
    let started = started.unwrap_or(0);
    let mut column = Column {
        job,
        build,
        started,
        finished: finished.as_ref().and_then(FinishedFields::completed_at),
        commit: String::new(),
        overall: Cell::new(Status::Pass),
        pod: None,
        rows: Vec::new(),
    };
    if let Some(failure) = download_failure {
        column.overall = Cell::new(Status::ToolFail).with_message(&failure);
        column.commit = commit(&files, false);
        return Ok(BuildRead {
            column,
            findings: notes.findings,
        });
    }
    if let Some(f) = column.finished
        && started > 0
        && f < started
    {
        notes.note(Severity::Warning, Code::FinishedBeforeStarted, "finished.json", format!(
            "finished timestamp {f} is before started timestamp {started}; the Overall duration metric is negative"
        ));
    }
    let junit = junit_rows::read(dir, &mut notes);
    let deadline = deadline(started, finished.as_ref().and_then(|f| f.timestamp));
    column.overall = overall(
        &mut notes,
        &column,
        finished.as_ref(),
        &junit,
        deadline,
        opts,
    );
    if opts.prowjob_analysis {
        column.pod = pod_cell(podinfo, column.overall.status, opts.now, deadline);
    }
    column.rows = junit.rows;
    column.commit = commit(&files, column.overall.status == Status::Running);
    Ok(BuildRead {
        column,
        findings: notes.findings,
    })
}

/// When TestGrid stops waiting for a build: an hour after its finish time when finished.json
/// has one (even 0), else 24 hours after the start.
fn deadline(started: i64, finished: Option<i64>) -> i64 {
    match finished {
        Some(f) => f.saturating_add(AFTER_FINISH_SECS),
        None => started.saturating_add(MAX_RUNTIME_SECS),
    }
}

fn commit(files: &MetadataFiles, running: bool) -> String {
    let empty = Map::new();
    crate::version::commit_header(
        as_object(&files.started).unwrap_or(&empty),
        as_object(&files.finished).unwrap_or(&empty),
        running,
    )
}

/// The Overall cell: TestGrid's `overallCell`, plus the start-time and age checks, plus the "F"
/// icon when a failed build has no failing testcase (before merging equal names).
fn overall(
    notes: &mut Notes,
    column: &Column,
    finished: Option<&FinishedFields>,
    junit: &JunitRows,
    deadline: i64,
    opts: &ReadOptions,
) -> Cell {
    let completed = finished.and_then(FinishedFields::completed_at);
    // testgrid.md §1.7: an empty or cut-short file (even started.json) means "Malformed
    // artifacts", which TestGrid's overallCell decides before anything else.
    let mut cell = if !notes.malformed.is_empty() {
        Cell::new(Status::Fail)
            .with_icon("E")
            .with_message(&format!(
                "Malformed artifacts: {}",
                notes.malformed.join(", ")
            ))
    } else if column.started == 0 {
        Cell::new(Status::Running)
            .with_icon("R")
            .with_message("start timestamp is 0")
    } else if let Some(days) = opts
        .days_of_results
        .filter(|d| column.started < opts.now - i64::from(*d) * 86_400)
    {
        notes.note(Severity::Warning, Code::BuildTooOld, "started.json", format!(
            "started more than days_of_results={days} days ago: TestGrid shows UNKNOWN \"build too old\""
        ));
        Cell::new(Status::Unknown).with_message("build too old")
    } else if let (Some(f), Some(_)) = (finished, completed) {
        match (f.passed, &f.result) {
            (Some(true), _) => Cell::new(Status::Pass),
            (Some(false), _) => Cell::new(Status::Fail),
            (None, Some(res)) => {
                let status = if res == "SUCCESS" {
                    Status::Pass
                } else {
                    Status::Fail
                };
                Cell::new(status)
                    .with_icon("E")
                    .with_message(&format!("finished.json missing passed (result {res})"))
            }
            (None, None) => Cell::new(Status::Fail),
        }
    } else if opts.now > deadline {
        Cell::new(Status::Fail)
            .with_icon("T")
            .with_message("Testing did not complete within 24 hours")
    } else {
        Cell::new(Status::Running)
            .with_icon("R")
            .with_message("Build still running...")
    };
    if cell.status == Status::Fail && cell.message.is_empty() && !junit.any_failing_case {
        cell = cell
            .with_icon("F")
            .with_message("Build failed outside of test results");
    }
    if let Some(f) = completed
        && column.started > 0
    {
        cell.metrics.insert(
            DURATION_METRIC.to_owned(),
            (f - column.started) as f64 / 60.0,
        );
    }
    cell
}

fn as_object(f: &JsonFile) -> Option<&Map<String, serde_json::Value>> {
    match f {
        JsonFile::Object(m) => Some(m),
        _ => None,
    }
}

fn name_of(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}
