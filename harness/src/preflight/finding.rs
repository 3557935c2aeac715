//! One preflight finding (severity, pitfall, the object concerned, what happens, the fix) and the
//! text report printed to the operator.

use std::fmt::Write as _;

use serde::Serialize;

/// How much a finding matters: any `Block` makes preflight exit 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The switch would break something (a Node deleted, a Service's IP changed, two IPAM owners).
    Block,
    /// Worth fixing; the switch itself keeps working.
    Warn,
    /// Context for the operator.
    Info,
}

impl Severity {
    /// Word printed in front of the finding.
    pub fn word(self) -> &'static str {
        match self {
            Severity::Block => "BLOCK",
            Severity::Warn => "WARN ",
            Severity::Info => "INFO ",
        }
    }
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Finding {
    /// Severity.
    pub severity: Severity,
    /// Pitfall of migration.md §3 (`P1`, ...) or `lint`.
    pub pitfall: &'static str,
    /// The object: `Node x`, `Service ns/name`, a manifest file and container.
    pub object: String,
    /// What would happen.
    pub message: String,
    /// What to change.
    pub fix: String,
}

impl Finding {
    /// A finding.
    pub fn new(
        severity: Severity,
        pitfall: &'static str,
        object: impl Into<String>,
        message: impl Into<String>,
        fix: impl Into<String>,
    ) -> Self {
        Self {
            severity,
            pitfall,
            object: object.into(),
            message: message.into(),
            fix: fix.into(),
        }
    }
}

/// Orders findings for the report: most severe first, then by pitfall number (`P4` before
/// `P10`; `lint` last), then by object and text.
pub fn sort_findings(findings: &mut Vec<Finding>) {
    fn rank(pitfall: &str) -> u32 {
        pitfall
            .strip_prefix('P')
            .and_then(|n| n.parse().ok())
            .unwrap_or(u32::MAX)
    }
    findings
        .sort_by(|a, b| (a.severity, rank(a.pitfall), a).cmp(&(b.severity, rank(b.pitfall), b)));
    findings.dedup();
}

/// One ARM write of the load balancer dry run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlannedWrite {
    /// `namespace/name` of the Service.
    pub service: String,
    /// `PUT` or `DELETE`.
    pub method: String,
    /// ARM id.
    pub resource: String,
    /// True when the rehearsals' allow-list accepts every change it makes.
    pub allowed: bool,
    /// The changes it makes, as the ARM diff prints them.
    pub changes: Vec<String>,
}

/// The result of preflight.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PreflightReport {
    /// What was read (cluster, version, target cluster name, counts), one line each.
    pub context: Vec<String>,
    /// Findings, most severe first.
    pub findings: Vec<Finding>,
    /// The ARM writes the target CCM would send on its first reconcile.
    pub writes: Vec<PlannedWrite>,
}

impl PreflightReport {
    /// True when a finding blocks the switch.
    pub fn blocked(&self) -> bool {
        self.findings.iter().any(|f| f.severity == Severity::Block)
    }

    /// Exit code of `harness preflight`: 0 only when nothing blocks.
    pub fn exit_code(&self) -> i32 {
        i32::from(self.blocked())
    }

    /// The text printed to the operator.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for line in &self.context {
            let _ = writeln!(out, "preflight: {line}");
        }
        for f in &self.findings {
            let _ = writeln!(
                out,
                "{} [{}] {}: {}",
                f.severity.word(),
                f.pitfall,
                f.object,
                f.message
            );
            if !f.fix.is_empty() {
                let _ = writeln!(out, "      fix: {}", f.fix);
            }
        }
        let outside = self.writes.iter().filter(|w| !w.allowed).count();
        let _ = writeln!(
            out,
            "ARM writes the target CCM would make on its first reconcile: {} ({outside} outside \
             the migration allow-list)",
            self.writes.len()
        );
        for w in &self.writes {
            let _ = writeln!(
                out,
                "  {} {} (Service {}){}",
                w.method,
                w.resource,
                w.service,
                if w.allowed { "" } else { " NOT ALLOW-LISTED" }
            );
            for c in &w.changes {
                let _ = writeln!(out, "      {c}");
            }
        }
        let count = |s: Severity| self.findings.iter().filter(|f| f.severity == s).count();
        let _ = writeln!(
            out,
            "result: {} blocking, {} warnings: {}",
            count(Severity::Block),
            count(Severity::Warn),
            if self.blocked() {
                "do not switch yet (exit 1)"
            } else {
                "nothing blocks the switch (exit 0)"
            }
        );
        out
    }
}
