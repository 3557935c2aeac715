//! Runs the real `harness` binary for `report` and `testgrid check|config|publish` on build
//! directories written to a temporary tree.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::run::{harness, text};
use crate::scratch::Scratch;

const NOW: i64 = 1_767_312_000;
const START: i64 = NOW - 3600;

const JUNIT: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuites><testsuite name="ccm-parity">
<testcase name="provider-id-stable" time="2.5"><properties><property name="arm-calls" value="4"/></properties></testcase>
<testcase name="no-lb-recreate" time="3"><failure message="load balancer kubernetes was deleted and recreated">journal: DELETE then PUT</failure></testcase>
<testcase name="ipv6-frontend"><skipped message="skipped - cluster is single-stack"/></testcase>
</testsuite></testsuites>"#;

/// `<tree>/ci-azure-parity/<id>` with a complete, valid build.
fn good_build(tree: &Scratch, id: &str, start: i64, passed: bool) -> PathBuf {
    let dir = format!("ci-azure-parity/{id}");
    tree.write(
        &format!("{dir}/started.json"),
        &format!(r#"{{"timestamp": {start}}}"#),
    );
    tree.write(&format!("{dir}/artifacts/junit_parity.xml"), JUNIT);
    tree.write(&format!("{dir}/build-log.txt"), "log");
    tree.write(
        &format!("{dir}/finished.json"),
        &format!(
            r#"{{"timestamp": {}, "passed": {passed}, "result": "{}", "metadata": {{"job-version": "v1.34.2"}}}}"#,
            start + 600,
            if passed { "SUCCESS" } else { "FAILURE" }
        ),
    );
    tree.write("ci-azure-parity/latest-build.txt", id);
    tree.0.join(dir)
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("utf-8 temp path")
}

/// `harness testgrid check <build>` at the fixed test time.
fn check(build: &Path) -> Output {
    harness(&[
        "testgrid",
        "check",
        path_str(build),
        "--now",
        &NOW.to_string(),
    ])
}

#[test]
fn check_accepts_a_valid_build() {
    let tree = Scratch::new("testgrid");
    let build = good_build(&tree, "1767308400", START, false);
    let out = check(&build);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stdout.contains("0 error(s)"), "{stdout}");
    assert!(stdout.contains("[F] ccm-parity.no-lb-recreate"), "{stdout}");
    assert!(stdout.contains("[S] ccm-parity.ipv6-frontend"), "{stdout}");
    assert!(stdout.contains("arm-calls=4"), "{stdout}");
}

