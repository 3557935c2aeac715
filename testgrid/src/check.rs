//! `harness testgrid check`: what TestGrid would show for a build directory, and what it would
//! drop, misread or reject.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::finding::{Code, Finding, Severity};
use crate::grid::Cell;
use crate::grid::column::{BuildRead, ReadError, ReadOptions, read_build};
use crate::layout::LATEST_BUILD;
use crate::natural::{natural_cmp, natural_less};

/// The validator's verdict on one build directory.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckReport {
    /// The column TestGrid would draw, and the reading findings.
    pub read: BuildRead,
}

impl CheckReport {
    /// Whether TestGrid would reject or misread something important.
    pub fn has_errors(&self) -> bool {
        self.error_count(false) > 0
    }

    /// Whether TestGrid still shows the build as running (no finished.json yet).
    pub fn is_running(&self) -> bool {
        self.read.column.readable && self.read.column.overall.status == crate::grid::Status::Running
    }

    /// Error findings; with `require_finished`, a running build counts as one more error.
    pub fn error_count(&self, require_finished: bool) -> usize {
        let errors = self
            .read
            .findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .count();
        errors + usize::from(require_finished && self.is_running())
    }

    /// Findings, most severe first (stable within a severity).
    pub fn findings(&self) -> Vec<&Finding> {
        let mut f: Vec<&Finding> = self.read.findings.iter().collect();
        f.sort_by_key(|f| std::cmp::Reverse(f.severity));
        f
    }

    /// Human-readable report: the column as TestGrid would show it, then the findings.
    pub fn render(&self) -> String {
        let c = &self.read.column;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "job {} build {} started {} commit {}",
            c.job, c.build, c.started, c.commit
        );
        if !c.headers.is_empty() {
            let headers: Vec<String> = c.headers.iter().map(|(h, v)| format!("{h}={v}")).collect();
            let _ = writeln!(out, "headers {}", headers.join(" "));
        }
        if !c.readable {
            out.push_str("TestGrid cannot read this build: one cell in row Overall, placed right after the previous readable build with its headers\n");
        }
        // ConstructGrid (pkg/updater/updater.go) lists every row, Overall included, in natural
        // order of its name.
        let mut rows: Vec<(String, &Cell)> = c
            .injected_rows()
            .map(|(name, cell)| (c.job_row(name), cell))
            .chain(c.rows.iter().map(|(name, cell)| (name.clone(), cell)))
            .collect();
        rows.sort_by(|a, b| natural_cmp(&a.0, &b.0));
        let _ = writeln!(out, "TestGrid would show {} row(s):", rows.len());
        for (name, cell) in &rows {
            let icon = cell
                .icon
                .as_deref()
                .map(|i| format!(" [{i}]"))
                .unwrap_or_default();
            let metrics = cell
                .metrics
                .iter()
                .map(|(k, v)| format!("{k}={}", short(*v)))
                .collect::<Vec<_>>()
                .join(" ");
            let _ = write!(out, "  {:<9}{icon} {name}", cell.status.name());
            if !metrics.is_empty() {
                let _ = write!(out, "  {{{metrics}}}");
            }
            if !cell.message.is_empty() {
                let _ = write!(out, "  -- {}", cell.message.replace('\n', " "));
            }
            out.push('\n');
        }
        let findings = self.findings();
        if findings.is_empty() {
            out.push_str("no findings\n");
        }
        for f in findings {
            let _ = writeln!(out, "{f}");
        }
        let count = |severity: Severity| {
            self.read
                .findings
                .iter()
                .filter(|f| f.severity == severity)
                .count()
        };
        let _ = writeln!(
            out,
            "{} error(s), {} warning(s)",
            count(Severity::Error),
            count(Severity::Warning)
        );
        out
    }
}

fn short(v: f64) -> String {
    let s = format!("{v:.4}");
    s.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// What a job directory holds around the builds being checked: its build directories in
/// natural order and `latest-build.txt`. Listed once per job, however many builds are checked.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JobListing {
    builds: Vec<String>,
    latest: Option<String>,
}

impl JobListing {
    /// Lists `job_dir`; one that cannot be listed has no builds.
    pub fn read(job_dir: &Path) -> Self {
        let mut builds: Vec<String> = std::fs::read_dir(job_dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.path().is_dir())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|name| !name.starts_with('.'))
            .collect();
        builds.sort_by(|a, b| natural_cmp(a, b));
        let latest = std::fs::read_to_string(job_dir.join(LATEST_BUILD))
            .ok()
            .map(|l| l.trim().to_owned());
        Self { builds, latest }
    }

    /// The build directories that sort after `build`, in natural order.
    fn newer_than(&self, build: &str) -> &[String] {
        let first_newer = self
            .builds
            .partition_point(|name| !natural_less(build, name));
        &self.builds[first_newer..]
    }
}

