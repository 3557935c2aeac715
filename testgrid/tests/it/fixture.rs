//! Builds raw build directories (any content, even wrong) for the rule tests.

use std::path::{Path, PathBuf};

use testgrid::check::{CheckReport, check_build};
use testgrid::grid::ReadOptions;

/// "Now" used by every test: 2026-01-02 00:00 UTC.
pub const NOW: i64 = 1_767_312_000;
/// A start time one day before `NOW`... minus one hour, so unfinished builds are still RUNNING.
pub const START: i64 = NOW - 23 * 3600;

/// The job most rule tests write their builds under.
const JOB: &str = "ci-job";

/// A temporary bucket-shaped tree: `<root>/<job>/<build>/...` (job `ci-job` unless named).
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
        self.job(JOB)
    }

    /// The directory of job `job`.
    pub fn job(&self, job: &str) -> PathBuf {
        self.root.path().join(job)
    }

    /// Writes `rel` (relative to build `build` of job `ci-job`) with `content`.
    pub fn file(&self, build: &str, rel: &str, content: &str) -> &Self {
        self.write(JOB, build, rel, content);
        self
    }

    fn write(&self, job: &str, build: &str, rel: &str, content: &str) {
        let path = self.job(job).join(build).join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, content).expect("write");
    }

    /// A build of `ci-job` with started/finished JSON and one JUnit file.
    pub fn build(
        &self,
        build: &str,
        started: &str,
        finished: Option<&str>,
        junit: Option<&str>,
    ) -> PathBuf {
        self.job_build(JOB, build, started, finished, junit)
    }

    fn job_build(
        &self,
        job: &str,
        build: &str,
        started: &str,
        finished: Option<&str>,
        junit: Option<&str>,
    ) -> PathBuf {
        self.write(job, build, "started.json", started);
        if let Some(f) = finished {
            self.write(job, build, "finished.json", f);
        }
        if let Some(j) = junit {
            self.write(job, build, "artifacts/junit_parity.xml", j);
        }
        self.job(job).join(build)
    }

    /// Build `1` with the usual started.json, `finished` and one JUnit file of `cases`: the
    /// shape most rule tests read.
    pub fn one_build(&self, finished: &str, cases: &str) -> PathBuf {
        self.build("1", &started(), Some(finished), Some(&suite(cases)))
    }

    /// A complete build `id` of job `job` started at `start`: finished 10 minutes later with
    /// `passed` (or still running when `None`), one JUnit file of `cases`.
    pub fn run(
        &self,
        job: &str,
        id: &str,
        start: i64,
        passed: Option<bool>,
        cases: &str,
    ) -> PathBuf {
        let finished = passed.map(|passed| finished_at(start + 600, passed));
        self.job_build(
            job,
            id,
            &started_at(start),
            finished.as_deref(),
            Some(&suite(cases)),
        )
    }
}

pub fn started() -> String {
    started_at(START)
}

/// A started.json of `start`.
pub fn started_at(start: i64) -> String {
    format!(r#"{{"timestamp": {start}}}"#)
}

pub fn finished_passed(passed: bool) -> String {
    finished_at(START + 3600, passed)
}

/// A finished.json of `timestamp` with `passed`, its `result`, a `job-version` and the
/// `ccm-version` our groups show as a column header.
fn finished_at(timestamp: i64, passed: bool) -> String {
    format!(
        r#"{{"timestamp": {timestamp}, "passed": {passed}, "result": "{}", "metadata": {{"job-version": "v1.34.2", "ccm-version": "0.1.0"}}}}"#,
        if passed { "SUCCESS" } else { "FAILURE" }
    )
}

pub fn suite(cases: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n<testsuite name=\"ccm-parity\">\n{cases}\n</testsuite>\n</testsuites>\n"
    )
}

pub fn check(dir: &Path) -> CheckReport {
    check_build(dir, &ReadOptions::at(NOW)).expect("check_build")
}

/// Checks a build with other reading options.
pub fn check_with(dir: &Path, opts: &ReadOptions) -> CheckReport {
    check_build(dir, opts).expect("check_build")
}

/// Reads every build under `paths` into a grid, as `harness report` does.
pub fn grid_of(paths: &[PathBuf], opts: &ReadOptions) -> testgrid::grid::Grid {
    let reads = testgrid::grid::load::load(paths, opts).expect("load");
    testgrid::grid::Grid::new(reads.into_iter().map(|r| r.column).collect())
}

/// One line: how TestGrid would draw the Overall cell of the build in `dir`, and the codes
/// reading it noticed.
pub fn overall_and_codes(name: &str, dir: &Path, opts: &ReadOptions) -> String {
    let read = testgrid::grid::read_build(dir, opts).expect("read_build");
    let o = &read.column.overall;
    let codes: Vec<&str> = read.findings.iter().map(|f| f.code.as_str()).collect();
    format!(
        "{name}: {} icon={:?} message={:?} findings={codes:?}\n",
        o.status.name(),
        o.icon,
        o.message
    )
}

/// A testcase of the rule tests' suite: `P` pass, `F` fail, `S` skip with a reason.
pub fn case(name: &str, result: char) -> String {
    match result {
        'F' => format!(
            r#"<testcase name="{name}" time="1"><failure message="{name} broke">details</failure></testcase>"#
        ),
        'S' => format!(
            r#"<testcase name="{name}"><skipped message="skipped - not on this cluster"/></testcase>"#
        ),
        _ => format!(r#"<testcase name="{name}" time="1"/>"#),
    }
}