#[test]
fn check_fails_when_testgrid_would_misread() {
    let tree = Scratch::new("testgrid");
    let build = good_build(&tree, "1767308400", START, true);
    std::fs::write(
        build.join("finished.json"),
        format!(r#"{{"timestamp": {}, "result": "SUCCESS"}}"#, START + 60),
    )
    .expect("rewrite finished");
    tree.write(
        "ci-azure-parity/1767308400/artifacts/junit_extra.xml",
        r#"<testsuite name="x"><testcase name="hidden"><skipped/></testcase></testsuite>"#,
    );
    let out = check(&build);
    let (stdout, stderr) = text(&out);
    assert!(!out.status.success(), "check should fail:\n{stdout}");
    assert!(
        stdout.contains("passed-missing") && stdout.contains("skip-dropped"),
        "{stdout}"
    );
    assert!(
        stderr.contains("TestGrid would reject or misread 1 thing(s)"),
        "{stderr}"
    );
}

#[test]
fn report_writes_html_and_prints_summary() {
    let tree = Scratch::new("testgrid");
    good_build(&tree, "1767300000", START - 8000, false);
    good_build(&tree, "1767308400", START, false);
    let out_file = tree.0.join("out/report.html");
    let out = harness(&[
        "report",
        path_str(&tree.0.join("ci-azure-parity")),
        "--out",
        path_str(&out_file),
        "--now",
        &NOW.to_string(),
    ]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stdout.contains("2 build(s), 4 row(s)"), "{stdout}");
    assert!(
        stdout.contains("newest ci-azure-parity build 1767308400"),
        "{stdout}"
    );
    assert!(
        stdout.contains("fail   ccm-parity.no-lb-recreate -- load balancer kubernetes was deleted"),
        "{stdout}"
    );
    let html = std::fs::read_to_string(&out_file).expect("report written");
    assert!(html.contains("<table id=\"grid\">") && html.contains("ci-azure-parity.Overall"));
    assert_eq!(
        html.matches("class=\"c fail\"").count(),
        4,
        "2 builds x (Overall + no-lb-recreate)"
    );
}

#[test]
fn report_and_check_show_the_tab_status_and_alerts() {
    let tree = Scratch::new("testgrid");
    good_build(&tree, "1767300000", START - 8000, true);
    let newest = good_build(&tree, "1767308400", START, false);
    let out_file = tree.0.join("out/report.html");
    let job = tree.0.join("ci-azure-parity");
    let out = harness(&[
        "report",
        path_str(&job),
        "--out",
        path_str(&out_file),
        "--now",
        &NOW.to_string(),
    ]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stdout.contains("tab FAIL -- 2 row alert(s)"), "{stdout}");
    assert!(
        stdout.contains("ci-azure-parity.Overall: 1 failure(s), failing since build 1767308400"),
        "{stdout}"
    );
    let html = std::fs::read_to_string(&out_file).expect("report written");
    assert!(html.contains("<b class=\"tab-fail\">FAIL</b>"), "{html}");
    // Alerting off: the failing test makes the tab FLAKY.
    let check_with = |extra: &[&str]| {
        let now = NOW.to_string();
        let mut args = vec![
            "testgrid",
            "check",
            path_str(&newest),
            "--now",
            now.as_str(),
        ];
        args.extend_from_slice(extra);
        let out = harness(&args);
        let (stdout, stderr) = text(&out);
        assert!(out.status.success(), "stdout:\n{stdout}\nstderr:\n{stderr}");
        stdout
    };
    let stdout = check_with(&["--num-failures-to-alert", "0"]);
    assert!(
        stdout.contains("== dashboard tab over these 1 build(s)\ntab FLAKY"),
        "{stdout}"
    );
    // On request the validator draws the Pod row, waiting for podinfo.json after the finish.
    let stdout = check_with(&["--prowjob-analysis"]);
    assert!(
        stdout.contains("running   [!] ci-azure-parity.Pod"),
        "{stdout}"
    );
}

/// By default the validator drops builds older than the days_of_results our configuration
/// writes (15), as TestGrid would.
#[test]
fn check_drops_builds_older_than_the_configured_days_of_results() {
    let tree = Scratch::new("testgrid");
    let build = good_build(&tree, "1765584000", NOW - 20 * 86_400, true);
    let out = check(&build);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(
        // TestGrid draws a column it cannot read as one cell in a row named plain `Overall`
        // (pkg/updater/read.go, ancientColumn).
        stdout.contains("unknown   Overall  -- build too old"),
        "{stdout}"
    );
    assert!(stdout.contains("build-too-old"), "{stdout}");
    let out = harness(&[
        "testgrid",
        "check",
        path_str(&build),
        "--now",
        &NOW.to_string(),
        "--days-of-results",
        "30",
    ]);
    let (stdout, _) = text(&out);
    assert!(out.status.success(), "{stdout}");
    assert!(!stdout.contains("build-too-old"), "{stdout}");
}

#[test]
fn report_names_a_bad_path() {
    let tree = Scratch::new("testgrid");
    let missing = tree.0.join("nope");
    let out = harness(&[
        "report",
        path_str(&missing),
        "--out",
        path_str(&tree.0.join("r.html")),
    ]);
    let (_, stderr) = text(&out);
    assert!(!out.status.success());
    assert!(stderr.contains(path_str(&missing)), "{stderr}");
}

#[test]
fn config_prints_yaml() {
    let out = harness(&[
        "testgrid",
        "config",
        "--job",
        "ci-azure-parity",
        "--bucket-prefix",
        "k8s-conformance-azure/logs",
        "--kubernetes-minor",
        "1.34",
        "--variant",
        "ccm parity",
    ]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stdout.contains("gcs_prefix: k8s-conformance-azure/logs/ci-azure-parity"),
        "{stdout}"
    );
    assert!(
        stdout.contains("disable_prowjob_analysis: true")
            && stdout.contains("name: conformance-azure"),
        "{stdout}"
    );
    assert!(stdout.contains("Azure, v1.34 ccm parity"), "{stdout}");
    let bad = harness(&[
        "testgrid",
        "config",
        "--job",
        "j",
        "--bucket-prefix",
        "gs://b",
        "--kubernetes-minor",
        "1.34",
    ]);
    assert!(!bad.status.success());
    assert!(text(&bad).1.contains("bucket-prefix"));
}

#[test]
fn publish_copies_and_prints_upload_commands() {
    let tree = Scratch::new("testgrid");
    let build = good_build(&tree, "1767308400", START, true);
    let bucket = tree.0.join("bucket");
    let out = harness(&[
        "testgrid",
        "publish",
        path_str(&build),
        "--to",
        path_str(&bucket),
    ]);
    assert!(out.status.success(), "{:?}", text(&out));
    assert!(
        bucket
            .join("ci-azure-parity/1767308400/artifacts/junit_parity.xml")
            .is_file()
    );
    assert_eq!(
        std::fs::read_to_string(bucket.join("ci-azure-parity/latest-build.txt")).expect("latest"),
        "1767308400"
    );
    let out = harness(&[
        "testgrid",
        "publish",
        path_str(&build),
        "--print-gsutil",
        "gs://k8s-conformance-azure/logs",
    ]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    assert!(
        lines[0].starts_with("gsutil -m rsync -r -x '^finished\\.json$'"),
        "{stdout}"
    );
    assert!(
        lines[2].ends_with("gs://k8s-conformance-azure/logs/ci-azure-parity/latest-build.txt"),
        "{stdout}"
    );
}
