//! `harness::report`: the TestGrid build a run writes (read back through the `testgrid` crate's
//! own reader, as `harness testgrid check` does, and through the real binary), the HTML page, the
//! summary table and the plain progress lines.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use harness::outcome::{CheckResult, PhaseTiming, ScenarioOutcome, Verdict};
use harness::report::{Progress, RunMeta, render_html, summary_table, write_results};
use harness::scenario::{CheckName, Expect, Procedure};
use testgrid::check::check_build;
use testgrid::finding::Severity;
use testgrid::grid::{ReadOptions, Status};

use crate::run::{harness, text};
use crate::scratch::Scratch;

/// 2026-01-01 00:00 UTC.
const START_MS: i64 = 1_767_225_600_000;
/// An hour later: the "now" the TestGrid reader is run at.
const NOW: i64 = 1_767_229_200;

fn check(name: CheckName, verdict: Verdict, reason: &str) -> CheckResult {
    CheckResult::new(name, verdict, reason)
}

fn outcome(name: &str, expect: Expect, checks: Vec<CheckResult>, root: &Path) -> ScenarioOutcome {
    ScenarioOutcome {
        name: name.into(),
        description: format!("{name} description"),
        kubernetes_version: "1.29".into(),
        procedure: Procedure::Cold,
        expect,
        started_ms: START_MS + 1_000,
        duration_ms: 42_500,
        phases: vec![
            PhaseTiming {
                phase: "provision".into(),
                started_ms: START_MS + 1_000,
                duration_ms: 2_100,
            },
            PhaseTiming {
                phase: "switch".into(),
                started_ms: START_MS + 3_100,
                duration_ms: 15_000,
            },
        ],
        checks,
        failure: None,
        artifacts: root.join(name),
        expected_for_build: None,
        may_fail: Vec::new(),
        figures: None,
    }
}

/// One of each: passing, failing, negative met, negative not met, broken off, skipped checks.
fn mixed(root: &Path) -> Vec<ScenarioOutcome> {
    let mut failing_ingress = check(
        CheckName::IngressIpStable,
        Verdict::Fail,
        "service default/web: ingress 20.1.2.3 became 20.1.2.9 after the switch",
    );
    failing_ingress.details = vec![
        "default/web: 20.1.2.3 -> 20.1.2.9".into(),
        "default/api: 20.1.2.4 -> 20.1.2.8".into(),
    ];
    let mut budget = check(CheckName::TimeToIngress, Verdict::Pass, "p99 within budget");
    budget.measured = Some("p99 4.2s".into());
    budget.budget = Some("60s".into());
    let mut broken = outcome(
        "05-broken-off",
        Expect::Pass,
        vec![check(
            CheckName::LabelsEqual,
            Verdict::Error,
            "no baseline snapshot",
        )],
        root,
    );
    broken.failure = Some("azure-fakes did not print ready within 30s".into());
    vec![
        outcome(
            "01-passing",
            Expect::Pass,
            vec![
                check(
                    CheckName::ProviderIdStable,
                    Verdict::Pass,
                    "5 nodes kept their providerID",
                ),
                budget,
            ],
            root,
        ),
        outcome(
            "02-failing",
            Expect::Pass,
            vec![
                failing_ingress.clone(),
                check(CheckName::NoOrphans, Verdict::Error, "no final snapshot"),
            ],
            root,
        ),
        outcome(
            "03-negative-met",
            Expect::Fail(CheckName::IngressIpStable),
            vec![
                failing_ingress,
                check(CheckName::PipIdStable, Verdict::Fail, "pip recreated"),
                check(CheckName::LabelsEqual, Verdict::Pass, "labels equal"),
            ],
            root,
        ),
        outcome(
            "04-negative-not-met",
            Expect::Fail(CheckName::PipIdStable),
            vec![check(
                CheckName::PipIdStable,
                Verdict::Pass,
                "pip ids equal",
            )],
            root,
        ),
        broken,
        outcome(
            "06-skipped",
            Expect::Pass,
            vec![check(
                CheckName::RoutesStable,
                Verdict::Skipped,
                "Azure CNI: no routes",
            )],
            root,
        ),
    ]
}

