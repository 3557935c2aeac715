//! `started.json`, `finished.json` and `podinfo.json` as TestGrid's updater decodes them, with
//! a finding for every value it would drop, misread or reject.

use serde_json::{Map, Value};

use super::json_file::{self, FINISHED_FIELDS, JsonFile, PODINFO_FIELDS, STARTED_FIELDS};
use super::notes::Notes;
use crate::finding::{Code, Severity};
use crate::finished::JobResult;
use std::path::Path;

/// Timestamps above this are almost certainly milliseconds, not seconds (year 5138).
const SECONDS_CEILING: i64 = 100_000_000_000;

/// The three JSON files of one build as read from disk.
#[derive(Debug)]
pub struct MetadataFiles {
    /// `started.json`.
    pub started: JsonFile,
    /// `finished.json`.
    pub finished: JsonFile,
    /// `podinfo.json`.
    pub podinfo: JsonFile,
}

impl MetadataFiles {
    /// Reads the three files of the build in `dir` (TestGrid fetches all three for every build).
    pub fn read(dir: &Path) -> Self {
        Self {
            started: json_file::read(dir, STARTED.path, STARTED_FIELDS),
            finished: json_file::read(dir, FINISHED.path, FINISHED_FIELDS),
            podinfo: json_file::read(dir, PODINFO.path, PODINFO_FIELDS),
        }
    }
}

/// What TestGrid uses from `finished.json`.
#[derive(Debug, Clone, PartialEq)]
pub struct FinishedFields {
    /// `timestamp`, if present (the build is complete only when it is positive).
    pub timestamp: Option<i64>,
    /// `passed`.
    pub passed: Option<bool>,
    /// `result`.
    pub result: Option<String>,
}

impl FinishedFields {
    /// The finish time when TestGrid considers the build complete.
    pub fn completed_at(&self) -> Option<i64> {
        self.timestamp.filter(|t| *t > 0)
    }
}

/// One metadata file and the finding codes for when TestGrid cannot use it.
struct MetadataFile {
    path: &'static str,
    missing: Code,
    missing_severity: Severity,
    missing_message: &'static str,
    malformed: Code,
    invalid: Code,
}

const STARTED: MetadataFile = MetadataFile {
    path: "started.json",
    missing: Code::StartedMissing,
    missing_severity: Severity::Error,
    missing_message: "no started.json: TestGrid uses start time 0 and shows only a lone Overall cell \"Start timestamp for this job is 0.\"",
    malformed: Code::StartedMalformed,
    invalid: Code::StartedInvalid,
};

const FINISHED: MetadataFile = MetadataFile {
    path: "finished.json",
    missing: Code::FinishedMissing,
    missing_severity: Severity::Warning,
    missing_message: "no finished.json: TestGrid shows the build as running (a RUNNING column, normal while the job runs), then FAIL (icon T) 24 h after the start",
    malformed: Code::FinishedMalformed,
    invalid: Code::FinishedInvalid,
};

const PODINFO: MetadataFile = MetadataFile {
    path: "podinfo.json",
    missing: Code::PodinfoMissing,
    missing_severity: Severity::Info,
    missing_message: "no podinfo.json: with prowjob analysis on, TestGrid's <job>.Pod row waits for it until an hour after the finish, then shows PASS_WITH_SKIPS \"podinfo.json not found\" (icon !); uploads outside Prow set disable_prowjob_analysis: true",
    malformed: Code::PodinfoMalformed,
    invalid: Code::PodinfoInvalid,
};

/// Reports a metadata file that is absent or undecodable the way TestGrid treats it (alike for
/// all three files) and hands back its decoded object otherwise. An undecodable file sets
/// `failure`: TestGrid then draws only a TOOL_FAIL Overall cell.
fn decoded<'f>(
    notes: &mut Notes,
    file: &'f JsonFile,
    meta: &MetadataFile,
    failure: &mut Option<String>,
) -> Option<&'f Map<String, Value>> {
    let p = meta.path;
    match file {
        JsonFile::Missing => {
            notes.note(meta.missing_severity, meta.missing, p, meta.missing_message);
            None
        }
        JsonFile::Empty => {
            notes.note(
                Severity::Error,
                meta.malformed,
                p,
                "empty file: Overall becomes FAIL \"Malformed artifacts\" (icon E)",
            );
            notes.malformed.push(p.into());
            None
        }
        JsonFile::Invalid(e) => {
            notes.note(
                Severity::Error,
                meta.invalid,
                p,
                format!("{e}: TestGrid cannot decode it and shows only a lone TOOL_FAIL Overall cell \"Failed to download …\""),
            );
            // readResult (pkg/updater/read.go) wraps readJSON's "decode: …" error with the
            // file's stem ("started: ", "finished: ", "podinfo: ").
            let stem = p.trim_end_matches(".json");
            failure.get_or_insert(format!("{stem}: decode: {e}"));
            None
        }
        JsonFile::Object(map) => Some(map),
    }
}

/// Flags a timestamp in milliseconds: TestGrid reads epoch seconds in both metadata files.
fn check_seconds(notes: &mut Notes, path: &str, timestamp: i64) {
    if timestamp > SECONDS_CEILING {
        notes.note(
            Severity::Error,
            Code::TimestampMilliseconds,
            path,
            format!(
                "timestamp {timestamp} looks like milliseconds; TestGrid expects epoch seconds"
            ),
        );
    }
}

