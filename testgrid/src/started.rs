//! `started.json`: the file that gives a TestGrid column its start time and sort key.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Contents of `started.json` as Prow's initupload writes it (integer epoch seconds).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Started {
    /// Start time in epoch seconds; TestGrid fails to decode anything but an integer.
    pub timestamp: i64,
    /// Machine that ran the job.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// `org/repo` -> ref spec (`branch:sha,pr:sha`) of the checked-out sources.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub repos: BTreeMap<String, String>,
    /// Resolved commit of the primary repo; last-resort source of the "Commit" header.
    #[serde(
        rename = "repo-commit",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub repo_commit: Option<String>,
    /// Version of the primary repo (deprecated by TestGrid but still honoured).
    #[serde(
        rename = "repo-version",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub repo_version: Option<String>,
    /// What the run is about, for readers of a build still running (Deck, Spyglass, people):
    /// TestGrid takes its headers from `finished.json`'s metadata, so write the keys there too.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub metadata: BTreeMap<String, serde_json::Value>,
}

impl Started {
    /// A `started.json` with only the required timestamp.
    pub fn at(timestamp: i64) -> Self {
        Self {
            timestamp,
            node: None,
            repos: BTreeMap::new(),
            repo_commit: None,
            repo_version: None,
            metadata: BTreeMap::new(),
        }
    }

    /// Adds a string metadata key.
    pub fn with_metadata(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.metadata
            .insert(key.into(), serde_json::Value::String(value.into()));
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_is_written_only_when_set() {
        let bare = serde_json::to_string(&Started::at(1_767_225_600)).unwrap();
        assert_eq!(bare, r#"{"timestamp":1767225600}"#);
        let with = Started::at(1).with_metadata("provider", "embedded");
        assert_eq!(
            serde_json::to_string(&with).unwrap(),
            r#"{"timestamp":1,"metadata":{"provider":"embedded"}}"#
        );
        let back: Started =
            serde_json::from_str(r#"{"timestamp":1,"metadata":{"provider":"embedded"}}"#).unwrap();
        assert_eq!(back, with);
    }
}
