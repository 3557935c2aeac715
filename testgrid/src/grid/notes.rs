//! What reading one build noticed: findings for the validator, and the malformed files that
//! turn TestGrid's Overall cell into "Malformed artifacts".

use crate::finding::{Code, Finding, Severity};

/// Findings and malformed files collected while reading one build.
#[derive(Debug, Default)]
pub struct Notes {
    /// Findings, in the order they were noticed.
    pub findings: Vec<Finding>,
    /// Files TestGrid records as malformed, relative to the build directory.
    pub malformed: Vec<String>,
}

impl Notes {
    /// Records a finding.
    pub fn note(&mut self, severity: Severity, code: Code, path: &str, message: impl Into<String>) {
        self.findings
            .push(Finding::new(severity, code, path, message));
    }
}
