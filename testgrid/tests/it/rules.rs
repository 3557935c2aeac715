//! Golden tests: one per reading rule of TestGrid (reference testgrid.md sections 1 to 3). Each
//! snapshot is the validator's rendering: the rows TestGrid would draw and the findings.

use crate::fixture::{
    NOW, START, Tree, check, check_with, finished_passed, overall_and_codes, started, suite,
};
use testgrid::check::CheckReport;
use testgrid::finding::Code;
use testgrid::grid::load::load;
use testgrid::grid::{Grid, ReadOptions, Status};

const PASSING: &str = r#"<testcase name="LB create is idempotent" time="12.5"/>"#;

/// A finished.json without `passed`, one minute after the start, with `result` if given.
fn finished_without_passed(result: Option<&str>) -> String {
    match result {
        Some(result) => format!(r#"{{"timestamp": {}, "result": "{result}"}}"#, START + 60),
        None => format!(r#"{{"timestamp": {}}}"#, START + 60),
    }
}

/// Whether reading the build reported a finding with `code`.
fn has_finding(report: &CheckReport, code: Code) -> bool {
    report.read.findings.iter().any(|f| f.code == code)
}

#[test]
fn finished_without_passed_falls_back_to_result_with_icon_e() {
    let t = Tree::new();
    let dir = t.one_build(&finished_without_passed(Some("SUCCESS")), PASSING);
    let report = check(&dir);
    assert!(report.has_errors());
    assert_eq!(report.read.column.overall.status, Status::Pass);
    assert_eq!(report.read.column.overall.icon.as_deref(), Some("E"));
    insta::assert_snapshot!(report.render());
}

#[test]
fn result_failure_only_is_fail_with_icon_e() {
    let t = Tree::new();
    let dir = t.one_build(&finished_without_passed(Some("FAILURE")), PASSING);
    let report = check(&dir);
    assert_eq!(
        (
            report.read.column.overall.status,
            report.read.column.overall.icon.as_deref()
        ),
        (Status::Fail, Some("E"))
    );
    insta::assert_snapshot!(report.render());
}

#[test]
fn neither_passed_nor_result_is_fail() {
    let t = Tree::new();
    let dir = t.one_build(&finished_without_passed(None), PASSING);
    let report = check(&dir);
    assert_eq!(report.read.column.overall.status, Status::Fail);
    insta::assert_snapshot!(report.render());
}

#[test]
fn skipped_with_reason_shows_bare_skip_is_dropped() {
    let t = Tree::new();
    let cases = r#"<testcase name="IPv6 frontend" time="0"><skipped message="skipped - cluster is single-stack"/></testcase>
<testcase name="filtered out" time="0"><skipped message="skipped"/></testcase>
<testcase name="bare" time="0"><skipped/></testcase>
<testcase name="reason in body"><skipped message="skipped">not on this SKU</skipped></testcase>"#;
    let dir = t.one_build(&finished_passed(true), cases);
    let report = check(&dir);
    let rows: Vec<&str> = report
        .read
        .column
        .rows
        .iter()
        .map(|(n, _)| n.as_str())
        .collect();
    assert_eq!(
        rows,
        ["ccm-parity.IPv6 frontend", "ccm-parity.reason in body"]
    );
    assert!(!report.has_errors());
    insta::assert_snapshot!(report.render());
}

/// Equal names merge: FLAKY when some passed and some failed, icon passes/total, metrics
/// averaged, and the most relevant message: TestGrid's `MergeCells` keeps the failing message
/// of highest severity with later cells winning ties (`result.GTE`), hence "b", not "a".
#[test]
fn duplicate_names_in_one_run_merge_into_flaky() {
    let t = Tree::new();
    let cases = r#"<testcase name="retried" time="60"><failure message="timeout waiting for LB">first attempt</failure></testcase>
<testcase name="retried" time="120"/>
<testcase name="twice failing"><failure message="a"/></testcase>
<testcase name="twice failing"><error message="b"/></testcase>"#;
    let dir = t.one_build(&finished_passed(false), cases);
    let report = check(&dir);
    let retried = &report.read.column.rows[0].1;
    assert_eq!(
        (retried.status, retried.icon.as_deref()),
        (Status::Flaky, Some("1/2"))
    );
    assert_eq!(retried.metrics["test-duration-minutes"], 1.5);
    assert_eq!(report.read.column.rows[1].1.message, "0/2 runs passed: b");
    insta::assert_snapshot!(report.render());
}

#[test]
fn duplicate_names_across_files_merge_too() {
    let t = Tree::new();
    let dir = t.one_build(&finished_passed(true), PASSING);
    t.file("1", "artifacts/junit_runner.xml", &suite(PASSING));
    let report = check(&dir);
    assert_eq!(report.read.column.rows.len(), 1);
    assert!(has_finding(&report, Code::DuplicateRow));
    insta::assert_snapshot!(report.render());
}

#[test]
fn numeric_properties_are_metrics_others_are_not() {
    let t = Tree::new();
    let cases = r#"<testcase name="arm budget" time="30">
<properties><property name="arm-calls" value="7"/><property name="arm-writes" value="2.5"/>
<property name="region" value="eastus"/><property name="arm-calls" value="9"/></properties></testcase>"#;
    let xml = format!(
        "<testsuites><testsuite name=\"ccm-parity\"><properties><property name=\"RandomSeed\" value=\"42\"/></properties>{cases}</testsuite></testsuites>"
    );
    let dir = t.build("1", &started(), Some(&finished_passed(true)), Some(&xml));
    let report = check(&dir);
    let cell = &report.read.column.rows[0].1;
    assert_eq!(cell.metrics["arm-calls"], 8.0);
    assert!(!cell.metrics.contains_key("RandomSeed"));
    insta::assert_snapshot!(report.render());
}

#[test]
fn overall_row_states() {
    let t = Tree::new();
    let failing_case = r#"<testcase name="probe ports match"><failure message="probe port 31000 != 31001">diff</failure></testcase>"#;
    let cases = [
        ("pass", Some(finished_passed(true)), Some(suite(PASSING))),
        (
            "fail-with-failing-test",
            Some(finished_passed(false)),
            Some(suite(failing_case)),
        ),
        (
            "fail-outside-tests",
            Some(finished_passed(false)),
            Some(suite(PASSING)),
        ),
        ("running", None, Some(suite(PASSING))),
        ("empty-finished", Some(String::new()), None),
        (
            "cut-short-finished",
            Some(r#"{"timestamp": 17"#.to_owned()),
            None,
        ),
        (
            "string-timestamp",
            Some(r#"{"timestamp": "1767229200", "passed": true}"#.to_owned()),
            None,
        ),
    ];
    let opts = ReadOptions::at(NOW);
    let mut out = String::new();
    for (name, finished, junit) in &cases {
        let dir = t.build(name, &started(), finished.as_deref(), junit.as_deref());
        out.push_str(&overall_and_codes(name, &dir, &opts));
    }
    // Timed out: started more than 24 h before now, never finished.
    let dir = t.build(
        "timed-out",
        &format!(r#"{{"timestamp": {}}}"#, NOW - 25 * 3600),
        None,
        None,
    );
    out.push_str(&overall_and_codes("timed-out", &dir, &opts));
    // No started.json at all.
    t.file("no-started", "finished.json", &finished_passed(true));
    let dir = t.job_dir().join("no-started");
    out.push_str(&overall_and_codes("no-started", &dir, &opts));
    insta::assert_snapshot!(out);
}

#[test]
fn overall_duration_metric_and_commit_header() {
    let t = Tree::new();
    let dir = t.one_build(&finished_passed(true), PASSING);
    let c = check(&dir).read.column;
    assert_eq!(c.overall.metrics["test-duration-minutes"], 60.0);
    assert_eq!(c.commit, "v1.34.2");
    assert_eq!(c.overall_row(), "ci-job.Overall");
}

#[test]
fn junit_discovery_reads_only_junit_names_anywhere() {
    let t = Tree::new();
    let dir = t.build("1", &started(), Some(&finished_passed(true)), None);
    let one = |n: &str| format!("<testsuite name=\"{n}\"><testcase name=\"t\"/></testsuite>");
    t.file("1", "artifacts/sub/dir/junit.xml", &one("nested"));
    t.file("1", "junit.e2e_suite.3.xml", &one("top"));
    t.file("1", "artifacts/test.xml", &one("testxml"));
    t.file("1", "artifacts/report.xml", &one("ignored"));
    t.file(
        "1",
        "artifacts/junit_broken.xml",
        "<testsuites><testsuite name=\"x\">",
    );
    let report = check(&dir);
    insta::assert_snapshot!(report.render());
}

#[test]
fn build_ids_are_ordered_naturally_and_columns_by_start_time() {
    let t = Tree::new();
    // ids in natural order 9 < 10 < 100; "100" started earliest (uploaded late with an old clock).
    for (id, start) in [
        ("9", START - 200),
        ("10", START - 100),
        ("100", START - 300),
        ("1767225600123000000", START),
    ] {
        t.build(
            id,
            &format!(r#"{{"timestamp": {start}}}"#),
            Some(&finished_passed(true)),
            Some(&suite(PASSING)),
        );
    }
    let reads = load(&[t.job_dir()], &ReadOptions::at(NOW)).expect("load");
    let grid = Grid::new(reads.into_iter().map(|r| r.column).collect());
    let columns: Vec<&str> = grid.columns.iter().map(|c| c.build.as_str()).collect();
    let mut by_id: Vec<String> = columns.iter().map(|s| (*s).to_owned()).collect();
    by_id.sort_by(|a, b| testgrid::natural::natural_cmp(b, a));
    insta::assert_snapshot!(format!(
        "display order (started desc): {columns:?}\nlisting order (natural desc): {by_id:?}"
    ));
    // The not-newest build gets a warning from the validator.
    let report = check(&t.job_dir().join("10"));
    assert!(has_finding(&report, Code::BuildIdNotNewest));
}

#[test]
fn json_type_errors_and_millisecond_timestamps() {
    let t = Tree::new();
    let dir = t.build(
        "1",
        r#"{"timestamp": 1767225600000}"#,
        Some(r#"{"timestamp": 1767229200, "passed": "true"}"#),
        Some(&suite(PASSING)),
    );
    insta::assert_snapshot!(check(&dir).render());
}

/// A build that started before `days_of_results` (by default what our configuration writes,
/// 15) is dropped as UNKNOWN "build too old" as soon as started.json is read: malformed files
/// and JUnit are never looked at. 0 means TestGrid's own default of 7 days.
#[test]
fn too_old_builds_show_unknown_before_anything_else_is_read() {
    let t = Tree::new();
    let dir = t.one_build(&finished_passed(true), PASSING);
    let later = NOW + 20 * 86_400;
    let report = check_with(&dir, &ReadOptions::at(later));
    assert_eq!(report.read.column.overall.status, Status::Unknown);
    assert!(report.read.column.rows.is_empty());
    insta::assert_snapshot!(report.render());
    // Malformed files of a dropped build do not count. The message is ancientColumn's
    // (pkg/updater/read.go; read_test.go "truncate columns after the newest old result"):
    // "build too old; started <start> before <stop>)", stray parenthesis included.
    t.file("1", "finished.json", "");
    t.file("1", "artifacts/junit_broken.xml", "<testsuites><testsuite>");
    let opts = ReadOptions::at(later);
    let line = overall_and_codes("malformed", &dir, &opts);
    let stop = later - 15 * 86_400;
    assert_eq!(
        line,
        format!(
            "malformed: unknown icon=None message=\"build too old; started {START} before {stop})\" findings=[\"build-too-old\"]\n"
        )
    );
    // days_of_results 0 keeps TestGrid's default of 7 days; 30 keeps this build.
    let eight_days = ReadOptions {
        days_of_results: 0,
        ..ReadOptions::at(NOW + 8 * 86_400)
    };
    assert_eq!(
        check_with(&dir, &eight_days).read.column.overall.status,
        Status::Unknown
    );
    let kept = ReadOptions {
        days_of_results: 30,
        ..ReadOptions::at(later)
    };
    // Sorted, and a bad JUnit file with its parse error (readResult, pkg/updater/read.go).
    assert_eq!(
        check_with(&dir, &kept).read.column.overall.message,
        "Malformed artifacts: artifacts/junit_broken.xml: XML error at byte 23: unexpected end of file inside an open element, finished.json"
    );
}

/// A finished.json without a positive `timestamp` never completes the build: TestGrid ignores
/// `passed` and shows RUNNING, then FAIL "T" (an explicit 0 is already past its deadline).
#[test]
fn finished_without_timestamp_is_running_then_timed_out() {
    let t = Tree::new();
    let opts = ReadOptions::at(NOW);
    let mut out = String::new();
    let cases = [
        (
            "no-timestamp",
            START,
            r#"{"passed": true, "result": "SUCCESS"}"#,
        ),
        (
            "no-timestamp-25h",
            NOW - 25 * 3600,
            r#"{"passed": true, "result": "SUCCESS"}"#,
        ),
        (
            "timestamp-zero",
            START,
            r#"{"timestamp": 0, "passed": true}"#,
        ),
        (
            "timestamp-null",
            START,
            r#"{"timestamp": null, "passed": false}"#,
        ),
    ];
    for (name, start, finished) in cases {
        let dir = t.build(
            name,
            &format!(r#"{{"timestamp": {start}}}"#),
            Some(finished),
            Some(&suite(PASSING)),
        );
        let report = check(&dir);
        assert_eq!(report.read.column.finished, None, "{name}");
        out.push_str(&overall_and_codes(name, &dir, &opts));
    }
    insta::assert_snapshot!(out);
}

/// "Build failed outside of test results" (icon F) is decided on the testcases before equal
/// names are merged: a failure that was retried and passed is still a failing test.
#[test]
fn build_failed_outside_tests_is_decided_before_merging() {
    let t = Tree::new();
    let retried = r#"<testcase name="retried"><failure message="first try timed out">x</failure></testcase>
<testcase name="retried"/>"#;
    let no_failure = r#"<testcase name="ok"/><testcase name="skipped"><skipped message="skipped - n/a"/></testcase>"#;
    let mut out = String::new();
    for (name, cases) in [
        ("retried-then-passed", retried),
        ("no-failing-test", no_failure),
    ] {
        let dir = t.build(
            name,
            &started(),
            Some(&finished_passed(false)),
            Some(&suite(cases)),
        );
        out.push_str(&format!("== {name}\n{}", check(&dir).render()));
    }
    let retried = check(&t.job_dir().join("retried-then-passed")).read.column;
    assert_eq!(
        (retried.overall.status, retried.overall.icon),
        (Status::Fail, None)
    );
    assert_eq!(retried.rows[0].1.status, Status::Flaky);
    insta::assert_snapshot!(out);
}

/// started.json's timestamp must be an integer: a string or a fraction fails decoding, and
/// TestGrid draws only a TOOL_FAIL Overall cell.
#[test]
fn started_timestamp_as_string_or_float_is_tool_fail() {
    let t = Tree::new();
    let mut out = String::new();
    for (name, started) in [
        ("string", r#"{"timestamp": "1767229200"}"#),
        ("float", r#"{"timestamp": 1767229200.5}"#),
    ] {
        let dir = t.build(
            name,
            started,
            Some(&finished_passed(true)),
            Some(&suite(PASSING)),
        );
        let report = check(&dir);
        assert_eq!(report.read.column.overall.status, Status::ToolFail);
        out.push_str(&format!("== {name}\n{}", report.render()));
    }
    insta::assert_snapshot!(out);
}
