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

/// One observation about a build directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// How much it matters.
    pub severity: Severity,
    /// Stable kebab-case code, e.g. `passed-missing`.
    pub code: &'static str,
    /// File relative to the build directory (`.` for the directory itself).
    pub path: String,
    /// What TestGrid would do, and how to fix it.
    pub message: String,
}

impl Finding {
    /// Builds a finding.
    pub fn new(
        severity: Severity,
        code: &'static str,
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
