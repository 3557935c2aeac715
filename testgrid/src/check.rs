//! `harness testgrid check`: what TestGrid would show for a build directory, and what it would
//! drop, misread or reject.

use std::fmt::Write as _;
use std::path::Path;

use crate::finding::{Code, Finding, Severity};
use crate::grid::column::{BuildRead, ReadError, ReadOptions, read_build};
use crate::layout::LATEST_BUILD;
use crate::natural::natural_less;

/// The validator's verdict on one build directory.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckReport {
    /// The column TestGrid would draw, and the reading findings.
    pub read: BuildRead,
}

impl CheckReport {
    /// Whether TestGrid would reject or misread something important.
    pub fn has_errors(&self) -> bool {
        self.read
            .findings
            .iter()
            .any(|f| f.severity == Severity::Error)
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
        let injected = c.injected_rows();
        let _ = writeln!(
            out,
            "TestGrid would show {} row(s):",
            c.rows.len() + injected.len()
        );
        for (name, cell) in injected
            .iter()
            .map(|(n, c)| (n.as_str(), *c))
            .chain(c.rows.iter().map(|(n, c)| (n.as_str(), c)))
        {
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

/// Checks one build directory.
pub fn check_build(dir: &Path, opts: &ReadOptions) -> Result<CheckReport, ReadError> {
    let mut read = read_build(dir, opts)?;
    let canonical = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let build = read.column.build.clone();
    if !build.bytes().all(|b| b.is_ascii_digit()) {
        read.findings.push(Finding::new(Severity::Warning, Code::BuildIdNotNumeric, ".", format!(
            "build id {build:?} is not a number; TestGrid only reads ids that sort (naturally) after the newest it has, so ids must always increase"
        )));
    }
    if let Some(job_dir) = canonical.parent() {
        check_siblings(job_dir, &build, &mut read.findings);
    }
    Ok(CheckReport { read })
}

fn check_siblings(job_dir: &Path, build: &str, findings: &mut Vec<Finding>) {
    let Ok(entries) = std::fs::read_dir(job_dir) else {
        return;
    };
    let newer: Vec<String> = entries
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| !name.starts_with('.') && natural_less(build, name))
        .collect();
    if !newer.is_empty() {
        findings.push(Finding::new(Severity::Warning, Code::BuildIdNotNewest, ".", format!(
            "{} sibling build(s) sort after {build:?} (e.g. {:?}); if TestGrid already read them it will never read this one",
            newer.len(),
            newer.iter().max_by(|a, b| crate::natural::natural_cmp(a, b)).cloned().unwrap_or_default()
        )));
    }
    match std::fs::read_to_string(job_dir.join(LATEST_BUILD)) {
        Ok(latest) if natural_less(latest.trim(), build) => findings.push(Finding::new(
            Severity::Info,
            Code::LatestBuildStale,
            format!("../{LATEST_BUILD}"),
            format!("latest-build.txt says {:?}, older than this build (TestGrid ignores it; Deck and Spyglass use it)", latest.trim()),
        )),
        Ok(_) => {}
        Err(_) => findings.push(Finding::new(
            Severity::Info,
            Code::LatestBuildMissing,
            format!("../{LATEST_BUILD}"),
            "no latest-build.txt next to the build (TestGrid ignores it; Deck and Spyglass use it)",
        )),
    }
}
