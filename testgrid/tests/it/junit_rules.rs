//! Golden tests of the JUnit dialect TestGrid parses (reference testgrid.md section 2): row
//! names, root element and encoding, status mapping and the cell message.

use crate::fixture::{Tree, check, finished_passed, started, suite};
use testgrid::grid::Status;

/// The rows TestGrid would draw for a build with `files` (path, content) under it.
fn render_with(files: &[(&str, &[u8])]) -> String {
    let t = Tree::new();
    let dir = t.build("1", &started(), Some(&finished_passed(true)), None);
    for (rel, content) in files {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, content).expect("write");
    }
    check(&dir).render()
}

/// Row name = suite names and the testcase name joined with dots; an empty suite name adds no
/// dot; `classname` and `status` are ignored; rows come in natural order.
#[test]
fn row_names_join_nested_suites_with_dots() {
    let nested = br#"<testsuites>
<testsuite name="outer"><testsuite name="inner"><testcase name="case" classname="ignored.Class" status="failed"/></testsuite>
<testsuite name=""><testcase name="in unnamed"/></testsuite>
<testcase name="t10"/><testcase name="t9"/></testsuite>
</testsuites>"#;
    let bare = br#"<testsuite><testcase name="no suite name" classname="x"/></testsuite>"#;
    let out = render_with(&[
        ("artifacts/junit_nested.xml", nested),
        ("artifacts/junit_bare.xml", bare),
    ]);
    insta::assert_snapshot!(out);
}

/// Only a `<testsuites>` or bare `<testsuite>` root in UTF-8 (declared `UTF-8` in any case,
/// `utf8`, or nothing) is read; anything else makes the file malformed while the other files
/// still count. A file without any element is read as empty (no rows, not malformed).
#[test]
fn junit_root_and_encoding_decide_malformed() {
    let case = r#"<testcase name="ok"/>"#;
    let declared = |enc: &str| {
        format!(
            r#"<?xml version="1.0" encoding="{enc}"?><testsuite name="{enc}">{case}</testsuite>"#
        )
        .into_bytes()
    };
    let out = render_with(&[
        ("artifacts/junit_a_root.xml", b"<report><testcase name=\"x\"/></report>"),
        ("artifacts/junit_b_latin1.xml", &declared("ISO-8859-1")),
        ("artifacts/junit_c_upper_utf8.xml", &declared("UTF8")),
        ("artifacts/junit_d_bad_bytes.xml", b"<testsuite name=\"s\"><testcase name=\"x\"><failure>caf\xe9</failure></testcase></testsuite>"),
        ("artifacts/junit_e_utf8.xml", &declared("utf8")),
        ("artifacts/junit_f_lower.xml", &declared("utf-8")),
        ("artifacts/junit_g_empty.xml", b""),
        ("artifacts/junit_h_bare.xml", suite(case).as_bytes()),
    ]);
    insta::assert_snapshot!(out);
}

/// `<error>` fails like `<failure>`; the "F" icon needs a message (attribute or body); an
/// error's text wins over a failure's.
#[test]
fn error_alone_and_failure_without_message() {
    let cases = r#"<testcase name="a error with message"><error message="panic: nil map" type="panic"/></testcase>
<testcase name="b error body only"><error>goroutine 1 [running]</error></testcase>
<testcase name="c bare failure"><failure/></testcase>
<testcase name="d failure body only"><failure>expected 1, got 2</failure></testcase>
<testcase name="e error and failure"><failure message="assertion"/><error message="interrupted"/></testcase>
<testcase name="f passes"/>"#;
    let t = Tree::new();
    let dir = t.one_build(&finished_passed(false), cases);
    let report = check(&dir);
    let statuses: Vec<(Status, Option<&str>)> = report
        .read
        .column
        .rows
        .iter()
        .map(|(_, c)| (c.status, c.icon.as_deref()))
        .collect();
    assert_eq!(
        statuses,
        [
            (Status::Fail, Some("F")),
            (Status::Fail, Some("F")),
            (Status::Fail, None),
            (Status::Fail, Some("F")),
            (Status::Fail, Some("F")),
            (Status::Pass, None),
        ]
    );
    insta::assert_snapshot!(report.render());
}

/// The message is the first non-empty of error, failure, skipped (message and body joined by a
/// newline), system-err, system-out; from 140 bytes on it keeps the first and last 70 bytes
/// around "..." (bytes, so a split character makes it "invalid utf8: " with "?"); every stored
/// message over 140 bytes is then cut once more.
#[test]
fn cell_message_sources_and_140_byte_cut() {
    let long = format!("{}{}", "a".repeat(100), "z".repeat(100));
    let exactly_140 = "x".repeat(140);
    let accents = format!("a{}", "é".repeat(100));
    let cases = format!(
        r#"<testcase name="1 skipped message and body"><skipped message="skipped - no IPv6">cluster is single-stack</skipped></testcase>
<testcase name="2 system-err before system-out"><system-out>out</system-out><system-err>err</system-err></testcase>
<testcase name="3 system-out alone"><system-out>only out</system-out></testcase>
<testcase name="4 empty failure falls back"><failure/><system-out>log tail</system-out></testcase>
<testcase name="5 long"><failure message="{long}"/></testcase>
<testcase name="6 exactly 140 bytes"><failure message="{exactly_140}"/></testcase>
<testcase name="7 split character"><failure message="{accents}"/></testcase>"#
    );
    let t = Tree::new();
    let dir = t.one_build(&finished_passed(false), &cases);
    let report = check(&dir);
    let lengths: Vec<usize> = report
        .read
        .column
        .rows
        .iter()
        .map(|(_, c)| c.message.len())
        .collect();
    // The split character's message is derived as "invalid utf8: " + 69 + "?" + "..." + 70
    // bytes (157), then cut again when the updater stores the cell (appendCell's truncate in
    // pkg/updater/updater.go): 69 bytes (a split "é" dropped) + "..." + 70.
    assert_eq!(lengths[4..], [143, 143, 69 + 3 + 70]);
    insta::assert_snapshot!(report.render());
}