fn meta() -> RunMeta {
    let mut meta = RunMeta::new(START_MS);
    meta.harness_version = "0.0.0-test".into();
    meta.commit = Some("0123456789abcdef".into());
    meta
}

fn read_json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).expect("read json");
    serde_json::from_str(&text).expect("json")
}

/// The rows TestGrid would draw for the build, with their status and cell message.
fn rows(dir: &Path) -> Vec<(String, Status, String)> {
    let report = check_build(dir, &ReadOptions::at(NOW)).expect("readable build");
    let errors: Vec<String> = report
        .read
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .map(|f| f.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:#?}\n{}", report.render());
    report
        .read
        .column
        .rows
        .iter()
        .map(|(name, cell)| (name.clone(), cell.status, cell.message.clone()))
        .collect()
}

fn status_of(rows: &[(String, Status, String)], row: &str) -> (Status, String) {
    rows.iter()
        .find(|(name, ..)| name == row)
        .map(|(_, s, m)| (*s, m.clone()))
        .unwrap_or_else(|| panic!("no row {row:?} in {rows:#?}"))
}

#[test]
fn mixed_run_is_a_valid_failing_testgrid_build() {
    let tree = Scratch::new("report");
    let dir = tree.0.join("1767225600");
    let outcomes = mixed(&dir);
    let written = write_results(&dir, &meta(), &outcomes, false).expect("written");
    assert!(!written.passed);
    assert_eq!(written.junit, [dir.join("artifacts/junit_01.xml")]);
    assert_eq!(written.html, Some(dir.join("artifacts/report.html")));

    let started = read_json(&dir.join("started.json"));
    assert_eq!(started["timestamp"], 1_767_225_600);
    assert_eq!(started["repo-commit"], "0123456789abcdef");
    assert_eq!(started["metadata"]["job"], "ci-azure-ccm-migration-parity");
    assert_eq!(started["metadata"]["provider"], "embedded");
    assert_eq!(started["metadata"]["harness-version"], "0.0.0-test");
    assert_eq!(started["metadata"]["kubernetes-versions"], "1.29");
    assert_eq!(started["metadata"]["scenarios"], "6");

    let finished = read_json(&dir.join("finished.json"));
    assert_eq!(finished["passed"], false);
    assert_eq!(finished["result"], "FAILURE");
    // The last scenario ended 43.5 s after the run started.
    assert_eq!(finished["timestamp"], 1_767_225_643);
    assert_eq!(finished["metadata"]["scenarios-met"], "3");
    assert_eq!(finished["metadata"]["scenarios-not-met"], "3");
    assert_eq!(finished["metadata"]["checks-passed"], "4");
    assert_eq!(finished["metadata"]["checks-failed"], "3");
    assert_eq!(finished["metadata"]["checks-errored"], "2");
    assert_eq!(finished["metadata"]["checks-skipped"], "1");
    assert_eq!(finished["metadata"]["revision"], "0123456789abcdef");
    // The CCM version column header of our TestGrid groups.
    assert_eq!(
        finished["metadata"]["ccm-version"],
        env!("CARGO_PKG_VERSION")
    );

    let rows = rows(&dir);
    let row = |scenario: &str, label: &str| {
        status_of(
            &rows,
            &format!("ccm-migration-parity.[scenario {scenario}] {label}"),
        )
    };
    assert_eq!(row("01-passing", "run").0, Status::Pass);
    assert_eq!(row("01-passing", "provider-id-stable").0, Status::Pass);
    assert_eq!(row("01-passing", "time-to-ingress").0, Status::Pass);
    let (status, message) = row("02-failing", "ingress-ip-stable");
    assert_eq!(status, Status::Fail);
    assert!(
        message.starts_with("service default/web: ingress 20.1.2.3 became 20.1.2.9"),
        "{message}"
    );
    let (status, message) = row("02-failing", "no-orphans");
    assert_eq!(status, Status::Fail);
    assert!(message.starts_with("error: no final snapshot"), "{message}");
    // A negative that failed as it must: green, and its collateral failure not red.
    assert_eq!(
        row("03-negative-met", "ingress-ip-stable fails as expected").0,
        Status::Pass
    );
    let (status, message) = row("03-negative-met", "pip-id-stable");
    assert_eq!(status, Status::PassWithSkips);
    assert!(message.contains("not judged"), "{message}");
    assert_eq!(row("03-negative-met", "labels-equal").0, Status::Pass);
    // A negative whose check passed: red, saying so.
    let (status, message) = row("04-negative-not-met", "pip-id-stable fails as expected");
    assert_eq!(status, Status::Fail);
    assert!(
        message.starts_with("expected pip-id-stable to fail, it passed"),
        "{message}"
    );
    // Broken off: one red run row, no check rows.
    let (status, message) = row("05-broken-off", "run");
    assert_eq!(status, Status::Fail);
    assert!(
        message.starts_with("run broke off: azure-fakes did not print ready"),
        "{message}"
    );
    assert!(
        !rows
            .iter()
            .any(|(n, ..)| n.contains("05-broken-off] labels-equal")),
        "{rows:#?}"
    );
    let (status, message) = row("06-skipped", "routes-stable");
    assert_eq!(status, Status::PassWithSkips);
    assert!(message.contains("Azure CNI: no routes"), "{message}");
    // Six run rows + 2 + 2 + 3 + 1 + 1 check rows.
    assert_eq!(rows.len(), 15, "{rows:#?}");
    let overall = check_build(&dir, &ReadOptions::at(NOW))
        .unwrap()
        .read
        .column
        .overall;
    assert_eq!(overall.status, Status::Fail);
}

#[test]
fn all_met_is_success_and_the_binary_accepts_it() {
    let tree = Scratch::new("report");
    let dir = tree.0.join("1767225600");
    // Scenario artifacts already in the directory are kept.
    let kept = tree.write("1767225600/01-passing/kcm.log", "log");
    let outcomes: Vec<ScenarioOutcome> = mixed(&dir)
        .into_iter()
        .filter(|o| o.met_expectation())
        .collect();
    assert_eq!(outcomes.len(), 3);
    let mut meta = meta();
    meta.finished_ms = Some(START_MS + 120_000);
    let written = write_results(&dir, &meta, &outcomes, false).expect("written");
    assert!(written.passed);
    assert!(kept.is_file());
    let finished = read_json(&dir.join("finished.json"));
    assert_eq!(finished["passed"], true);
    assert_eq!(finished["result"], "SUCCESS");
    assert_eq!(finished["timestamp"], 1_767_225_720);
    assert!(rows(&dir).iter().all(|(_, s, _)| s.is_passing()));
    assert!(!tree.0.join("latest-build.txt").exists());

    let out = harness(&[
        "testgrid",
        "check",
        dir.to_str().expect("utf-8 path"),
        "--now",
        &NOW.to_string(),
    ]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("0 error(s)"), "{stdout}");
    assert!(
        stdout.contains(
            "ccm-migration-parity.[scenario 03-negative-met] ingress-ip-stable fails as expected"
        ),
        "{stdout}"
    );
}

#[test]
fn junit_only_writes_only_junit() {
    let tree = Scratch::new("report");
    let dir = tree.0.join("results");
    let written = write_results(&dir, &meta(), &mixed(&dir), true).expect("written");
    assert_eq!(written.junit, [dir.join("artifacts/junit_01.xml")]);
    assert_eq!(
        (written.started, written.finished, written.html),
        (None, None, None)
    );
    let mut files: Vec<PathBuf> = Vec::new();
    walk(&dir, &mut files);
    assert_eq!(files, [dir.join("artifacts/junit_01.xml")]);
    let xml = std::fs::read_to_string(dir.join("artifacts/junit_01.xml")).unwrap();
    assert_eq!(xml.matches("<testsuite ").count(), 6, "{xml}");
}

fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            walk(&path, files);
        } else {
            files.push(path);
        }
    }
}

