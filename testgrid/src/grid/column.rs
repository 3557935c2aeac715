//! Reads one build directory into the column TestGrid's updater would draw, recording every
//! file or value it would drop, misread or reject.

use std::path::Path;

use serde_json::Map;

use super::cell::{Cell, DURATION_METRIC};
use super::json_file::JsonFile;
use super::junit_rows;
use super::metadata_files::{self, FinishedFields, MetadataFiles};
use super::notes::Notes;
use super::pod_row::pod_cell;
use super::status::Status;
use crate::finding::{Code, Finding, Severity};
use crate::finished::JobResult;

/// A build without a finished time fails this long after its start (TestGrid's default).
const MAX_RUNTIME_SECS: i64 = 24 * 3600;
/// TestGrid waits this long after the finish time for late files (podinfo.json).
const AFTER_FINISH_SECS: i64 = 3600;
/// The days TestGrid's updater keeps when a test group leaves `days_of_results` at 0.
const UNSET_DAYS_OF_RESULTS: u32 = 7;
const DAY_SECS: i64 = 86_400;

/// The `days_of_results` `harness testgrid config` writes (test-infra's default.yaml value):
/// the reader's default, so the validator drops the builds TestGrid would drop.
pub const DAYS_OF_RESULTS: u32 = 15;
/// The synthetic row drawn from started.json and finished.json.
pub const OVERALL_ROW: &str = "Overall";
/// The synthetic row drawn from podinfo.json when the group analyses Prow pods.
pub const POD_ROW: &str = "Pod";

/// Inputs that are not in the files: the clock and the test group's settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReadOptions {
    /// "Now" in epoch seconds: decides RUNNING vs timed out.
    pub now: i64,
    /// The test group's `days_of_results`: builds started earlier show as UNKNOWN; 0 means
    /// TestGrid's own default of 7.
    pub days_of_results: u32,
    /// The opposite of the group's `disable_prowjob_analysis`: draw the `<job>.Pod` row.
    pub prowjob_analysis: bool,
}

impl ReadOptions {
    /// Options as our generated configuration sets them ([`DAYS_OF_RESULTS`], no Pod row), at
    /// `now`.
    pub fn at(now: i64) -> Self {
        Self {
            now,
            days_of_results: DAYS_OF_RESULTS,
            prowjob_analysis: false,
        }
    }

    /// The days TestGrid keeps: the group's `days_of_results`, or its default when that is 0.
    pub fn days_kept(&self) -> u32 {
        match self.days_of_results {
            0 => UNSET_DAYS_OF_RESULTS,
            days => days,
        }
    }

