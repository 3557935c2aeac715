//! Golden tests of what TestGrid's updater finally displays for builds our writer produces
//! (issue 16): the stored-message cut, the Commit header, configured headers, builds it cannot
//! read, cut-short JSON, its wording, row order, `EmailAddresses`, running and aborted builds.
//! Each test cites the TestGrid function it reproduces.

use std::path::PathBuf;
use std::time::Duration;

use crate::fixture::{NOW, START, check, grid_of, started_at};
use testgrid::build_id::BuildId;
use testgrid::check::CheckReport;
use testgrid::finding::{Code, Severity};
use testgrid::finished::{CCM_VERSION_KEY, Finished, JobResult};
use testgrid::grid::{ReadOptions, Status};
use testgrid::junit::{Case, JunitReport, Suite};
use testgrid::layout::BuildLayout;
use testgrid::started::Started;

/// Writes build `id` of `ci-job` under `root` with our writer: started at `start`, one suite
/// of `cases`, finished ten minutes later with `finished` (still running when `None`).
fn write(
    root: &std::path::Path,
    id: &str,
    start: i64,
    cases: Vec<Case>,
    finished: Option<Finished>,
) -> PathBuf {
    let b = BuildLayout::create(root, "ci-job", BuildId::new(id).expect("id")).expect("layout");
    b.write_started(&Started::at(start)).expect("started");
    let mut suite = Suite::new("ccm-parity").expect("suite");
    let mut names = std::collections::BTreeSet::new();
    for case in cases {
        if names.insert(case.name().to_owned()) {
            suite.add_case(case).expect("case");
        } else {
            suite.add_retry(case).expect("retry");
        }
    }
    let mut report = JunitReport::new();
    report.add_suite(suite);
    b.write_junit("parity", &report).expect("junit");
    if let Some(f) = finished {
        b.finish(&f).expect("finish");
    }
    b.dir().to_path_buf()
}

/// Our writer's usual finished.json: the result, `job-version` and `ccm-version`.
fn done(start: i64, result: JobResult) -> Finished {
    Finished::new(start + 600, result)
        .with_metadata("job-version", "v1.34.2")
        .with_metadata(CCM_VERSION_KEY, "0.1.0")
}

fn codes(report: &CheckReport) -> Vec<Code> {
    report.read.findings.iter().map(|f| f.code).collect()
}

/// Item 1. appendCell (pkg/updater/updater.go) stores `truncate(cell.Message, 140)`: a merged
/// flaky message of 157 bytes, already derived once, is cut again to 70 + "..." + 70 bytes.
#[test]
fn merged_retry_message_is_cut_again_when_stored() {
    let root = tempfile::tempdir().expect("tempdir");
    let reason = format!("{}{}", "a".repeat(70), "z".repeat(70));
    let dir = write(
        root.path(),
        "1",
        START,
        vec![
            Case::pass("LB probe").with_time(Duration::from_secs(1)),
            Case::fail("LB probe", reason, "").with_time(Duration::from_secs(1)),
        ],
        Some(done(START, JobResult::Success)),
    );
    let report = check(&dir);
    let (_, cell) = &report.read.column.rows[0];
    assert_eq!(cell.status, Status::Flaky);
    // Derived: "1/2 runs passed: " (17 bytes) + the 140-byte failure = 157 bytes; stored: cut.
    assert_eq!(
        cell.message,
        format!("1/2 runs passed: {}...{}", "a".repeat(53), "z".repeat(70))
    );
    insta::assert_snapshot!(report.render());
}

/// Item 2. metadata.Version (metadata/job.go) keeps what follows the FIRST `+`, cut to 9.
#[test]
fn commit_header_keeps_what_follows_the_first_plus() {
    let root = tempfile::tempdir().expect("tempdir");
    let finished = Finished::new(START + 600, JobResult::Success)
        .with_metadata("job-version", "v1.34.0-alpha.1+3f2a9c1e77b0+dirty")
        .with_metadata(CCM_VERSION_KEY, "0.1.0");
    let dir = write(
        root.path(),
        "1",
        START,
        vec![Case::pass("ok")],
        Some(finished),
    );
    let c = check(&dir).read.column;
    assert_eq!(c.commit, "3f2a9c1e7");
    assert_eq!(c.headers[0], ("Commit".to_owned(), "3f2a9c1e7".to_owned()));
}

