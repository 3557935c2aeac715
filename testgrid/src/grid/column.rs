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
#[derive(Debug, Clone, PartialEq)]
pub struct ReadOptions {
    /// "Now" in epoch seconds: decides RUNNING vs timed out.
    pub now: i64,
    /// The test group's `days_of_results`: builds started earlier show as UNKNOWN; 0 means
    /// TestGrid's own default of 7.
    pub days_of_results: u32,
    /// The opposite of the group's `disable_prowjob_analysis`: draw the `<job>.Pod` row.
    pub prowjob_analysis: bool,
    /// The group's `column_header[].configuration_value`s, in order.
    pub column_headers: Vec<String>,
}

impl ReadOptions {
    /// Options as our generated configuration sets them ([`DAYS_OF_RESULTS`], no Pod row, the
    /// config writer's column headers), at `now`.
    pub fn at(now: i64) -> Self {
        Self {
            now,
            days_of_results: DAYS_OF_RESULTS,
            prowjob_analysis: false,
            column_headers: crate::config::DEFAULT_COLUMN_HEADERS
                .iter()
                .map(|h| (*h).to_owned())
                .collect(),
        }
    }

    /// When TestGrid's updater stops reading: `days_kept` before `now`.
    fn stop(&self) -> i64 {
        self.now
            .saturating_sub(i64::from(self.days_kept()) * DAY_SECS)
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
        started < self.stop()
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
    /// The configured column headers and their values (`missing` when finished.json has no
    /// string for one, blank while running); an unreadable build shows the previous readable
    /// build's values.
    pub headers: Vec<(String, String)>,
    /// Whether TestGrid could read the build. An unreadable one (too old, start time 0, a file
    /// it cannot download) is only a lone cell in the plain `Overall` row, no test rows,
    /// placed right after the previous readable build of the job (see [`place_unreadable`]).
    pub readable: bool,
    /// The `<job>.Overall` cell.
    pub overall: Cell,
    /// The `<job>.Pod` cell, when the group analyses Prow pods.
    pub pod: Option<Cell>,
    /// Test rows in natural order of their names (Overall and Pod excluded).
    pub rows: Vec<(String, Cell)>,
}

impl Column {
    /// The name of synthetic row `name` ([`OVERALL_ROW`] or [`POD_ROW`]) in this job's grid:
    /// `<job>.<name>`, or plain `name` for an unreadable build (`ancientColumn`/`erroredColumn`
    /// in `pkg/updater/read.go` key their cell `Overall`).
    pub fn job_row(&self, name: &str) -> String {
        if self.readable {
            format!("{}.{name}", self.job)
        } else {
            name.to_owned()
        }
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
        headers: Vec::new(),
        readable: true,
        overall: Cell::new(Status::Pass),
        pod: None,
        rows: Vec::new(),
    };
    // readResult (pkg/updater/read.go) turns a start before days_of_results into errAncient as
    // soon as started.json is read, before malformed files or JUnit count; readColumns then
    // draws a lone UNKNOWN Overall cell (ancientColumn), which InflateGrid drops on the next
    // update as older than the grid keeps.
    if let Some(started) = started
        && started > 0
        && opts.too_old(started)
    {
        notes.note(Severity::Warning, Code::BuildTooOld, "started.json", format!(
            "started more than days_of_results={} days ago: TestGrid reads none of its other files, shows a lone UNKNOWN cell in row Overall (\"build too old\") and drops the column on its next update",
            opts.days_kept()
        ));
        let cell = Cell::new(Status::Unknown).with_message(&format!(
            "build too old; started {started} before {})",
            opts.stop()
        ));
        return Ok(unreadable(column, cell, notes, opts));
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
        // readColumns (pkg/updater/read.go) draws erroredColumn for any read error:
        // "Failed to download <build>: <error>", where TestGrid names the build by its gs://
        // path; offline it is `<job>/<build>/` [infer].
        let cell = Cell::new(Status::ToolFail).with_message(&format!(
            "Failed to download {}/{}/: {failure}",
            column.job, column.build
        ));
        return Ok(unreadable(column, cell, notes, opts));
    }
    let started = column.started;
    if started == 0 && notes.malformed.is_empty() {
        // A zero (or absent) start: readColumns draws a lone cell with the noStartError text
        // (message per read_test.go "include no-start-time column"; its status and the missing
        // icon are [infer], RUNNING as testgrid.md §1.2 records).
        let cell = Cell::new(Status::Running).with_message(NO_START_MESSAGE);
        return Ok(unreadable(column, cell, notes, opts));
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
    let timed_out = opts.now > deadline;
    column.overall = overall(
        &notes.malformed,
        started,
        column.finished.zip(finished.as_ref()),
        junit.any_failing_case,
        timed_out,
    );
    if timed_out && files.finished == JsonFile::Missing {
        // Past the deadline a missing finished.json is no longer a running build but a FAIL.
        for f in notes
            .findings
            .iter_mut()
            .filter(|f| f.code == Code::FinishedMissing)
        {
            f.severity = Severity::Error;
        }
    }
    if opts.prowjob_analysis {
        column.pod = pod_cell(podinfo, column.overall.status, opts.now, deadline);
    }
    column.rows = junit.rows;
    let running = column.overall.status == Status::Running;
    column.commit = commit(&files, running);
    column.headers = headers(&files, opts, running);
    if !running {
        for (header, value) in &column.headers {
            if crate::version::is_missing(value) {
                notes.note(Severity::Warning, Code::HeaderMissing, "finished.json", format!(
                    "the test group's column header {header:?} reads `missing`: finished.json metadata has no string {header:?}"
                ));
            }
        }
    }
    Ok(BuildRead {
        column: column.stored(),
        findings: notes.findings,
    })
}

/// The message of a build whose start time is 0 (`noStartError` in `pkg/updater/read.go`).
pub const NO_START_MESSAGE: &str = "Start timestamp for this job is 0.";

/// A build TestGrid cannot read normally: one cell in the plain `Overall` row, its headers
/// blank until [`place_unreadable`] gives it the previous readable build's.
fn unreadable(mut column: Column, cell: Cell, notes: Notes, opts: &ReadOptions) -> BuildRead {
    column.readable = false;
    column.headers = opts
        .column_headers
        .iter()
        .map(|h| (h.clone(), String::new()))
        .collect();
    column.finished = None;
    column.overall = cell;
    column.pod = None;
    column.rows.clear();
    BuildRead {
        column: column.stored(),
        findings: notes.findings,
    }
}

impl Column {
    /// The column as TestGrid stores it: every message cut by [`Cell::stored`].
    fn stored(mut self) -> Self {
        self.overall = self.overall.stored();
        self.pod = self.pod.map(Cell::stored);
        self.rows = self
            .rows
            .into_iter()
            .map(|(name, cell)| (name, cell.stored()))
            .collect();
        self
    }
}

/// Places each unreadable build of a job where TestGrid's `readColumns`
/// (`pkg/updater/read.go`) does: reading builds oldest id first, it gives a failed build the
/// previous readable build's start (plus 0.01 ms per failure since, which our whole seconds
/// cannot hold: the greater id wins the tie instead) and its header values (blank when there
/// is none yet).
pub fn place_unreadable(columns: &mut [Column]) {
    let mut order: Vec<usize> = (0..columns.len()).collect();
    order.sort_by(|&a, &b| {
        columns[a]
            .job
            .cmp(&columns[b].job)
            .then_with(|| crate::natural::natural_cmp(&columns[a].build, &columns[b].build))
    });
    let mut previous: Option<usize> = None;
    for i in order {
        if columns[i].readable {
            previous = Some(i);
            continue;
        }
        match previous.filter(|&p| columns[p].job == columns[i].job) {
            Some(p) => {
                let (started, headers, commit) = (
                    columns[p].started,
                    columns[p].headers.clone(),
                    columns[p].commit.clone(),
                );
                let col = &mut columns[i];
                col.started = started;
                col.headers = headers;
                col.commit = commit;
            }
            None => {
                let col = &mut columns[i];
                col.started = 0;
                for (_, value) in &mut col.headers {
                    value.clear();
                }
                col.commit.clear();
            }
        }
    }
}

fn headers(files: &MetadataFiles, opts: &ReadOptions, running: bool) -> Vec<(String, String)> {
    let empty = Map::new();
    let started = as_object(&files.started).unwrap_or(&empty);
    let finished = as_object(&files.finished).unwrap_or(&empty);
    opts.column_headers
        .iter()
        .map(|h| {
            let value = crate::version::header_value(h, started, finished, running);
            (h.clone(), value)
        })
        .collect()
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
        // readResult (pkg/updater/read.go) sorts the malformed entries (file names, and
        // "<path>: <error>" for JUnit files) before overallCell joins them.
        let mut malformed = malformed.to_vec();
        malformed.sort();
        Cell::new(Status::Fail)
            .with_icon("E")
            .with_message(&format!("Malformed artifacts: {}", malformed.join(", ")))
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
                // overallCell (pkg/updater/gcs.go): `finished.json missing "passed": <bool>`.
                Cell::new(status).with_icon("E").with_message(&format!(
                    "finished.json missing \"passed\": {}",
                    status == Status::Pass
                ))
            }
            (None, None) => Cell::new(Status::Fail),
        }
    } else if timed_out {
        Cell::new(Status::Fail)
            .with_icon("T")
            .with_message("Build did not complete within 24 hours")
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
