//! Our JUnit types: what a suite may say to TestGrid, with the dialect's traps made unrepresentable
//! (no bare skips, no accidental duplicate rows, only numeric properties).

use std::time::Duration;

/// Errors building a JUnit report.
#[derive(Debug, thiserror::Error)]
pub enum JunitError {
    /// Suite names prefix every row, so they must say something.
    #[error(
        "testsuite name is empty: it prefixes every TestGrid row (`<suite>.<case>`), give it a name"
    )]
    EmptySuiteName,
    /// A test case without a name cannot become a row.
    #[error("testcase name is empty in suite {suite:?}")]
    EmptyCaseName {
        /// The suite.
        suite: String,
    },
    /// TestGrid hides a skip whose reason is empty or exactly "skipped".
    #[error(
        "skip reason {reason:?} would make TestGrid drop the row: give a real reason (not empty, not \"skipped\")"
    )]
    BareSkip {
        /// The rejected reason.
        reason: String,
    },
    /// Same row name twice merges into one cell (FLAKY or worst status).
    #[error(
        "duplicate testcase {name:?} in suite {suite:?}: TestGrid merges equal row names; use Suite::add_retry for retries"
    )]
    DuplicateCase {
        /// The suite.
        suite: String,
        /// The case name.
        name: String,
    },
    /// `add_retry` must name an earlier attempt.
    #[error("retry of {name:?} in suite {suite:?} has no earlier attempt")]
    RetryWithoutAttempt {
        /// The suite.
        suite: String,
        /// The case name.
        name: String,
    },
    /// Metric values must be finite numbers.
    #[error("metric {name:?} = {value}: metrics must be finite numbers with a non-empty name")]
    InvalidMetric {
        /// The metric.
        name: String,
        /// The rejected value.
        value: f64,
    },
    /// TestGrid computes this one from `time`.
    #[error("metric name {0:?} is reserved: TestGrid derives it from the testcase `time`")]
    ReservedMetric(String),
    /// quick-junit could not serialize.
    #[error("cannot serialize JUnit XML: {0}")]
    Serialize(String),
    /// Writing the file failed.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The file.
        path: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}

/// Why a test was skipped. Cannot be empty or just "skipped", so a skip always shows as an
/// S cell instead of silently vanishing from the grid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkipReason(String);

impl SkipReason {
    /// Validates a skip reason.
    pub fn new(reason: impl Into<String>) -> Result<Self, JunitError> {
        let reason = reason.into();
        let trimmed = reason.trim();
        let bare = trimmed.is_empty()
            || trimmed.eq_ignore_ascii_case("skipped")
            || trimmed.eq_ignore_ascii_case("skipped -");
        if bare {
            return Err(JunitError::BareSkip { reason });
        }
        Ok(Self(trimmed.to_owned()))
    }

    /// The reason as given.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The `message` attribute we write, in Ginkgo's `skipped - <reason>` form.
    pub fn message(&self) -> String {
        format!("skipped - {}", self.0)
    }
}

/// A failed check: a short first line (TestGrid shows ~70 characters of it) and a full body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// One-line summary, e.g. `probe port 31000 != 31001`.
    pub message: String,
    /// Details: diffs, journals, logs.
    pub body: String,
}

impl Failure {
    /// A failure; an empty message falls back to the body's first line so the cell gets icon F.
    pub fn new(message: impl Into<String>, body: impl Into<String>) -> Self {
        let body = body.into();
        let mut message = message.into();
        if message.trim().is_empty() {
            message = body
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("failed")
                .to_owned();
        }
        Self { message, body }
    }
}

/// How a test case ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The check held.
    Pass,
    /// The check did not hold.
    Fail(Failure),
    /// The check did not apply, with a reason.
    Skip(SkipReason),
}

/// A numeric testcase property; TestGrid turns it into a graphable metric.
#[derive(Debug, Clone, PartialEq)]
pub struct Metric {
    name: String,
    value: f64,
}

impl Metric {
    /// A metric such as `arm-calls` = 7.
    pub fn new(name: impl Into<String>, value: f64) -> Result<Self, JunitError> {
        let name = name.into();
        if name.trim().is_empty() || !value.is_finite() {
            return Err(JunitError::InvalidMetric { name, value });
        }
        if name == crate::grid::cell::DURATION_METRIC {
            return Err(JunitError::ReservedMetric(name));
        }
        Ok(Self { name, value })
    }

    /// The property name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The value.
    pub fn value(&self) -> f64 {
        self.value
    }
}

/// One test case: becomes the row `<suite>.<name>`.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    pub(crate) name: String,
    pub(crate) outcome: Outcome,
    pub(crate) time: Duration,
    pub(crate) metrics: Vec<Metric>,
    pub(crate) system_out: Option<String>,
    pub(crate) system_err: Option<String>,
}

impl Case {
    /// A case with the given outcome.
    pub fn new(name: impl Into<String>, outcome: Outcome) -> Self {
        Self {
            name: name.into(),
            outcome,
            time: Duration::ZERO,
            metrics: Vec::new(),
            system_out: None,
            system_err: None,
        }
    }

