//! One golden test of deliberately broken builds that, together, make the validator say every
//! finding code it has: the catalogue of what TestGrid would drop, misread or reject.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use crate::fixture::{NOW, Tree, check_with, suite};
use testgrid::finding::Code;
use testgrid::grid::ReadOptions;
use testgrid::grid::junit_rows::MAX_JUNIT_BYTES;

const DAY: i64 = 86_400;

/// Everything wrong at once, spread over the builds of two jobs (some problems exclude each
/// other, e.g. a missing and an undecodable started.json).
#[test]
fn everything_wrong_builds_say_every_finding_code() {
    let t = Tree::new();
    // Build 7: a started.json in milliseconds with deprecated metadata, a finished.json that
    // contradicts itself, and JUnit files of every kind of trouble.
    t.file(
        "7",
        "started.json",
        r#"{"timestamp": 1767229200000, "metadata": {"uploader": "me"}, "unknown-key": 1}"#,
    );
    t.file(
        "7",
        "finished.json",
        r#"{"timestamp": 1767230000, "passed": true, "result": "PASSED", "metadata": {"attempts": 3, "job-version": "v1.34.2+abc", "EmailAddresses": "oncall@example.com"}}"#,
    );
    let cases = r#"<testcase name="dup"/><testcase name="dup"><failure message="again"/></testcase>
<testcase name="hidden"><skipped/></testcase>
<testcase name="budget"><properties><property name="zone" value="eastus"/></properties></testcase>"#;
    t.file("7", "artifacts/junit_a.xml", &suite(cases));
    t.file("7", "artifacts/junit_b.xml", "<results/>");
    t.file("7", "artifacts/junit_c.xml", "");
    t.file(
        "7",
        "artifacts/report.xml",
        &suite(r#"<testcase name="unread"/>"#),
    );
    let huge = std::fs::File::create(t.job_dir().join("7/artifacts/junit_d.xml")).expect("huge");
    huge.set_len(MAX_JUNIT_BYTES + 1).expect("sparse file");
    // Build 8: an empty started.json, an aborted finished.json without timestamp or passed, an
    // empty podinfo.json.
    t.file("8", "started.json", " \n");
    t.file("8", "finished.json", r#"{"result": "ABORTED"}"#);
    t.file("8", "podinfo.json", "");
    // Build 9: a zero start, and a finished.json and podinfo.json (cut short) TestGrid cannot
    // decode.
    t.file("9", "started.json", r#"{"timestamp": 0}"#);
    t.file("9", "finished.json", r#""done""#);
    t.file("9", "podinfo.json", r#"{"pod": "#);
    // Build 3: an undecodable started.json and an empty finished.json.
    t.file("3", "started.json", "[1767229200]");
    t.file("3", "finished.json", "");
    // Build 2: older than days_of_results, so its finished.json (before its start) is not read.
    t.file(
        "2",
        "started.json",
        &format!(r#"{{"timestamp": {}}}"#, NOW - 30 * DAY),
    );
    t.file(
        "2",
        "finished.json",
        &format!(r#"{{"timestamp": {}, "passed": true}}"#, NOW - 31 * DAY),
    );
    // Build rc1: not a number, nothing but a log.
    t.file("rc1", "build-log.txt", "log");
    std::fs::write(t.job_dir().join("latest-build.txt"), "5").expect("latest");
    // Another job without latest-build.txt, read with prowjob analysis but no podinfo.json.
    let other = t.run(
        "other-job",
        "1",
        NOW - 3600,
        Some(true),
        r#"<testcase name="ok"/>"#,
    );

    // Our configuration's days_of_results (15) drops build 2.
    let opts = ReadOptions::at(NOW);
    let analysis = ReadOptions {
        prowjob_analysis: true,
        ..opts.clone()
    };
    let mut out = String::new();
    let mut seen = BTreeSet::new();
    let mut dirs: Vec<_> = ["7", "8", "9", "3", "2", "rc1"]
        .iter()
        .map(|id| (t.job_dir().join(id), opts.clone()))
        .collect();
    dirs.push((other, analysis));
    for (dir, opts) in dirs {
        let report = check_with(&dir, &opts);
        seen.extend(report.read.findings.iter().map(|f| f.code));
        let _ = write!(
            out,
            "== {}\n{}",
            dir.strip_prefix(t.job_dir().parent().expect("root"))
                .expect("relative")
                .display(),
            report.render()
        );
    }
    // `junit-unreadable` needs a JUnit path that exists but cannot be read, which a tree
    // written by root cannot have; src/grid/junit_rows.rs covers it with a directory.
    let missing: Vec<&str> = Code::ALL
        .iter()
        .filter(|c| !seen.contains(c) && **c != Code::JunitUnreadable)
        .map(|c| c.as_str())
        .collect();
    assert!(missing.is_empty(), "codes no build said: {missing:?}");
    insta::assert_snapshot!(out);
}