/// Item 3. convertResult (pkg/updater/gcs.go) fills each configured header from finished.json
/// metadata strings, else `missing` (blank while running); the validator warns on `missing`.
#[test]
fn configured_headers_are_filled_or_read_missing() {
    let root = tempfile::tempdir().expect("tempdir");
    let with = write(
        root.path(),
        "1",
        START,
        vec![Case::pass("ok")],
        Some(done(START, JobResult::Success)),
    );
    let without = write(
        root.path(),
        "2",
        START + 60,
        vec![Case::pass("ok")],
        Some(
            Finished::new(START + 660, JobResult::Success).with_metadata("job-version", "v1.34.2"),
        ),
    );
    let running = write(root.path(), "3", START + 120, vec![Case::pass("ok")], None);
    let mut out = String::new();
    for dir in [&with, &without, &running] {
        let report = check(dir);
        let headers: Vec<String> = report
            .read
            .column
            .headers
            .iter()
            .map(|(h, v)| format!("{h}={v:?}"))
            .collect();
        let warned = codes(&report).contains(&Code::HeaderMissing);
        out.push_str(&format!(
            "{}: {} header-missing={warned}\n",
            report.read.column.build,
            headers.join(" ")
        ));
    }
    insta::assert_snapshot!(out, @r#"
    1: Commit="v1.34.2" ccm-version="0.1.0" header-missing=false
    2: Commit="v1.34.2" ccm-version="missing" header-missing=true
    3: Commit="" ccm-version="" header-missing=false
    "#);
}

/// Items 4 and 6. readColumns (pkg/updater/read.go) draws a build it cannot read as a lone
/// cell in the plain `Overall` row (ancientColumn, erroredColumn, the no-start column), no
/// test rows, at the previous readable build's start with its headers.
#[test]
fn unreadable_builds_are_lone_overall_cells_after_the_previous_readable_build() {
    let root = tempfile::tempdir().expect("tempdir");
    let job = root.path().join("ci-job");
    // 5: too old, with no readable build before it.
    write(
        root.path(),
        "5",
        NOW - 20 * 86_400,
        vec![Case::pass("ok")],
        Some(done(NOW - 20 * 86_400, JobResult::Success)),
    );
    write(
        root.path(),
        "10",
        START,
        vec![Case::pass("ok")],
        Some(done(START, JobResult::Success)),
    );
    // 11: start time 0; 12: a started.json TestGrid cannot decode.
    write(
        root.path(),
        "11",
        0,
        vec![Case::pass("ok")],
        Some(done(START, JobResult::Success)),
    );
    write(
        root.path(),
        "12",
        START,
        vec![Case::pass("ok")],
        Some(done(START, JobResult::Success)),
    );
    std::fs::write(job.join("12/started.json"), r#"{"timestamp": "soon"}"#).expect("write");
    write(
        root.path(),
        "13",
        START + 3600,
        vec![Case::pass("ok")],
        Some(done(START + 3600, JobResult::Failure)),
    );
    let grid = grid_of(&[job], &ReadOptions::at(NOW));
    let mut out = String::new();
    out.push_str(&format!("rows: {:?}\n", grid.rows));
    for (i, col) in grid.columns.iter().enumerate() {
        let cells: Vec<String> = grid
            .rows
            .iter()
            .filter_map(|row| {
                grid.cell(row, i).map(|c| {
                    format!(
                        "{row}={}{}{}",
                        c.status.name(),
                        c.icon
                            .as_deref()
                            .map(|i| format!("[{i}]"))
                            .unwrap_or_default(),
                        if c.message.is_empty() {
                            String::new()
                        } else {
                            format!(" {:?}", c.message)
                        }
                    )
                })
            })
            .collect();
        let headers: Vec<&str> = col.headers.iter().map(|(_, v)| v.as_str()).collect();
        out.push_str(&format!(
            "{} started={} headers={headers:?}: {}\n",
            col.build,
            col.started,
            cells.join(", ")
        ));
    }
    let stop = NOW - 15 * 86_400;
    let old = NOW - 20 * 86_400;
    insta::assert_snapshot!(
        out.replace(&stop.to_string(), "STOP")
            .replace(&old.to_string(), "OLD")
            .replace(&START.to_string(), "START")
    );
}

/// Items 5 and 6. readJSON (util/gcs/read.go) decodes with json.Decoder: a file cut short is
/// `decode: unexpected EOF`, a failed download (lone TOOL_FAIL cell, no duration metric); only
/// an empty file is io.EOF, "Malformed artifacts" (readResult, pkg/updater/read.go).
#[test]
fn cut_short_json_fails_the_download_empty_json_is_malformed() {
    let root = tempfile::tempdir().expect("tempdir");
    let cut = write(
        root.path(),
        "1",
        START,
        vec![Case::pass("ok")],
        Some(done(START, JobResult::Success)),
    );
    std::fs::write(cut.join("finished.json"), r#"{"timestamp": 1"#).expect("write");
    let empty = write(
        root.path(),
        "2",
        START,
        vec![Case::pass("ok")],
        Some(done(START, JobResult::Success)),
    );
    std::fs::write(empty.join("finished.json"), "").expect("write");
    let c = check(&cut).read.column;
    assert_eq!(
        (
            c.overall.status,
            c.overall.icon.as_deref(),
            c.overall.message.as_str()
        ),
        (
            Status::ToolFail,
            None,
            "Failed to download ci-job/1/: finished: decode: unexpected EOF"
        )
    );
    assert!(c.overall.metrics.is_empty() && c.rows.is_empty() && !c.readable);
    let c = check(&empty).read.column;
    assert_eq!(
        (
            c.overall.status,
            c.overall.icon.as_deref(),
            c.overall.message.as_str()
        ),
        (
            Status::Fail,
            Some("E"),
            "Malformed artifacts: finished.json"
        )
    );
}

/// Item 6. overallCell (pkg/updater/gcs.go) wording: "Build did not complete within 24 hours"
/// (icon T) and `finished.json missing "passed": <bool>` (icon E).
#[test]
fn overall_wording_is_testgrids() {
    let root = tempfile::tempdir().expect("tempdir");
    let stuck = write(
        root.path(),
        "1",
        NOW - 25 * 3600,
        vec![Case::pass("ok")],
        None,
    );
    let c = check(&stuck).read.column;
    assert_eq!(
        (c.overall.icon.as_deref(), c.overall.message.as_str()),
        (Some("T"), "Build did not complete within 24 hours")
    );
    let no_passed = write(
        root.path(),
        "2",
        START,
        vec![Case::pass("ok")],
        Some(done(START, JobResult::Success)),
    );
    std::fs::write(
        no_passed.join("finished.json"),
        format!(r#"{{"timestamp": {}, "result": "FAILURE"}}"#, START + 600),
    )
    .expect("write");
    let c = check(&no_passed).read.column;
    assert_eq!(
        (
            c.overall.status,
            c.overall.icon.as_deref(),
            c.overall.message.as_str()
        ),
        (
            Status::Fail,
            Some("E"),
            r#"finished.json missing "passed": false"#
        )
    );
    let _ = started_at(0);
}

/// Item 7. ConstructGrid (pkg/updater/updater.go) sorts every row naturally, Overall included;
/// `check` prints that order (our HTML page keeps Overall first, by choice).
#[test]
fn check_lists_rows_in_testgrids_natural_order() {
    let root = tempfile::tempdir().expect("tempdir");
    let dir = write(
        root.path(),
        "1",
        START,
        vec![Case::pass("b"), Case::pass("a")],
        Some(done(START, JobResult::Success)),
    );
    let render = check(&dir).render();
    let at = |row: &str| {
        render
            .lines()
            .position(|l| l.split_whitespace().any(|w| w == row))
            .expect(row)
    };
    assert!(at("ccm-parity.a") < at("ccm-parity.b"), "{render}");
    assert!(at("ccm-parity.b") < at("ci-job.Overall"), "{render}");
    let grid = grid_of(&[dir], &ReadOptions::at(NOW));
    assert_eq!(
        grid.rows,
        ["ci-job.Overall", "ccm-parity.a", "ccm-parity.b"]
    );
    assert_eq!(
        grid.testgrid_rows(),
        ["ccm-parity.a", "ccm-parity.b", "ci-job.Overall"]
    );
}

/// Item 8. convertResult (pkg/updater/gcs.go) reads `EmailAddresses` with MultiString: only a
/// list of strings gives recipients; a string is dropped with a logged error.
#[test]
fn email_addresses_must_be_a_list() {
    let root = tempfile::tempdir().expect("tempdir");
    let list = write(
        root.path(),
        "1",
        START,
        vec![Case::pass("ok")],
        Some(
            done(START, JobResult::Success)
                .with_metadata_list("EmailAddresses", ["oncall@example.com"]),
        ),
    );
    let string = write(
        root.path(),
        "2",
        START,
        vec![Case::pass("ok")],
        Some(done(START, JobResult::Success).with_metadata("EmailAddresses", "oncall@example.com")),
    );
    assert!(!codes(&check(&list)).contains(&Code::EmailAddressesNotList));
    let report = check(&string);
    let f = report
        .read
        .findings
        .iter()
        .find(|f| f.code == Code::EmailAddressesNotList)
        .expect("flagged");
    assert_eq!(f.severity, Severity::Warning);
}

/// Item 9. A build without finished.json is a RUNNING column in TestGrid (overallCell): not an
/// error unless the caller requires finished builds.
#[test]
fn running_build_is_not_an_error_unless_finished_is_required() {
    let root = tempfile::tempdir().expect("tempdir");
    let dir = write(root.path(), "1", START, vec![Case::pass("ok")], None);
    let report = check(&dir);
    assert!(report.is_running());
    assert_eq!(report.error_count(false), 0, "{}", report.render());
    assert_eq!(report.error_count(true), 1);
}

/// Item 10. overallCell (pkg/updater/gcs.go) reads only `passed` (or result == SUCCESS): an
/// aborted build looks exactly like a failed one; the validator says so.
#[test]
fn aborted_builds_show_exactly_like_failures() {
    let root = tempfile::tempdir().expect("tempdir");
    let failed = write(
        root.path(),
        "1",
        START,
        vec![Case::pass("ok")],
        Some(done(START, JobResult::Failure)),
    );
    let aborted = write(
        root.path(),
        "2",
        START,
        vec![Case::pass("ok")],
        Some(done(START, JobResult::Aborted)),
    );
    let failed = check(&failed);
    let aborted_dir = aborted.clone();
    let aborted = check(&aborted);
    assert_eq!(aborted.read.column.overall, failed.read.column.overall);
    assert_eq!(aborted.read.column.rows, failed.read.column.rows);
    assert!(codes(&aborted).contains(&Code::AbortedShownAsFailure));
    // The HTML report says so too, since a reader of our page would otherwise expect a
    // separate aborted colour.
    let grid = grid_of(&[aborted_dir], &ReadOptions::at(NOW));
    let tab = testgrid::grid::tab_status::summarize(
        &grid,
        &testgrid::grid::tab_status::TabSettings::default(),
        NOW,
    );
    let page = testgrid::html::render(&grid, &tab, "aborted");
    assert!(
        page.contains(
            "aborted build (finished.json <code>result: ABORTED</code>) is shown as a failure"
        ),
        "{page}"
    );
}