    /// A passing case.
    pub fn pass(name: impl Into<String>) -> Self {
        Self::new(name, Outcome::Pass)
    }

    /// A failing case.
    pub fn fail(
        name: impl Into<String>,
        message: impl Into<String>,
        body: impl Into<String>,
    ) -> Self {
        Self::new(name, Outcome::Fail(Failure::new(message, body)))
    }

    /// A skipped case; the reason type guarantees TestGrid shows it.
    pub fn skip(name: impl Into<String>, reason: SkipReason) -> Self {
        Self::new(name, Outcome::Skip(reason))
    }

    /// Sets the duration (written as `time` in seconds).
    pub fn with_time(mut self, time: Duration) -> Self {
        self.time = time;
        self
    }

    /// Adds a metric property.
    pub fn with_metric(mut self, metric: Metric) -> Self {
        self.metrics.push(metric);
        self
    }

    /// Attaches captured log output (`system-out`).
    pub fn with_system_out(mut self, out: impl Into<String>) -> Self {
        self.system_out = Some(out.into());
        self
    }

    /// Attaches captured error output (`system-err`).
    pub fn with_system_err(mut self, err: impl Into<String>) -> Self {
        self.system_err = Some(err.into());
        self
    }

    /// The case name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The outcome.
    pub fn outcome(&self) -> &Outcome {
        &self.outcome
    }
}

/// A named group of cases: its name prefixes every row.
#[derive(Debug, Clone, PartialEq)]
pub struct Suite {
    pub(crate) name: String,
    pub(crate) cases: Vec<Case>,
}

impl Suite {
    /// A suite; names such as `ccm-parity` read well as row prefixes.
    pub fn new(name: impl Into<String>) -> Result<Self, JunitError> {
        let name = name.into();
        if name.trim().is_empty() {
            return Err(JunitError::EmptySuiteName);
        }
        Ok(Self {
            name,
            cases: Vec::new(),
        })
    }

    /// Adds a case whose name is new in this suite.
    pub fn add_case(&mut self, case: Case) -> Result<&mut Self, JunitError> {
        self.check_name(&case)?;
        if self.cases.iter().any(|c| c.name == case.name) {
            return Err(JunitError::DuplicateCase {
                suite: self.name.clone(),
                name: case.name,
            });
        }
        self.cases.push(case);
        Ok(self)
    }

    /// Adds another attempt of an existing case: TestGrid merges the attempts into one cell
    /// (FLAKY when some passed and some failed, icon `passes/total`).
    pub fn add_retry(&mut self, case: Case) -> Result<&mut Self, JunitError> {
        self.check_name(&case)?;
        if !self.cases.iter().any(|c| c.name == case.name) {
            return Err(JunitError::RetryWithoutAttempt {
                suite: self.name.clone(),
                name: case.name,
            });
        }
        self.cases.push(case);
        Ok(self)
    }

    fn check_name(&self, case: &Case) -> Result<(), JunitError> {
        if case.name.trim().is_empty() {
            return Err(JunitError::EmptyCaseName {
                suite: self.name.clone(),
            });
        }
        Ok(())
    }

    /// The suite name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The cases in insertion order.
    pub fn cases(&self) -> &[Case] {
        &self.cases
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_skips_cannot_be_built() {
        for bare in ["", "  ", "skipped", "Skipped", "skipped - "] {
            assert!(
                matches!(SkipReason::new(bare), Err(JunitError::BareSkip { .. })),
                "{bare:?}"
            );
        }
        let r = SkipReason::new("cluster is single-stack").unwrap();
        assert_eq!(r.message(), "skipped - cluster is single-stack");
    }

    #[test]
    fn duplicates_need_add_retry() {
        let mut s = Suite::new("ccm-parity").unwrap();
        s.add_case(Case::pass("a")).unwrap();
        assert!(matches!(
            s.add_case(Case::pass("a")),
            Err(JunitError::DuplicateCase { .. })
        ));
        assert!(matches!(
            s.add_retry(Case::pass("b")),
            Err(JunitError::RetryWithoutAttempt { .. })
        ));
        s.add_retry(Case::fail("a", "boom", "")).unwrap();
        assert_eq!(s.cases().len(), 2);
    }

    #[test]
    fn metrics_must_be_finite_and_not_reserved() {
        assert!(Metric::new("arm-calls", 7.0).is_ok());
        assert!(Metric::new("x", f64::NAN).is_err());
        assert!(Metric::new("", 1.0).is_err());
        assert!(matches!(
            Metric::new("test-duration-minutes", 1.0),
            Err(JunitError::ReservedMetric(_))
        ));
    }

    #[test]
    fn failure_message_falls_back_to_body() {
        assert_eq!(
            Failure::new("", "\nfirst line\nsecond").message,
            "first line"
        );
        assert_eq!(Failure::new(" ", "").message, "failed");
    }
}
