//! Findings: what TestGrid would drop, misread or reject in a build directory.

use std::fmt;

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Worth knowing; TestGrid shows what was meant.
    Info,
    /// TestGrid shows something, but maybe not what was meant.
    Warning,
    /// TestGrid rejects or misreads the build: the validator exits non-zero.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// Declares the finding codes once, so the list of everything the validator can say is
/// complete by construction (tests check each code is reachable).
macro_rules! codes {
    ($($(#[doc = $doc:literal])* $variant:ident => $text:literal,)+) => {
        /// Stable kebab-case finding codes, one per thing TestGrid would drop, misread or reject.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code {
            $($(#[doc = $doc])* $variant,)+
        }

        impl Code {
            /// Every code, in declaration order.
            pub const ALL: &[Code] = &[$(Code::$variant,)+];

            /// The kebab-case text printed in reports.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$variant => $text,)+
                }
            }
        }
    };
}

codes! {
    /// No started.json: start time 0, a lone `Overall` cell "Start timestamp for this job is 0.".
    StartedMissing => "started-missing",
    /// started.json empty: "Malformed artifacts".
    StartedMalformed => "started-malformed",
    /// started.json not decodable (wrong JSON type): TOOL_FAIL column.
    StartedInvalid => "started-invalid",
    /// started.json without a positive timestamp: a lone `Overall` cell.
    StartedTimestampZero => "started-timestamp-zero",
    /// Metadata in started.json (deprecated).
    StartedMetadataDeprecated => "started-metadata-deprecated",
    /// A timestamp that looks like milliseconds.
    TimestampMilliseconds => "timestamp-milliseconds",
    /// No finished.json: RUNNING (normal while the job runs), then timed out.
    FinishedMissing => "finished-missing",
    /// finished.json empty: "Malformed artifacts".
    FinishedMalformed => "finished-malformed",
    /// finished.json not decodable: TOOL_FAIL column.
    FinishedInvalid => "finished-invalid",
    /// finished.json without a positive timestamp: the build never counts as complete.
    FinishedTimestampMissing => "finished-timestamp-missing",
    /// finished.json timestamp before started.json's.
    FinishedBeforeStarted => "finished-before-started",
    /// finished.json without `passed`.
    PassedMissing => "passed-missing",
    /// `passed` and `result` disagree.
    PassedResultDisagree => "passed-result-disagree",
    /// `result` outside SUCCESS/FAILURE/ABORTED.
    ResultUnknown => "result-unknown",
    /// finished.json metadata values TestGrid ignores for headers.
    MetadataNotString => "metadata-not-string",
    /// A configured column header with no string value in finished.json metadata: `missing`.
    HeaderMissing => "header-missing",
    /// finished.json metadata `EmailAddresses` that is not a list of strings: dropped.
    EmailAddressesNotList => "email-addresses-not-list",
    /// `result` ABORTED: TestGrid shows the build exactly like a failure.
    AbortedShownAsFailure => "aborted-shown-as-failure",
    /// No podinfo.json.
    PodinfoMissing => "podinfo-missing",
    /// podinfo.json empty: "Malformed artifacts".
    PodinfoMalformed => "podinfo-malformed",
    /// podinfo.json not decodable: TOOL_FAIL column.
    PodinfoInvalid => "podinfo-invalid",
    /// No JUnit file anywhere under the build.
    NoJunit => "no-junit",
    /// An .xml file TestGrid does not read (wrong name).
    FileNotRead => "file-not-read",
    /// A JUnit file over TestGrid's size limit.
    JunitTooLarge => "junit-too-large",
    /// A JUnit file that cannot be read.
    JunitUnreadable => "junit-unreadable",
    /// A JUnit file TestGrid cannot parse.
    JunitMalformed => "junit-malformed",
    /// A JUnit file without any testsuite (read without error, no rows).
    JunitEmpty => "junit-empty",
    /// Testcases skipped without a reason: no row.
    SkipDropped => "skip-dropped",
    /// Non-numeric testcase properties: not metrics.
    PropertyNotMetric => "property-not-metric",
    /// The same row name more than once in one build: merged.
    DuplicateRow => "duplicate-row",
    /// Started longer ago than days_of_results: UNKNOWN.
    BuildTooOld => "build-too-old",
    /// A build id that is not a number.
    BuildIdNotNumeric => "build-id-not-numeric",
    /// A sibling build id sorts after this one: TestGrid may never read it.
    BuildIdNotNewest => "build-id-not-newest",
    /// No latest-build.txt next to the build.
    LatestBuildMissing => "latest-build-missing",
    /// latest-build.txt names an older build.
    LatestBuildStale => "latest-build-stale",
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One observation about a build directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// How much it matters.
    pub severity: Severity,
    /// What kind of problem it is.
    pub code: Code,
    /// File relative to the build directory (`.` for the directory itself).
    pub path: String,
    /// What TestGrid would do, and how to fix it.
    pub message: String,
}

impl Finding {
    /// Builds a finding.
    pub fn new(
        severity: Severity,
        code: Code,
        path: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            severity,
            code,
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:<7} {} {}: {}",
            self.severity, self.code, self.path, self.message
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_kebab_case() {
        let mut seen = std::collections::BTreeSet::new();
        for c in Code::ALL {
            let s = c.as_str();
            assert!(seen.insert(s), "duplicate {s}");
            assert!(
                s.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'),
                "{s}"
            );
        }
    }
}
