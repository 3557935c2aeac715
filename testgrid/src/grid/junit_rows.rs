//! The test rows of one build: JUnit discovery anywhere under the build directory, TestGrid's
//! size limit and parser, the per-testcase mapping and the merging of equal row names.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::cell::{self, CaseCell, Cell};
use super::notes::Notes;
use super::status::Status;
use crate::finding::{Code, Severity};
use crate::junit::reader::{self, ParseError};
use crate::natural::natural_cmp;

/// TestGrid records JUnit files above this size (100 million bytes) as malformed.
pub const MAX_JUNIT_BYTES: u64 = 100_000_000;

/// Test rows of one build, plus what the Overall row needs to know about them.
#[derive(Debug, Default)]
pub struct JunitRows {
    /// Rows in natural order of their names, equal names merged.
    pub rows: Vec<(String, Cell)>,
    /// Whether any testcase failed *before* merging (TestGrid decides the Overall "F" icon on
    /// these, so a retried-and-passed test still counts as a failing test).
    pub any_failing_case: bool,
}

/// Whether TestGrid treats a file name as JUnit results.
fn is_junit_name(base: &str) -> bool {
    base == "test.xml" || (base.starts_with("junit") && base.ends_with(".xml"))
}

/// Reads every JUnit file under `dir` (in listing order) into rows.
pub fn read(dir: &Path, notes: &mut Notes) -> JunitRows {
    let mut files = Vec::new();
    walk(dir, &mut files);
    let mut files: Vec<(String, PathBuf)> =
        files.into_iter().map(|p| (rel_path(dir, &p), p)).collect();
    files.sort();
    let mut by_name: BTreeMap<String, Vec<Cell>> = BTreeMap::new();
    let mut junit_count = 0;
    for (rel, path) in files {
        let base = rel.rsplit('/').next().unwrap_or_default();
        if !is_junit_name(base) {
            if base.ends_with(".xml") {
                notes.note(
                    Severity::Warning,
                    Code::FileNotRead,
                    &rel,
                    "TestGrid reads only files named junit*.xml or test.xml; this one is ignored",
                );
            }
            continue;
        }
        junit_count += 1;
        junit_file(&path, &rel, notes, &mut by_name);
    }
    if junit_count == 0 {
        notes.note(
            Severity::Warning,
            Code::NoJunit,
            ".",
            "no junit*.xml file anywhere under the build: TestGrid shows only the Overall row",
        );
    }
    let any_failing_case = by_name.values().flatten().any(|c| c.status == Status::Fail);
    let mut rows = Vec::new();
    for (name, cells) in by_name {
        if cells.len() > 1 {
            let statuses: Vec<&str> = cells.iter().map(|c| c.status.name()).collect();
            notes.note(
                Severity::Warning,
                Code::DuplicateRow,
                ".",
                format!(
                    "row {name:?} appears {} times ({}); TestGrid merges them into one cell",
                    cells.len(),
                    statuses.join(", ")
                ),
            );
        }
        if let Some(merged) = cell::merge(cells) {
            rows.push((name, merged));
        }
    }
    rows.sort_by(|a, b| natural_cmp(&a.0, &b.0));
    JunitRows {
        rows,
        any_failing_case,
    }
}

fn junit_file(
    path: &Path,
    rel: &str,
    notes: &mut Notes,
    by_name: &mut BTreeMap<String, Vec<Cell>>,
) {
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    if size > MAX_JUNIT_BYTES {
        notes.note(
            Severity::Error,
            Code::JunitTooLarge,
            rel,
            format!("{size} bytes is over TestGrid's limit of {MAX_JUNIT_BYTES} bytes: recorded as malformed, no rows"),
        );
        // readResult (pkg/updater/read.go) lists a bad JUnit file as "<path>: <error>"; the
        // error's wording here is ours [infer].
        notes.malformed.push(format!(
            "{rel}: {size} bytes over the {MAX_JUNIT_BYTES} byte limit"
        ));
        return;
    }
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) => {
            notes.note(
                Severity::Error,
                Code::JunitUnreadable,
                rel,
                format!("cannot read: {e}"),
            );
            notes.malformed.push(format!("{rel}: {e}"));
            return;
        }
    };
    let parsed = match reader::parse(&bytes) {
        Ok(p) => p,
        Err(ParseError::Empty) => {
            notes.note(Severity::Warning, Code::JunitEmpty, rel, "no <testsuites> or <testsuite> element: TestGrid reads the file without error but gets no rows from it");
            return;
        }
        Err(e) => {
            notes.note(Severity::Error, Code::JunitMalformed, rel, format!("{e}: TestGrid records the file as malformed (Overall FAIL, icon E) and reads no rows from it"));
            notes.malformed.push(format!("{rel}: {e}"));
            return;
        }
    };
    let mut dropped = Vec::new();
    let mut not_numeric = Vec::new();
    for case in &parsed.cases {
        match cell::from_case(case) {
            CaseCell::Dropped => dropped.push(case.row_name.clone()),
            CaseCell::Cell(c, props) => {
                not_numeric.extend(props.into_iter().map(|p| format!("{}: {p}", case.row_name)));
                by_name.entry(case.row_name.clone()).or_default().push(c);
            }
        }
    }
    if !dropped.is_empty() {
        notes.note(Severity::Warning, Code::SkipDropped, rel, format!(
            "{} testcase(s) skipped without a reason (message empty or \"skipped\", no body) get no row: {}",
            dropped.len(),
            preview(&dropped)
        ));
    }
    if !not_numeric.is_empty() {
        notes.note(Severity::Info, Code::PropertyNotMetric, rel, format!(
            "{} non-numeric testcase propert(ies) are not metrics (usable only as annotations): {}",
            not_numeric.len(),
            preview(&not_numeric)
        ));
    }
}

fn preview(items: &[String]) -> String {
    const SHOWN: usize = 5;
    let mut s = items
        .iter()
        .take(SHOWN)
        .map(|i| format!("{i:?}"))
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > SHOWN {
        s.push_str(&format!(" and {} more", items.len() - SHOWN));
    }
    s
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(ty) = entry.file_type() else { continue };
        if ty.is_dir() {
            walk(&entry.path(), out);
        } else if ty.is_file() {
            out.push(entry.path());
        }
    }
}

fn rel_path(base: &Path, path: &Path) -> String {
    path.strip_prefix(base)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_junit_path_that_cannot_be_read_is_malformed() {
        let dir = tempfile::tempdir().unwrap();
        // A directory named like a JUnit file: metadata works, reading fails.
        let path = dir.path().join("junit_x.xml");
        std::fs::create_dir(&path).unwrap();
        let mut notes = Notes::default();
        let mut by_name = BTreeMap::new();
        junit_file(&path, "junit_x.xml", &mut notes, &mut by_name);
        let codes: Vec<Code> = notes.findings.iter().map(|f| f.code).collect();
        assert_eq!(codes, [Code::JunitUnreadable]);
        assert_eq!(notes.malformed.len(), 1);
        assert!(
            notes.malformed[0].starts_with("junit_x.xml: "),
            "{:?}",
            notes.malformed
        );
    }

    #[test]
    fn names_testgrid_reads() {
        for yes in [
            "junit.xml",
            "junit_01.xml",
            "junit.e2e_suite.3.xml",
            "test.xml",
        ] {
            assert!(is_junit_name(yes), "{yes}");
        }
        for no in ["report.xml", "junit_01.xml.gz", "Junit.xml", "mytest.xml"] {
            assert!(!is_junit_name(no), "{no}");
        }
    }
}