/// The start time TestGrid uses (0 when absent), if started.json decodes.
pub fn started(notes: &mut Notes, file: &JsonFile, failure: &mut Option<String>) -> Option<i64> {
    let p = STARTED.path;
    let map = decoded(notes, file, &STARTED, failure)?;
    let ts = map.get("timestamp").and_then(Value::as_i64).unwrap_or(0);
    if ts == 0 {
        notes.note(Severity::Error, Code::StartedTimestampZero, p, "timestamp is missing or 0: TestGrid shows only a lone Overall cell \"Start timestamp for this job is 0.\"");
    }
    check_seconds(notes, p, ts);
    if map.contains_key("metadata") {
        notes.note(
            Severity::Info,
            Code::StartedMetadataDeprecated,
            p,
            "metadata in started.json is deprecated; put it in finished.json",
        );
    }
    Some(ts)
}

/// What TestGrid uses from finished.json, if it decodes.
pub fn finished(
    notes: &mut Notes,
    file: &JsonFile,
    failure: &mut Option<String>,
) -> Option<FinishedFields> {
    let p = FINISHED.path;
    let map = decoded(notes, file, &FINISHED, failure)?;
    let timestamp = map.get("timestamp").and_then(Value::as_i64);
    match timestamp {
        Some(ts) if ts > 0 => check_seconds(notes, p, ts),
        Some(ts) => notes.note(Severity::Error, Code::FinishedTimestampMissing, p, format!(
            "timestamp is {ts}: TestGrid counts a build as complete only with a positive finish time, so it ignores passed/result; it waits only until an hour after this finish time, long past, so it shows FAIL \"did not complete\" (icon T) at once"
        )),
        None => notes.note(Severity::Error, Code::FinishedTimestampMissing, p,
            "no timestamp: TestGrid counts a build as complete only with a positive finish time, so it ignores passed/result and shows the column as RUNNING, then FAIL (icon T) 24 h after the start"),
    }
    let passed = map.get("passed").and_then(Value::as_bool);
    let result = map.get("result").and_then(Value::as_str).map(str::to_owned);
    match (&passed, &result) {
        (None, Some(res)) => notes.note(Severity::Error, Code::PassedMissing, p, format!(
            "no \"passed\": TestGrid falls back to result == \"SUCCESS\" (result is {res:?}) and flags the Overall cell with icon E"
        )),
        (None, None) => notes.note(Severity::Error, Code::PassedMissing, p, "neither \"passed\" nor \"result\": TestGrid shows Overall as FAIL"),
        _ => {}
    }
    if let Some(res) = &result
        && JobResult::from_prow(res).is_none()
    {
        let known: Vec<&str> = JobResult::ALL.iter().map(|r| r.as_str()).collect();
        notes.note(
            Severity::Warning,
            Code::ResultUnknown,
            p,
            format!("result {res:?} is not one of {}", known.join(", ")),
        );
    }
    if result.as_deref() == Some(JobResult::Aborted.as_str()) {
        notes.note(
            Severity::Info,
            Code::AbortedShownAsFailure,
            p,
            "result ABORTED: TestGrid has no aborted state for GCS builds; it shows the build exactly like a failure (overallCell in pkg/updater/gcs.go reads only passed, or result == \"SUCCESS\")",
        );
    }
    if let (Some(passed), Some(res)) = (passed, &result)
        && passed != (JobResult::from_prow(res) == Some(JobResult::Success))
    {
        notes.note(
            Severity::Warning,
            Code::PassedResultDisagree,
            p,
            format!("passed is {passed} but result is {res:?}; TestGrid uses passed"),
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
            notes.note(Severity::Info, Code::MetadataNotString, p, format!(
                "metadata keys {odd:?} are not strings, lists of strings or objects; TestGrid ignores them for column headers"
            ));
        }
        check_email_addresses(notes, meta);
    }
    Some(FinishedFields {
        timestamp,
        passed,
        result,
    })
}

/// finished.json metadata key of the per-build alert recipients (`EmailListKey` in
/// `pkg/updater/gcs.go`).
pub const EMAIL_ADDRESSES_KEY: &str = "EmailAddresses";

/// Flags an `EmailAddresses` TestGrid cannot use: `convertResult` (`pkg/updater/gcs.go`) reads
/// it with `Metadata.MultiString`, which only takes a list of strings; anything else (a plain
/// string, an empty list) gives no recipients and a logged "failed to extract dynamic email
/// list" error.
fn check_email_addresses(notes: &mut Notes, meta: &Map<String, Value>) {
    let Some(value) = meta.get(EMAIL_ADDRESSES_KEY) else {
        return;
    };
    let usable = value
        .as_array()
        .is_some_and(|a| !a.is_empty() && a.iter().all(Value::is_string));
    if !usable {
        notes.note(Severity::Warning, Code::EmailAddressesNotList, FINISHED.path, format!(
            "metadata {EMAIL_ADDRESSES_KEY} is {value}, not a non-empty list of strings: TestGrid drops it (logging an error), so the column has no alert recipients; write [\"a@example.com\"]"
        ));
    }
}

/// The decoded podinfo.json, if it decodes. TestGrid reads it for every build (cut short it
/// makes "Malformed artifacts", undecodable a TOOL_FAIL column), but its absence matters only
/// with prowjob analysis on: uploads outside Prow set `disable_prowjob_analysis: true`.
pub fn podinfo<'f>(
    notes: &mut Notes,
    file: &'f JsonFile,
    failure: &mut Option<String>,
    prowjob_analysis: bool,
) -> Option<&'f Map<String, Value>> {
    if !prowjob_analysis && *file == JsonFile::Missing {
        return None;
    }
    decoded(notes, file, &PODINFO, failure)
}