    /// Whether a build that started at `started` is older than TestGrid keeps.
    fn too_old(&self, started: i64) -> bool {
        started
            < self
                .now
                .saturating_sub(i64::from(self.days_kept()) * DAY_SECS)
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
    /// The name of synthetic row `name` ([`OVERALL_ROW`] or [`POD_ROW`]) in this job's grid.
    pub fn job_row(&self, name: &str) -> String {
        format!("{}.{name}", self.job)
    }

    /// Name of the synthetic Overall row.
    pub fn overall_row(&self) -> String {
        self.job_row(OVERALL_ROW)
    }

    /// The synthetic rows this column has by plain name (Overall, then Pod if drawn); see
    /// [`Column::job_row`] for the names the grid shows.
    pub fn injected_rows(&self) -> impl Iterator<Item = (&'static str, &Cell)> {
        std::iter::once((OVERALL_ROW, &self.overall)).chain(self.pod.iter().map(|p| (POD_ROW, p)))
    }

    /// Whether TestGrid's summarizer still waits for this build: it skips a column while any
    /// cell in it is RUNNING (Overall, or Pod waiting for podinfo.json).
    pub fn is_running(&self) -> bool {
        self.injected_rows()
            .any(|(_, cell)| cell.status == Status::Running)
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
    let files = MetadataFiles::read(dir);
    let mut download_failure = None;
    let started = metadata_files::started(&mut notes, &files.started, &mut download_failure);
    let mut column = Column {
        job: name_of(dir.parent().unwrap_or(Path::new(""))),
        build: name_of(dir),
        started: started.unwrap_or(0),
        finished: None,
        commit: String::new(),
        overall: Cell::new(Status::Pass),
        pod: None,
        rows: Vec::new(),
    };
    // testgrid.md §1.7: TestGrid's readResult drops a build that started before
    // days_of_results as soon as started.json is read, before malformed files or JUnit count.
    // A zero start stays RUNNING "start timestamp is 0" (§1.2).
    if let Some(started) = started
        && started > 0
        && opts.too_old(started)
    {
        notes.note(Severity::Warning, Code::BuildTooOld, "started.json", format!(
            "started more than days_of_results={} days ago: TestGrid shows UNKNOWN \"build too old\" and reads none of its other files",
            opts.days_kept()
        ));
        column.overall = Cell::new(Status::Unknown).with_message("build too old");
        column.commit = commit(&files, false);
        return Ok(BuildRead {
            column,
            findings: notes.findings,
        });
    }
    let finished = metadata_files::finished(&mut notes, &files.finished, &mut download_failure);
    let podinfo = metadata_files::podinfo(
        &mut notes,
        &files.podinfo,
        &mut download_failure,
        opts.prowjob_analysis,
    );
    column.finished = finished.as_ref().and_then(FinishedFields::completed_at);
    if let Some(failure) = download_failure {
        column.overall = Cell::new(Status::ToolFail).with_message(&failure);
        column.commit = commit(&files, false);
        return Ok(BuildRead {
            column,
            findings: notes.findings,
        });
    }
    let started = column.started;
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
        &notes.malformed,
        started,
        column.finished.zip(finished.as_ref()),
        junit.any_failing_case,
        opts.now > deadline,
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
/// has one (even 0 or negative, which is long past), else 24 hours after the start. Upstream's
/// `gcsResult.deadline` serves both the Overall timeout and the wait for podinfo.json.
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

/// The Overall cell: TestGrid's `overallCell` plus the start-time check, and the "F" icon
/// when a failed build has no failing testcase (before merging equal names). `completed` is
/// the finish time with the fields it came with, once the build counts as complete;
/// `timed_out` says TestGrid has stopped waiting for it.
fn overall(
    malformed: &[String],
    started: i64,
    completed: Option<(i64, &FinishedFields)>,
    any_failing_case: bool,
    timed_out: bool,
) -> Cell {
    // testgrid.md §1.7: an empty or cut-short file (even started.json) means "Malformed
    // artifacts", which TestGrid's overallCell decides before anything else.
    let mut cell = if !malformed.is_empty() {
        Cell::new(Status::Fail)
            .with_icon("E")
            .with_message(&format!("Malformed artifacts: {}", malformed.join(", ")))
    } else if started == 0 {
        Cell::new(Status::Running)
            .with_icon("R")
            .with_message("start timestamp is 0")
    } else if let Some((_, f)) = completed {
        match (f.passed, &f.result) {
            (Some(true), _) => Cell::new(Status::Pass),
            (Some(false), _) => Cell::new(Status::Fail),
            (None, Some(res)) => {
                let status = if JobResult::from_prow(res) == Some(JobResult::Success) {
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
    } else if timed_out {
        Cell::new(Status::Fail)
            .with_icon("T")
            .with_message("Testing did not complete within 24 hours")
    } else {
        Cell::new(Status::Running)
            .with_icon("R")
            .with_message("Build still running...")
    };
    if cell.status == Status::Fail && cell.message.is_empty() && !any_failing_case {
        cell = cell
            .with_icon("F")
            .with_message("Build failed outside of test results");
    }
    if let Some((f, _)) = completed
        && started > 0
    {
        cell.metrics
            .insert(DURATION_METRIC.to_owned(), (f - started) as f64 / 60.0);
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
