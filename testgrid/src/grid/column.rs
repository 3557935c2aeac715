//! Reads one build directory into the column TestGrid's updater would draw, recording every
//! file or value it would drop, misread or reject.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::cell::{self, CaseCell, Cell, DURATION_METRIC};
use super::json_file::{self, FINISHED_FIELDS, JsonFile, STARTED_FIELDS};
use super::status::Status;
use crate::finding::{Finding, Severity};
use crate::junit::reader;
use crate::natural::natural_cmp;

/// TestGrid records JUnit files above this size as malformed.
pub const MAX_JUNIT_BYTES: u64 = 100 * 1024 * 1024;
/// A build without `finished.json` fails after this long (TestGrid's default max runtime).
const MAX_RUNTIME_SECS: i64 = 24 * 3600;
/// Timestamps above this are almost certainly milliseconds, not seconds (year 5138).
const SECONDS_CEILING: i64 = 100_000_000_000;

/// Inputs that are not in the files.
#[derive(Debug, Clone, Copy)]
pub struct ReadOptions {
    /// "Now" in epoch seconds: decides RUNNING vs timed out.
    pub now: i64,
    /// The test group's `days_of_results`: older builds show as UNKNOWN. `None` = no limit.
    pub days_of_results: Option<u32>,
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
    /// `finished.json` timestamp, when complete.
    pub finished: Option<i64>,
    /// The "Commit" header value.
    pub commit: String,
    /// The `<job>.Overall` cell.
    pub overall: Cell,
    /// Test rows in natural order of their names (Overall excluded).
    pub rows: Vec<(String, Cell)>,
}

impl Column {
    /// Name of the synthetic Overall row.
    pub fn overall_row(&self) -> String {
        format!("{}.Overall", self.job)
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
    let mut r = Reader {
        findings: Vec::new(),
        malformed: Vec::new(),
    };
    let job = name_of(dir.parent().unwrap_or(Path::new(""))).unwrap_or_default();
    let build = name_of(dir).unwrap_or_default();

    let started_file = json_file::read(dir, "started.json", STARTED_FIELDS);
    let finished_file = json_file::read(dir, "finished.json", FINISHED_FIELDS);
    let mut download_failure = None;
    let started = r.started(&started_file, &mut download_failure);
    let finished = r.finished(&finished_file, &mut download_failure);
    let empty = Map::new();
    let commit = crate::version::commit_header(
        as_object(&started_file).unwrap_or(&empty),
        as_object(&finished_file).unwrap_or(&empty),
    );
    let mut column = Column {
        job,
        build,
        started: started.unwrap_or(0),
        finished: finished.as_ref().map(|f| f.timestamp),
        commit,
        overall: Cell::new(Status::Pass),
        rows: Vec::new(),
    };
    if let Some(failure) = download_failure {
        column.overall = Cell::new(Status::ToolFail).with_message(&failure);
        return Ok(BuildRead {
            column,
            findings: r.findings,
        });
    }
    if let (Some(s), Some(f)) = (started, finished.as_ref())
        && f.timestamp < s
    {
        r.note(Severity::Warning, "finished-before-started", "finished.json", format!(
            "finished timestamp {} is before started timestamp {s}; the Overall duration metric is negative",
            f.timestamp
        ));
    }
    column.rows = r.rows(dir);
    column.overall = r.overall(&column, finished.as_ref(), opts);
    Ok(BuildRead {
        column,
        findings: r.findings,
    })
}

struct FinishedFields {
    timestamp: i64,
    passed: Option<bool>,
    result: Option<String>,
}

/// One of the two build metadata files and the finding codes for when TestGrid cannot use it.
struct MetadataFile {
    /// File name inside the build directory.
    path: &'static str,
    /// Code when the file is absent.
    missing: &'static str,
    /// What TestGrid shows when the file is absent.
    missing_message: &'static str,
    /// Code when the file is empty or cut short.
    malformed: &'static str,
    /// Code when the file cannot be decoded.
    invalid: &'static str,
}

const STARTED: MetadataFile = MetadataFile {
    path: "started.json",
    missing: "started-missing",
    missing_message: "no started.json: TestGrid uses start time 0 and shows the column as RUNNING (\"start timestamp is 0\")",
    malformed: "started-malformed",
    invalid: "started-invalid",
};

const FINISHED: MetadataFile = MetadataFile {
    path: "finished.json",
    missing: "finished-missing",
    missing_message: "no finished.json: TestGrid shows the column as RUNNING, then FAIL (icon T) 24 h after the start",
    malformed: "finished-malformed",
    invalid: "finished-invalid",
};

struct Reader {
    findings: Vec<Finding>,
    malformed: Vec<String>,
}

impl Reader {
    fn note(&mut self, severity: Severity, code: &'static str, path: &str, message: String) {
        self.findings
            .push(Finding::new(severity, code, path, message));
    }