/// Checks one build directory.
pub fn check_build(dir: &Path, opts: &ReadOptions) -> Result<CheckReport, ReadError> {
    let job = job_dir_of(dir).map(|d| JobListing::read(&d));
    check_in_job(dir, opts, job.as_ref())
}

/// Checks build directories, listing each job directory once.
pub fn check_builds(dirs: &[PathBuf], opts: &ReadOptions) -> Result<Vec<CheckReport>, ReadError> {
    let mut jobs: HashMap<PathBuf, JobListing> = HashMap::new();
    dirs.iter()
        .map(|dir| {
            let job = job_dir_of(dir)
                .map(|d| &*jobs.entry(d).or_insert_with_key(|d| JobListing::read(d)));
            check_in_job(dir, opts, job)
        })
        .collect()
}

fn job_dir_of(dir: &Path) -> Option<PathBuf> {
    let canonical = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    canonical.parent().map(Path::to_path_buf)
}

fn check_in_job(
    dir: &Path,
    opts: &ReadOptions,
    job: Option<&JobListing>,
) -> Result<CheckReport, ReadError> {
    let mut read = read_build(dir, opts)?;
    let build = read.column.build.clone();
    if !build.bytes().all(|b| b.is_ascii_digit()) {
        read.findings.push(Finding::new(Severity::Warning, Code::BuildIdNotNumeric, ".", format!(
            "build id {build:?} is not a number; TestGrid only reads ids that sort (naturally) after the newest it has, so ids must always increase"
        )));
    }
    if let Some(job) = job {
        check_siblings(job, &build, &mut read.findings);
    }
    Ok(CheckReport { read })
}

fn check_siblings(job: &JobListing, build: &str, findings: &mut Vec<Finding>) {
    let newer = job.newer_than(build);
    if let Some(newest) = newer.last() {
        findings.push(Finding::new(Severity::Warning, Code::BuildIdNotNewest, ".", format!(
            "{} sibling build(s) sort after {build:?} (e.g. {newest:?}); if TestGrid already read them it will never read this one",
            newer.len(),
        )));
    }
    match &job.latest {
        Some(latest) if natural_less(latest, build) => findings.push(Finding::new(
            Severity::Info,
            Code::LatestBuildStale,
            format!("../{LATEST_BUILD}"),
            format!("latest-build.txt says {latest:?}, older than this build (TestGrid ignores it; Deck and Spyglass use it)"),
        )),
        Some(_) => {}
        None => findings.push(Finding::new(
            Severity::Info,
            Code::LatestBuildMissing,
            format!("../{LATEST_BUILD}"),
            "no latest-build.txt next to the build (TestGrid ignores it; Deck and Spyglass use it)",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn many_builds_are_checked_like_one_each() {
        let root = tempfile::tempdir().unwrap();
        let job = root.path().join("ci-job");
        for id in ["9", "10", "100"] {
            std::fs::create_dir_all(job.join(id)).unwrap();
            std::fs::write(job.join(id).join("started.json"), r#"{"timestamp": 1}"#).unwrap();
        }
        std::fs::write(job.join(LATEST_BUILD), "10\n").unwrap();
        let dirs: Vec<PathBuf> = ["9", "10", "100"].iter().map(|id| job.join(id)).collect();
        let opts = ReadOptions::at(2);
        let together = check_builds(&dirs, &opts).unwrap();
        let alone: Vec<CheckReport> = dirs
            .iter()
            .map(|d| check_build(d, &opts).unwrap())
            .collect();
        assert_eq!(together, alone);
        let sibling_findings = |r: &CheckReport| -> Vec<String> {
            r.read
                .findings
                .iter()
                .filter(|f| [Code::BuildIdNotNewest, Code::LatestBuildStale].contains(&f.code))
                .map(|f| f.message.clone())
                .collect()
        };
        assert_eq!(
            sibling_findings(&together[0]),
            [
                "2 sibling build(s) sort after \"9\" (e.g. \"100\"); if TestGrid already read them it will never read this one"
            ]
        );
        assert_eq!(
            sibling_findings(&together[2]),
            [
                "latest-build.txt says \"10\", older than this build (TestGrid ignores it; Deck and Spyglass use it)"
            ]
        );
    }
}