#[test]
fn html_escapes_what_checks_report() {
    let root = Path::new("/runs/1767225600");
    let mut outcomes = mixed(root);
    outcomes[1].checks[0].reason = "<script>alert('x')</script> & \"more\"".into();
    outcomes[1].checks[0].details = vec!["<img src=x onerror=alert(1)>".into()];
    let page = render_html(&meta(), &outcomes, &root.join("artifacts/report.html"));
    assert!(!page.contains("<script>"), "{page}");
    assert!(!page.contains("<img"), "{page}");
    assert!(
        page.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;more&quot;")
    );
    assert!(page.contains("&lt;img src=x onerror=alert(1)&gt;"));
    // Self-contained: nothing loaded from elsewhere.
    for external in ["<link", "<script", "src=\"", "http://", "https://"] {
        assert!(!page.contains(external), "{external} in page");
    }
}

#[test]
fn html_has_one_row_per_check() {
    let root = Path::new("/runs/1767225600");
    let outcomes = mixed(root);
    let page = render_html(&meta(), &outcomes, &root.join("artifacts/report.html"));
    let check_rows = page
        .lines()
        .filter(|l| {
            l.starts_with("<tr class=\"good\"")
                || l.starts_with("<tr class=\"bad\"")
                || l.starts_with("<tr class=\"neutral\"")
        })
        .count();
    // Every check of every scenario, plus the broken-off scenario's run row.
    let checks: usize = outcomes.iter().map(|o| o.checks.len()).sum();
    assert_eq!(check_rows, checks + 1);
    assert!(
        page.contains("<a href=\"../01-passing/\">artifacts</a>"),
        "{page}"
    );
}

