//! What our writer produces, read back through TestGrid's rules: no errors, rows as intended.

use std::time::Duration;

use crate::fixture::{NOW, START, check};
use testgrid::build_id::BuildId;
use testgrid::finished::{CCM_VERSION_KEY, Finished, JobResult};
use testgrid::junit::{Case, JunitReport, Metric, SkipReason, Suite};
use testgrid::layout::BuildLayout;
use testgrid::started::Started;

fn report() -> JunitReport {
    let mut suite = Suite::new("ccm-parity").expect("suite");
    suite
        .add_case(
            Case::pass("[sig-cloud-provider] LB create is idempotent")
                .with_time(Duration::from_millis(12_500))
                .with_metric(Metric::new("arm-calls", 7.0).expect("metric")),
        )
        .expect("add")
        .add_case(
            Case::fail(
                "[sig-cloud-provider] LB health probe ports match",
                "probe port 31000 != 31001",
                "diff:\n-31000\n+31001",
            )
            .with_time(Duration::from_secs(3))
            .with_system_out(format!(
                "log line with escape \u{1b}[31mred\u{1b}[0m and bell \u{7}\n{}",
                "x".repeat(300_000)
            )),
        )
        .expect("add")
        .add_case(Case::skip(
            "[sig-cloud-provider] IPv6 frontend",
            SkipReason::new("cluster is single-stack").expect("reason"),
        ))
        .expect("add")
        .add_case(
            Case::pass("[sig-cloud-provider] node addresses").with_time(Duration::from_secs(1)),
        )
        .expect("add")
        .add_retry(
            Case::fail("[sig-cloud-provider] node addresses", "transient", "")
                .with_time(Duration::from_secs(2)),
        )
        .expect("retry");
    let mut r = JunitReport::new();
    r.add_suite(suite);
    r
}

#[test]
fn written_build_reads_back_without_errors() {
    let root = tempfile::tempdir().expect("tempdir");
    let b = BuildLayout::create(
        root.path(),
        "ci-job",
        BuildId::new("1767225600").expect("id"),
    )
    .expect("layout");
    b.write_started(&Started::at(START)).expect("started");
    let junit = b.write_junit("parity", &report()).expect("junit");
    b.write_build_log("console log").expect("log");
    b.finish(
        &Finished::new(START + 61, JobResult::Failure)
            .with_metadata("job-version", "v1.34.2")
            .with_metadata(CCM_VERSION_KEY, "0.1.0")
            .with_metadata_list("EmailAddresses", ["oncall@example.com"]),
    )
    .expect("finish");

    let xml = std::fs::read_to_string(&junit).expect("read junit");
    assert!(
        xml.contains("[truncated: "),
        "long output must say it was truncated"
    );
    assert!(!xml.contains('\u{1b}') && !xml.contains('\u{7}'));
    let report = check(b.dir());
    let errors: Vec<_> = report
        .read
        .findings
        .iter()
        .filter(|f| f.severity == testgrid::finding::Severity::Error)
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    let headers = &report.read.column.headers;
    assert_eq!(
        headers,
        &[
            ("Commit".to_owned(), "v1.34.2".to_owned()),
            ("ccm-version".to_owned(), "0.1.0".to_owned())
        ]
    );
    insta::assert_snapshot!(report.render());
    let _ = NOW;
}

#[test]
fn junit_xml_golden() {
    let mut suite = Suite::new("ccm-parity").expect("suite");
    suite
        .add_case(
            Case::pass("a & <b>")
                .with_time(Duration::from_millis(1_500))
                .with_metric(Metric::new("arm-calls", 3.0).expect("m")),
        )
        .expect("add")
        .add_case(Case::fail("c", "expected 1\ngot 2", "details\u{0}here"))
        .expect("add")
        .add_case(Case::skip("d", SkipReason::new("needs IPv6").expect("r")))
        .expect("add");
    let mut r = JunitReport::new();
    r.add_suite(suite);
    insta::assert_snapshot!(r.to_xml().expect("xml"));
}
