//! What a report says about the run as a whole (job, commit, provider, times), beside the
//! scenarios' outcomes.

/// The job name TestGrid shows for the run unless the caller names another.
pub const DEFAULT_JOB: &str = "ci-azure-ccm-migration-parity";

/// The run's own facts, written to `started.json`/`finished.json` and the page header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunMeta {
    /// Job name (the TestGrid test group's job; metadata key `job`).
    pub job: String,
    /// Commit of the sources under test, when known (`repo-commit`, metadata `revision`: the
    /// column's "Commit" header).
    pub commit: Option<String>,
    /// Cluster provider the scenarios ran on (`embedded`).
    pub provider: String,
    /// Version of the harness that ran them.
    pub harness_version: String,
    /// When the run started, Unix epoch milliseconds (`started.json` timestamp).
    pub started_ms: i64,
    /// When it ended; `None` = when the last scenario ended.
    pub finished_ms: Option<i64>,
}

impl RunMeta {
    /// A run started at `started_ms` with the default job, provider `embedded` and this
    /// harness's version.
    pub fn new(started_ms: i64) -> Self {
        Self {
            job: DEFAULT_JOB.to_owned(),
            commit: None,
            provider: "embedded".to_owned(),
            harness_version: env!("CARGO_PKG_VERSION").to_owned(),
            started_ms,
            finished_ms: None,
        }
    }
}