    /// Reports a metadata file that is absent or undecodable the way TestGrid treats it (alike
    /// for both files) and hands back its decoded object otherwise.
    fn decoded<'f>(
        &mut self,
        file: &'f JsonFile,
        meta: &MetadataFile,
        failure: &mut Option<String>,
    ) -> Option<&'f Map<String, Value>> {
        let p = meta.path;
        match file {
            JsonFile::Missing => {
                self.note(
                    Severity::Error,
                    meta.missing,
                    p,
                    meta.missing_message.into(),
                );
                None
            }
            JsonFile::Truncated(e) => {
                self.note(
                    Severity::Error,
                    meta.malformed,
                    p,
                    format!("{e}: Overall becomes FAIL \"Malformed artifacts\" (icon E)"),
                );
                self.malformed.push(p.into());
                None
            }
            JsonFile::Invalid(e) => {
                self.note(
                    Severity::Error,
                    meta.invalid,
                    p,
                    format!(
                        "{e}: TestGrid cannot decode it and shows only a TOOL_FAIL Overall cell"
                    ),
                );
                failure.get_or_insert(format!("Failed to download {p}: {e}"));
                None
            }
            JsonFile::Object(map) => Some(map),
        }
    }

    /// Flags a timestamp in milliseconds: TestGrid reads epoch seconds in both metadata files.
    fn check_seconds(&mut self, path: &str, timestamp: i64) {
        if timestamp > SECONDS_CEILING {
            self.note(
                Severity::Error,
                "timestamp-milliseconds",
                path,
                format!(
                    "timestamp {timestamp} looks like milliseconds; TestGrid expects epoch seconds"
                ),
            );
        }
    }

    fn started(&mut self, file: &JsonFile, failure: &mut Option<String>) -> Option<i64> {
        const P: &str = STARTED.path;
        let map = self.decoded(file, &STARTED, failure)?;
        let ts = map.get("timestamp").and_then(Value::as_i64).unwrap_or(0);
        if ts == 0 {
            self.note(Severity::Error, "started-timestamp-zero", P, "timestamp is missing or 0: TestGrid shows the column as RUNNING (\"start timestamp is 0\")".into());
        }
        self.check_seconds(P, ts);
        if map.contains_key("metadata") {
            self.note(
                Severity::Info,
                "started-metadata-deprecated",
                P,
                "metadata in started.json is deprecated; put it in finished.json".into(),
            );
        }
        Some(ts)
    }

    fn finished(
        &mut self,
        file: &JsonFile,
        failure: &mut Option<String>,
    ) -> Option<FinishedFields> {
        const P: &str = FINISHED.path;
        let map = self.decoded(file, &FINISHED, failure)?;
        let timestamp = map.get("timestamp").and_then(Value::as_i64).unwrap_or(0);
        self.check_seconds(P, timestamp);
        let passed = map.get("passed").and_then(Value::as_bool);
        let result = map.get("result").and_then(Value::as_str).map(str::to_owned);
        match (&passed, &result) {
            (None, Some(res)) => self.note(Severity::Error, "passed-missing", P, format!(
                "no \"passed\": TestGrid falls back to result == \"SUCCESS\" (result is {res:?}) and flags the Overall cell with icon E"
            )),
            (None, None) => self.note(Severity::Error, "passed-missing", P, "neither \"passed\" nor \"result\": TestGrid shows Overall as FAIL".into()),
            _ => {}
        }
        if let Some(res) = &result
            && !["SUCCESS", "FAILURE", "ABORTED"].contains(&res.as_str())
        {
            self.note(
                Severity::Warning,
                "result-unknown",
                P,
                format!("result {res:?} is not one of SUCCESS, FAILURE, ABORTED"),
            );
        }
        if let (Some(p), Some(res)) = (passed, &result)
            && p != (res == "SUCCESS")
        {
            self.note(
                Severity::Warning,
                "passed-result-disagree",
                P,
                format!("passed is {p} but result is {res:?}; TestGrid uses passed"),
            );
        }
        if let Some(meta) = map.get("metadata").and_then(Value::as_object) {
            let odd: Vec<&str> = meta
                .iter()
                .filter(|(_, v)| {
                    !(v.is_string()
                        || v.is_object()
                        || v.as_array().is_some_and(|a| a.iter().all(Value::is_string)))
                })
                .map(|(k, _)| k.as_str())
                .collect();
            if !odd.is_empty() {
                self.note(Severity::Info, "metadata-not-string", P, format!(
                    "metadata keys {odd:?} are not strings, lists of strings or objects; TestGrid ignores them for column headers"
                ));
            }
        }
        Some(FinishedFields {
            timestamp,
            passed,
            result,
        })
    }

    fn rows(&mut self, dir: &Path) -> Vec<(String, Cell)> {
        let mut files = Vec::new();
        walk(dir, &mut files);
        files.sort();
        let mut by_name: BTreeMap<String, Vec<Cell>> = BTreeMap::new();
        let mut junit_count = 0;
        for path in files {
            let rel = rel_path(dir, &path);
            let base = name_of(&path).unwrap_or_default();
            let is_junit =
                base == "test.xml" || (base.starts_with("junit") && base.ends_with(".xml"));
            if !is_junit {
                if base.ends_with(".xml") {
                    self.note(Severity::Warning, "file-not-read", &rel, "TestGrid reads only files named junit*.xml or test.xml; this one is ignored".into());
                }
                continue;
            }
            junit_count += 1;
            self.junit_file(&path, &rel, &mut by_name);
        }
        if junit_count == 0 {
            self.note(
                Severity::Warning,
                "no-junit",
                ".",
                "no junit*.xml file anywhere under the build: TestGrid shows only the Overall row"
                    .into(),
            );
        }
        let mut rows = Vec::new();
        for (name, cells) in by_name {
            if cells.len() > 1 {
                let statuses: Vec<&str> = cells.iter().map(|c| c.status.name()).collect();
                self.note(
                    Severity::Warning,
                    "duplicate-row",
                    ".",
                    format!(
                        "row {name:?} appears {} times ({}); TestGrid merges them into one cell",
                        cells.len(),
                        statuses.join(", ")
                    ),
                );
            }
            if let Some(merged) = cell::merge(cells) {
                rows.push((name, merged));
            }
        }
        rows.sort_by(|a, b| natural_cmp(&a.0, &b.0));
        rows
    }

    fn junit_file(&mut self, path: &Path, rel: &str, by_name: &mut BTreeMap<String, Vec<Cell>>) {
        let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        if size > MAX_JUNIT_BYTES {
            self.note(
                Severity::Error,
                "junit-too-large",
                rel,
                format!(
                    "{size} bytes is over TestGrid's 100 MB limit: recorded as malformed, no rows"
                ),
            );
            self.malformed.push(rel.to_owned());
            return;
        }
        let parsed = match std::fs::read(path) {
            Ok(bytes) => reader::parse(&bytes),
            Err(e) => {
                self.note(
                    Severity::Error,
                    "junit-unreadable",
                    rel,
                    format!("cannot read: {e}"),
                );
                self.malformed.push(rel.to_owned());
                return;
            }
        };
        let parsed = match parsed {
            Ok(p) => p,
            Err(e) => {
                self.note(Severity::Error, "junit-malformed", rel, format!("{e}: TestGrid records the file as malformed (Overall FAIL, icon E) and reads no rows from it"));
                self.malformed.push(rel.to_owned());
                return;
            }
        };
        let mut dropped = Vec::new();
        let mut not_numeric = Vec::new();
        for case in &parsed.cases {
            match cell::from_case(case) {
                CaseCell::Dropped => dropped.push(case.row_name.clone()),
                CaseCell::Cell(c, props) => {
                    not_numeric
                        .extend(props.into_iter().map(|p| format!("{}: {p}", case.row_name)));
                    by_name.entry(case.row_name.clone()).or_default().push(c);
                }
            }
        }
        if !dropped.is_empty() {
            self.note(Severity::Warning, "skip-dropped", rel, format!(
                "{} testcase(s) skipped without a reason (message empty or \"skipped\", no body) get no row: {}",
                dropped.len(),
                preview(&dropped)
            ));
        }
        if !not_numeric.is_empty() {
            self.note(Severity::Info, "property-not-metric", rel, format!(
                "{} non-numeric testcase propert(ies) are not metrics (usable only as annotations): {}",
                not_numeric.len(),
                preview(&not_numeric)
            ));
        }
    }

    fn overall(
        &mut self,
        column: &Column,
        finished: Option<&FinishedFields>,
        opts: &ReadOptions,
    ) -> Cell {
        let mut cell = if column.started == 0 {
            Cell::new(Status::Running)
                .with_icon("R")
                .with_message("start timestamp is 0")
        } else if let Some(days) = opts
            .days_of_results
            .filter(|d| column.started < opts.now - i64::from(*d) * 86_400)
        {
            self.note(Severity::Warning, "build-too-old", "started.json", format!(
                "started more than days_of_results={days} days ago: TestGrid shows UNKNOWN \"build too old\""
            ));
            Cell::new(Status::Unknown).with_message("build too old")
        } else if !self.malformed.is_empty() {
            Cell::new(Status::Fail)
                .with_icon("E")
                .with_message(&format!(
                    "Malformed artifacts: {}",
                    self.malformed.join(", ")
                ))
        } else if let Some(f) = finished {
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
        } else if opts.now > column.started + MAX_RUNTIME_SECS {
            Cell::new(Status::Fail)
                .with_icon("T")
                .with_message("Testing did not complete within 24 hours")
        } else {
            Cell::new(Status::Running)
                .with_icon("R")
                .with_message("Build still running...")
        };
        if cell.status == Status::Fail
            && cell.icon.is_none()
            && !column.rows.iter().any(|(_, c)| c.status.is_failing())
        {
            cell = cell
                .with_icon("F")
                .with_message("Build failed outside of test results");
        }
        if let Some(f) = finished
            && f.timestamp > 0
            && column.started > 0
        {
            cell.metrics.insert(
                DURATION_METRIC.to_owned(),
                (f.timestamp - column.started) as f64 / 60.0,
            );
        }
        cell
    }
}

fn as_object(f: &JsonFile) -> Option<&Map<String, Value>> {
    match f {
        JsonFile::Object(m) => Some(m),
        _ => None,
    }
}

fn preview(items: &[String]) -> String {
    const SHOWN: usize = 5;
    let mut s = items
        .iter()
        .take(SHOWN)
        .map(|i| format!("{i:?}"))
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > SHOWN {
        s.push_str(&format!(" and {} more", items.len() - SHOWN));
    }
    s
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(ty) = entry.file_type() else { continue };
        if ty.is_dir() {
            walk(&entry.path(), out);
        } else if ty.is_file() {
            out.push(entry.path());
        }
    }
}

fn name_of(path: &Path) -> Option<String> {
    path.file_name().map(|n| n.to_string_lossy().into_owned())
}

fn rel_path(base: &Path, path: &Path) -> String {
    path.strip_prefix(base)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}
