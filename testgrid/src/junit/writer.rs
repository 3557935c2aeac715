//! Serializes our JUnit types through `quick-junit` in the shape TestGrid reads.

use std::path::Path;
use std::time::Duration;

use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};

use super::model::{Case, JunitError, Outcome, Suite};
use super::text::{MAX_BODY_BYTES, MAX_OUTPUT_BYTES, one_line_message, truncate_middle, xml_safe};

/// A `<testsuites>` document: one `artifacts/junit_<suffix>.xml` file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct JunitReport {
    suites: Vec<Suite>,
}

impl JunitReport {
    /// An empty report.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a suite.
    pub fn add_suite(&mut self, suite: Suite) -> &mut Self {
        self.suites.push(suite);
        self
    }

    /// The suites.
    pub fn suites(&self) -> &[Suite] {
        &self.suites
    }

    /// The XML text.
    pub fn to_xml(&self) -> Result<String, JunitError> {
        let mut report = Report::new("testgrid");
        let mut total = Duration::ZERO;
        for suite in &self.suites {
            let mut ts = TestSuite::new(xml_safe(&suite.name));
            let mut suite_time = Duration::ZERO;
            for case in &suite.cases {
                suite_time += case.time;
                ts.add_test_case(to_test_case(case));
            }
            ts.set_time(suite_time);
            total += suite_time;
            report.add_test_suite(ts);
        }
        report.set_time(total);
        report
            .to_string()
            .map_err(|e| JunitError::Serialize(e.to_string()))
    }

    /// Writes the XML to `path` (parent directories are created).
    pub fn write(&self, path: &Path) -> Result<(), JunitError> {
        let xml = self.to_xml()?;
        let io = |source| JunitError::Write {
            path: path.display().to_string(),
            source,
        };
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io)?;
        }
        std::fs::write(path, xml).map_err(io)
    }
}

fn to_test_case(case: &Case) -> TestCase {
    let status = match &case.outcome {
        Outcome::Pass => TestCaseStatus::success(),
        Outcome::Fail(failure) => {
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
            s.set_message(one_line_message(&failure.message));
            if !failure.body.is_empty() {
                s.set_description(truncate_middle(&xml_safe(&failure.body), MAX_BODY_BYTES));
            }
            s
        }
        Outcome::Skip(reason) => {
            let mut s = TestCaseStatus::skipped();
            s.set_message(one_line_message(&reason.message()));
            s
        }
    };
    let mut tc = TestCase::new(xml_safe(&case.name), status);
    tc.set_time(case.time);
    for metric in &case.metrics {
        tc.add_property(Property::new(
            xml_safe(metric.name()),
            format_metric(metric.value()),
        ));
    }
    if let Some(out) = &case.system_out {
        tc.set_system_out(truncate_middle(&xml_safe(out), MAX_OUTPUT_BYTES));
    }
    if let Some(err) = &case.system_err {
        tc.set_system_err(truncate_middle(&xml_safe(err), MAX_OUTPUT_BYTES));
    }
    tc
}

/// Shortest text that Go's `strconv.ParseFloat` reads back to the same value.
fn format_metric(value: f64) -> String {
    format!("{value}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::junit::{Metric, SkipReason};

    #[test]
    fn writes_the_testgrid_dialect() {
        let mut suite = Suite::new("ccm-parity").unwrap();
        suite
            .add_case(
                Case::pass("LB create is idempotent")
                    .with_time(Duration::from_millis(12_500))
                    .with_metric(Metric::new("arm-calls", 7.0).unwrap()),
            )
            .unwrap()
            .add_case(Case::fail(
                "probe ports match",
                "probe port 31000 != 31001",
                "diff:\n-31000\n+31001",
            ))
            .unwrap()
            .add_case(Case::skip(
                "IPv6 frontend",
                SkipReason::new("cluster is single-stack").unwrap(),
            ))
            .unwrap();
        let mut report = JunitReport::new();
        report.add_suite(suite);
        let xml = report.to_xml().unwrap();
        assert!(
            xml.contains(r#"<testcase name="LB create is idempotent" time="12.500">"#),
            "{xml}"
        );
        assert!(
            xml.contains(r#"<property name="arm-calls" value="7"/>"#),
            "{xml}"
        );
        assert!(
            xml.contains(r#"<failure message="probe port 31000 != 31001">"#),
            "{xml}"
        );
        assert!(
            xml.contains(r#"<skipped message="skipped - cluster is single-stack"/>"#),
            "{xml}"
        );
    }

    #[test]
    fn control_characters_do_not_break_the_xml() {
        let mut suite = Suite::new("s").unwrap();
        suite
            .add_case(Case::pass("c").with_system_out("bell\u{7} nul\u{0} ok"))
            .unwrap();
        let mut report = JunitReport::new();
        report.add_suite(suite);
        let xml = report.to_xml().unwrap();
        assert!(xml.contains("bell\\x07 nul\\x00 ok"), "{xml}");
        let parsed = crate::junit::reader::parse(xml.as_bytes()).unwrap();
        assert_eq!(parsed.cases[0].system_out, "bell\\x07 nul\\x00 ok");
    }
}
