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
        }
    }
}
