//! `write_results`: the run's TestGrid build directory, written through the `testgrid` crate so
//! that `harness testgrid check DIR` accepts it.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use testgrid::finished::{Finished, JobResult};
use testgrid::junit::JunitError;
use testgrid::layout::{BuildLayout, LayoutError};
use testgrid::started::Started;

use super::html::render_html;
use super::junit::junit_report;
use super::meta::RunMeta;
use crate::outcome::{ScenarioOutcome, Verdict};

/// Suffix of the one JUnit file (`artifacts/junit_01.xml`, the name Kubernetes' e2e suite and
/// KEP-2390's uploader use).
const JUNIT_SUFFIX: &str = "01";
/// The HTML page, beside the JUnit file.
const HTML: &str = "artifacts/report.html";

/// Errors writing the results.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// The build directory could not be written.
    #[error("cannot write the TestGrid build in {dir}: {source}")]
    Layout {
        /// The directory.
        dir: String,
        /// What failed.
        #[source]
        source: LayoutError,
    },
    /// The outcomes could not be expressed as JUnit.
    #[error("cannot build the JUnit report: {0}")]
    Junit(#[from] JunitError),
    /// A file could not be written.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}

/// What `write_results` wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// The build directory.
    pub dir: PathBuf,
    /// The JUnit files.
    pub junit: Vec<PathBuf>,
    /// `started.json` (not with `--junit-only`).
    pub started: Option<PathBuf>,
    /// `finished.json` (not with `--junit-only`).
    pub finished: Option<PathBuf>,
    /// `artifacts/report.html` (not with `--junit-only`).
    pub html: Option<PathBuf>,
    /// Whether every scenario met its expectation (`finished.json`'s `passed`).
    pub passed: bool,
}

/// Writes the run's results into `dir` as one TestGrid build: `started.json`, `finished.json`
/// (SUCCESS only when every scenario met its expectation), `artifacts/junit_01.xml` and
/// `artifacts/report.html`; with `junit_only`, only the JUnit file. Files already in `dir` (the
/// scenarios' own artifacts) are kept; nothing is written outside it.
pub fn write_results(
    dir: &Path,
    meta: &RunMeta,
    outcomes: &[ScenarioOutcome],
    junit_only: bool,
) -> Result<Written, ReportError> {
    let layout_err = |source| ReportError::Layout {
        dir: dir.display().to_string(),
        source,
    };
    let layout = BuildLayout::open(dir).map_err(layout_err)?;
    let passed = outcomes.iter().all(ScenarioOutcome::met_expectation);
    let report = junit_report(outcomes)?;
    let junit = layout
        .write_junit(JUNIT_SUFFIX, &report)
        .map_err(layout_err)?;
    let mut written = Written {
        dir: dir.to_path_buf(),
        junit: vec![junit],
        started: None,
        finished: None,
        html: None,
        passed,
    };
    if junit_only {
        return Ok(written);
    }
    layout
        .write_started(&started(meta, outcomes))
        .map_err(layout_err)?;
    written.started = Some(dir.join("started.json"));
    let html_path = dir.join(HTML);
    let page = render_html(meta, outcomes, &html_path);
    std::fs::write(&html_path, page).map_err(|source| ReportError::Io {
        path: html_path.display().to_string(),
        source,
    })?;
    written.html = Some(html_path);
    layout
        .write_finished(&finished(meta, outcomes, passed))
        .map_err(layout_err)?;
    written.finished = Some(dir.join("finished.json"));
    Ok(written)
}

/// Metadata both files carry: what ran, where, with what.
fn common_metadata(meta: &RunMeta, outcomes: &[ScenarioOutcome]) -> Vec<(&'static str, String)> {
    let versions: BTreeSet<&str> = outcomes
        .iter()
        .map(|o| o.kubernetes_version.as_str())
        .collect();
    let mut keys = vec![
        ("job", meta.job.clone()),
        ("provider", meta.provider.clone()),
        ("harness-version", meta.harness_version.clone()),
        (
            testgrid::finished::CCM_VERSION_KEY,
            meta.ccm_version.clone(),
        ),
        (
            "kubernetes-versions",
            versions.into_iter().collect::<Vec<_>>().join(","),
        ),
        ("scenarios", outcomes.len().to_string()),
    ];
    if let Some(commit) = &meta.commit {
        keys.push(("revision", commit.clone()));
    }
    keys
}

fn started(meta: &RunMeta, outcomes: &[ScenarioOutcome]) -> Started {
    let mut started = Started::at(meta.started_ms.div_euclid(1_000));
    started.repo_commit = meta.commit.clone();
    for (k, v) in common_metadata(meta, outcomes) {
        started = started.with_metadata(k, v);
    }
    started
}

fn finished(meta: &RunMeta, outcomes: &[ScenarioOutcome], passed: bool) -> Finished {
    let last_end = outcomes
        .iter()
        .map(|o| o.started_ms.saturating_add(o.duration_ms as i64))
        .max()
        .unwrap_or(meta.started_ms);
    let end_ms = meta.finished_ms.unwrap_or(last_end).max(meta.started_ms);
    let result = if passed {
        JobResult::Success
    } else {
        JobResult::Failure
    };
    let mut finished = Finished::new(end_ms.div_euclid(1_000), result);
    for (k, v) in common_metadata(meta, outcomes) {
        finished = finished.with_metadata(k, v);
    }
    let met = outcomes.iter().filter(|o| o.met_expectation()).count();
    let count = |v: Verdict| {
        outcomes
            .iter()
            .flat_map(|o| &o.checks)
            .filter(|c| c.verdict == v)
            .count()
            .to_string()
    };
    finished
        .with_metadata("scenarios-met", met.to_string())
        .with_metadata("scenarios-not-met", (outcomes.len() - met).to_string())
        .with_metadata("checks-passed", count(Verdict::Pass))
        .with_metadata("checks-failed", count(Verdict::Fail))
        .with_metadata("checks-errored", count(Verdict::Error))
        .with_metadata("checks-skipped", count(Verdict::Skipped))
}
