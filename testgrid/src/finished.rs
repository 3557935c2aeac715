//! `finished.json`: the file that completes a TestGrid column and decides its Overall cell.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// finished.json metadata key of the CCM version a run tested (a column header of our groups).
pub const CCM_VERSION_KEY: &str = "ccm-version";

/// The job outcome, written both as the `passed` boolean and the Prow `result` string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum JobResult {
    /// Every check passed.
    Success,
    /// At least one check failed.
    Failure,
    /// The run was interrupted before it could decide.
    Aborted,
}

impl JobResult {
    /// Every result Prow writes, so readers can tell a known `result` string from any other.
    pub const ALL: [JobResult; 3] = [JobResult::Success, JobResult::Failure, JobResult::Aborted];

    /// The result with the Prow spelling `prow`, if it is one (readers flag any other string).
    pub fn from_prow(prow: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.as_str() == prow)
    }

    /// The Prow spelling (`SUCCESS`, `FAILURE`, `ABORTED`).
    pub fn as_str(self) -> &'static str {
        match self {
            JobResult::Success => "SUCCESS",
            JobResult::Failure => "FAILURE",
            JobResult::Aborted => "ABORTED",
        }
    }
}

/// Contents of `finished.json`. `passed` is derived from `result`, so the two never disagree
/// and `passed` is never missing (TestGrid would otherwise flag the column with icon E).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finished {
    /// Finish time in epoch seconds (integer).
    pub timestamp: i64,
    passed: bool,
    result: JobResult,
    /// Free-form key/values: `job-version` (the "Commit" header), our own version keys for
    /// `column_header`s, `EmailAddresses`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub metadata: BTreeMap<String, serde_json::Value>,
}

impl Finished {
    /// A `finished.json` for a run that ended at `timestamp` with `result`.
    pub fn new(timestamp: i64, result: JobResult) -> Self {
        Self {
            timestamp,
            passed: result == JobResult::Success,
            result,
            metadata: BTreeMap::new(),
        }
    }

    /// Adds a string metadata key (e.g. `job-version`, `ccm-version`).
    pub fn with_metadata(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.metadata
            .insert(key.into(), serde_json::Value::String(value.into()));
        self
    }

    /// Adds a list-of-strings metadata key: TestGrid reads `EmailAddresses` only as a list
    /// (`Metadata.MultiString` in `pkg/updater/gcs.go` `convertResult`) and drops a string.
    pub fn with_metadata_list<I, S>(mut self, key: impl Into<String>, values: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let list = values
            .into_iter()
            .map(|v| serde_json::Value::String(v.into()))
            .collect();
        self.metadata
            .insert(key.into(), serde_json::Value::Array(list));
        self
    }

    /// Whether the run passed.
    pub fn passed(&self) -> bool {
        self.passed
    }

    /// The Prow result string.
    pub fn result(&self) -> JobResult {
        self.result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passed_and_result_always_both_written() {
        let f = Finished::new(1_767_229_200, JobResult::Failure)
            .with_metadata("job-version", "v1.34.2");
        let json = serde_json::to_string(&f).unwrap();
        assert_eq!(
            json,
            r#"{"timestamp":1767229200,"passed":false,"result":"FAILURE","metadata":{"job-version":"v1.34.2"}}"#
        );
        assert!(Finished::new(1, JobResult::Success).passed());
        assert!(!Finished::new(1, JobResult::Aborted).passed());
    }

    #[test]
    fn metadata_lists_are_written_as_json_arrays() {
        let f = Finished::new(1, JobResult::Success)
            .with_metadata_list("EmailAddresses", ["a@example.com", "b@example.com"]);
        assert_eq!(
            serde_json::to_string(&f).unwrap(),
            r#"{"timestamp":1,"passed":true,"result":"SUCCESS","metadata":{"EmailAddresses":["a@example.com","b@example.com"]}}"#
        );
    }

    #[test]
    fn prow_spellings_round_trip() {
        for r in JobResult::ALL {
            assert_eq!(JobResult::from_prow(r.as_str()), Some(r));
        }
        assert_eq!(JobResult::from_prow("success"), None);
        assert_eq!(JobResult::from_prow("PASSED"), None);
    }
}
