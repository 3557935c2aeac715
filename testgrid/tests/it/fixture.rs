//! Builds raw build directories (any content, even wrong) for the rule tests.

use std::path::{Path, PathBuf};

use testgrid::check::{CheckReport, check_build};
use testgrid::grid::ReadOptions;

/// "Now" used by every test: 2026-01-02 00:00 UTC.
pub const NOW: i64 = 1_767_312_000;
/// A start time one day before `NOW`... minus one hour, so unfinished builds are still RUNNING.
pub const START: i64 = NOW - 23 * 3600;

/// A temporary bucket-shaped tree: `<root>/ci-job/<build>/...`.
pub struct Tree {
    root: tempfile::TempDir,
}

impl Tree {
    pub fn new() -> Self {
        Self {
            root: tempfile::tempdir().expect("tempdir"),
        }
    }

    pub fn job_dir(&self) -> PathBuf {
        self.root.path().join("ci-job")
    }

    /// Writes `rel` (relative to the build directory) with `content`.
    pub fn file(&self, build: &str, rel: &str, content: &str) -> &Self {
        let path = self.job_dir().join(build).join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, content).expect("write");
        self
    }

    /// A build with started/finished JSON and one JUnit file.
    pub fn build(
        &self,
        build: &str,
        started: &str,
        finished: Option<&str>,
        junit: Option<&str>,
    ) -> PathBuf {
        self.file(build, "started.json", started);
        if let Some(f) = finished {
            self.file(build, "finished.json", f);
        }
        if let Some(j) = junit {
            self.file(build, "artifacts/junit_parity.xml", j);
        }
        self.job_dir().join(build)
    }

    /// Build `1` with the usual started.json, `finished` and one JUnit file of `cases`: the
    /// shape most rule tests read.
    pub fn one_build(&self, finished: &str, cases: &str) -> PathBuf {
        self.build("1", &started(), Some(finished), Some(&suite(cases)))
    }
}

pub fn started() -> String {
    format!(r#"{{"timestamp": {START}}}"#)
}

pub fn finished_passed(passed: bool) -> String {
    format!(
        r#"{{"timestamp": {}, "passed": {passed}, "result": "{}", "metadata": {{"job-version": "v1.34.2"}}}}"#,
        START + 3600,
        if passed { "SUCCESS" } else { "FAILURE" }
    )
}

pub fn suite(cases: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n<testsuite name=\"ccm-parity\">\n{cases}\n</testsuite>\n</testsuites>\n"
    )
}

pub fn check(dir: &Path) -> CheckReport {
    check_build(
        dir,
        &ReadOptions {
            now: NOW,
            days_of_results: None,
        },
    )
    .expect("check_build")
}
