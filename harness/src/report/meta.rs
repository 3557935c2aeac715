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
    /// Version of the CCM under test: finished.json metadata `ccm-version`, a column header of
    /// our TestGrid groups. By default the version of the `azure-ccm` crate this harness is built
    /// with (same workspace version), i.e. of the `azure-ccm` binary it starts; a run of another
    /// CCM binary must set it to that binary's version.
    pub ccm_version: String,
    /// Version of the harness that ran them.
    pub harness_version: String,
    /// When the run started, Unix epoch milliseconds (`started.json` timestamp).
    pub started_ms: i64,
    /// When it ended; `None` = when the last scenario ended.
    pub finished_ms: Option<i64>,
}

impl RunMeta {
    /// A run started at `started_ms` with the default job, provider `embedded`, this harness's
    /// version and the version of the azure-ccm it is built with.
    pub fn new(started_ms: i64) -> Self {
        Self {
            job: DEFAULT_JOB.to_owned(),
            commit: None,
            provider: "embedded".to_owned(),
            // azure-ccm and the harness share the workspace version (version.workspace = true).
            ccm_version: env!("CARGO_PKG_VERSION").to_owned(),
            harness_version: env!("CARGO_PKG_VERSION").to_owned(),
            started_ms,
            finished_ms: None,
        }
    }
}