#[test]
fn html_page_snapshot() {
    let root = Path::new("/runs/1767225600");
    let all = mixed(root);
    // Passing with figures, a negative that failed as expected, one broken off.
    let outcomes = [all[0].clone(), all[2].clone(), all[4].clone()];
    let page = render_html(&meta(), &outcomes, &root.join("artifacts/report.html"));
    insta::assert_snapshot!(page);
}

#[test]
fn summary_table_snapshot() {
    let outcomes = mixed(Path::new("/runs/1"));
    insta::assert_snapshot!(summary_table(&outcomes));
}

/// A writer tests can read back.
#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl Write for Buffer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn plain_progress_lines() {
    let buffer = Buffer::default();
    let outcomes = mixed(Path::new("/runs/1"));
    let progress = Progress::plain_into(12, buffer.clone());
    progress.started("01-passing");
    progress.phase("01-passing", "switch");
    progress.finished(&outcomes[0]);
    progress.started("02-failing");
    progress.finished(&outcomes[1]);
    progress.finish();
    let text = String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap();
    let lines: Vec<&str> = text
        .lines()
        .map(|l| {
            let (clock, rest) = l.split_once(' ').expect("timestamped");
            assert!(
                clock.len() == 9 && clock.ends_with('Z') && clock.as_bytes()[2] == b':',
                "{l}"
            );
            rest
        })
        .collect();
    assert_eq!(
        lines,
        [
            "[ 0/12] 01-passing: started",
            "[ 0/12] 01-passing: phase switch",
            "[ 1/12] 01-passing: met expectation (42.5s)",
            "[ 1/12] 02-failing: started",
            "[ 2/12] 02-failing: DID NOT MEET expectation (42.5s): ingress-ip-stable: service default/web: ingress 20.1.2.3 became 20.1.2.9 after the switch; no-orphans: no final snapshot",
            "[ 2/12] finished: 1 of 2 scenario(s) met their expectation",
        ]
    );
}
