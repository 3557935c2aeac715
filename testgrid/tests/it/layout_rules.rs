//! Golden tests of the bucket layout rules (reference testgrid.md section 1 and the synthetic
//! rows of 2.7): the Commit header, the JUnit size limit, build id order, multi-job groups and
//! the `<job>.Pod` row.

use std::fmt::Write as _;

use crate::fixture::{NOW, START, Tree, case, check, check_with, grid_of, suite};
use testgrid::finding::Code;
use testgrid::grid::junit_rows::MAX_JUNIT_BYTES;
use testgrid::grid::{ReadOptions, Status};

/// Commit = finished.metadata `Commit` (uncut), else the first version key, cut after the first
/// `+` (`metadata.Version`, metadata/job.go) and to 9 bytes, else `missing` (blank while the
/// build runs).
#[test]
fn commit_header_precedence_plus_cut_and_override() {
    let t = Tree::new();
    let done = |meta: &str, top: &str| {
        format!(
            r#"{{"timestamp": {}, "passed": true{top}, "metadata": {{{meta}}}}}"#,
            START + 60
        )
    };
    let builds: [(&str, &str, Option<String>); 9] = [
        (
            "1",
            r#""repo-version": "v1.31.0-alpha.0.5+0123456789abc""#,
            Some(done("", "")),
        ),
        (
            "2",
            r#""repo-version": "v1.30.0""#,
            Some(done("", r#", "job-version": "v1.34.2""#)),
        ),
        ("3", "", Some(done(r#""revision": "abcdef0123456789""#, ""))),
        (
            "4",
            r#""job-version": "v1.34.2""#,
            Some(done(r#""Commit": "deadbeefcafe+1""#, "")),
        ),
        ("5", "", Some(done("", ""))),
        ("6", "", None),
        ("7", "", Some(done(r#""Commit": 42"#, ""))),
        (
            "8",
            r#""repo-commit": "0123456789abcdef""#,
            Some(done("", "")),
        ),
        (
            "9",
            r#""repo-version": "v1+abc+def0123456789""#,
            Some(done("", "")),
        ),
    ];
    let mut out = String::new();
    for (id, started_extra, finished) in &builds {
        let sep = if started_extra.is_empty() { "" } else { ", " };
        let started = format!(r#"{{"timestamp": {START}{sep}{started_extra}}}"#);
        let dir = t.build(id, &started, finished.as_deref(), None);
        let c = check(&dir).read.column;
        let _ = writeln!(
            out,
            "{id}: {:?} (Overall {})",
            c.commit,
            c.overall.status.name()
        );
    }
    insta::assert_snapshot!(out);
}

/// A JUnit file over 100 million bytes is recorded as malformed without being read; other
/// files still give rows.
#[test]
fn junit_over_100_mb_is_malformed() {
    let t = Tree::new();
    let dir = t.one_build(
        &crate::fixture::finished_passed(true),
        &case("still read", 'P'),
    );
    let big = std::fs::File::create(dir.join("artifacts/junit_huge.xml")).expect("create");
    big.set_len(MAX_JUNIT_BYTES + 1).expect("sparse file");
    std::fs::write(dir.join("artifacts/junit_empty.xml"), "").expect("empty file");
    let report = check(&dir);
    assert_eq!(report.read.column.overall.status, Status::Fail);
    insta::assert_snapshot!(report.render());
}

/// TestGrid lists build directories (not loose files) in natural order and reads only ids
/// greater than the newest it already has: an id that sorts before a sibling may never be read.
#[test]
fn build_id_not_newer_is_never_read() {
    let t = Tree::new();
    for (id, start) in [
        ("9", START - 300),
        ("10", START - 200),
        ("100", START - 100),
    ] {
        t.build(
            id,
            &format!(r#"{{"timestamp": {start}}}"#),
            Some(&crate::fixture::finished_passed(true)),
            Some(&suite(&case("t", 'P'))),
        );
    }
    std::fs::write(t.job_dir().join("latest-build.txt"), "10").expect("latest");
    let grid = grid_of(&[t.job_dir()], &ReadOptions::at(NOW));
    let listed: Vec<&str> = grid.columns.iter().map(|c| c.build.as_str()).collect();
    let mut out = format!("builds read (loose latest-build.txt skipped): {listed:?}\n");
    for id in ["10", "100"] {
        let report = check(&t.job_dir().join(id));
        for f in report.findings() {
            if f.code.as_str().starts_with("build-id") || f.code.as_str().starts_with("latest") {
                let _ = writeln!(out, "{id}: {f}");
            }
        }
    }
    insta::assert_snapshot!(out);
}

/// Builds of several jobs form a multi-job group: test rows get the job name in front, and a
/// plain `Overall` row joins the `<job>.Overall` rows.
#[test]
fn multi_job_group_prefixes_rows_with_the_job() {
    let t = Tree::new();
    t.run("job-a", "1", START, Some(true), &case("x", 'P'));
    t.run("job-b", "1", START + 60, Some(false), &case("x", 'F'));
    let grid = grid_of(&[t.job("job-a"), t.job("job-b")], &ReadOptions::at(NOW));
    let mut out = String::new();
    for row in &grid.rows {
        let cells: Vec<&str> = (0..grid.columns.len())
            .map(|i| grid.cell(row, i).map_or("-", |c| c.status.name()))
            .collect();
        let _ = writeln!(out, "{row}: {cells:?}");
    }
    insta::assert_snapshot!(out);
}

/// With prowjob analysis on (no `disable_prowjob_analysis`), podinfo.json gives a `<job>.Pod`
/// row: PASS, FAIL "F" for a pod that did not run, PASS "E" without Prow's sidecar; a missing
/// file waits until an hour after the finish (RUNNING "!"), then PASS_WITH_SKIPS "!", and gives
/// no row while the build runs. podinfo.json is read even without analysis: cut short, it makes
/// the build "Malformed artifacts".
#[test]
fn pod_row_from_podinfo() {
    let t = Tree::new();
    let podinfos: [(&str, i64, Option<bool>, Option<&str>); 7] = [
        (
            "1",
            START,
            Some(true),
            Some(r#"{"pod": {"status": {"phase": "Succeeded"}}}"#),
        ),
        (
            "2",
            START,
            Some(false),
            Some(
                r#"{"pod": {"status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False", "message": "0/3 nodes are available"}]}}}"#,
            ),
        ),
        (
            "3",
            START,
            Some(true),
            Some(
                r#"{"pod": {"status": {"phase": "Failed", "containerStatuses": [{"name": "test", "state": {"terminated": {"exitCode": 1}}}]}}}"#,
            ),
        ),
        ("4", START, Some(true), None),
        ("5", NOW - 1800, Some(true), None),
        ("6", NOW - 1800, None, None),
        ("7", START, Some(true), Some(r#"{"pod": {"#)),
    ];
    let analysis = ReadOptions {
        prowjob_analysis: true,
        ..ReadOptions::at(NOW)
    };
    let mut out = String::new();
    for (id, start, passed, podinfo) in podinfos {
        let dir = t.run("ci-job", id, start, passed, &case("t", 'P'));
        if let Some(p) = podinfo {
            std::fs::write(dir.join("podinfo.json"), p).expect("podinfo");
        }
        let c = check_with(&dir, &analysis).read.column;
        let pod = c.pod.as_ref().map_or("no Pod row".to_owned(), |p| {
            format!(
                "Pod {} icon={:?} message={:?}",
                p.status.name(),
                p.icon,
                p.message
            )
        });
        let _ = writeln!(out, "{id}: Overall {} | {pod}", c.overall.status.name());
    }
    let without = check(&t.job_dir().join("2")).read.column;
    let _ = writeln!(out, "2 without analysis: pod row {:?}", without.pod);
    // A missing podinfo.json is worth a finding only when TestGrid would draw the Pod row.
    let missing = t.job_dir().join("4");
    let says_missing = |opts: &ReadOptions| {
        check_with(&missing, opts)
            .read
            .findings
            .iter()
            .any(|f| f.code == Code::PodinfoMissing)
    };
    assert!(says_missing(&analysis));
    assert!(!says_missing(&ReadOptions::at(NOW)));
    let malformed = check(&t.job_dir().join("7")).read.column.overall;
    let _ = writeln!(
        out,
        "7 without analysis: Overall {} {:?}",
        malformed.status.name(),
        malformed.message
    );
    let grid = grid_of(&[t.job_dir()], &analysis);
    let _ = writeln!(out, "rows: {:?}", grid.rows);
    insta::assert_snapshot!(out);
}
