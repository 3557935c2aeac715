//! `harness manifests lint`: checks any user's manifests (static pods, Deployments, DaemonSets,
//! KubeletConfiguration files, kubelet flag files) against the flags, gates and admission plugins
//! of a target Kubernetes version, before a rollout makes a component refuse to start.

mod extract;
mod rules;

pub use extract::{Invocation, Source, extract};
pub use rules::check;

use std::fmt;
use std::path::{Path, PathBuf};

use crate::catalog::BUILTIN;
use crate::component::Component;
use crate::version::KubeVersion;

/// Class of a finding; each has its own unit test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum FindingKind {
    /// The flag no longer exists.
    RemovedFlag,
    /// The flag exists but this value is no longer accepted (e.g. `--cloud-provider=azure`).
    RemovedFlagValue,
    /// The flag does not exist yet in the target version.
    FlagNotYetAvailable,
    /// A feature gate that the target version does not know.
    RemovedFeatureGate,
    /// A GA gate locked to its default, set to the other value.
    LockedFeatureGate,
    /// An admission plugin that no longer exists.
    RemovedAdmissionPlugin,
    /// A flag the configuration needs is absent.
    MissingFlag,
    /// A feature gate the configuration needs is absent or has the wrong value.
    MissingFeatureGate,
    /// Flags that contradict each other.
    ConflictingFlags,
}

impl FindingKind {
    /// Stable kebab-case code printed in reports.
    pub const fn code(self) -> &'static str {
        match self {
            FindingKind::RemovedFlag => "removed-flag",
            FindingKind::RemovedFlagValue => "removed-flag-value",
            FindingKind::FlagNotYetAvailable => "flag-not-yet-available",
            FindingKind::RemovedFeatureGate => "removed-feature-gate",
            FindingKind::LockedFeatureGate => "locked-feature-gate",
            FindingKind::RemovedAdmissionPlugin => "removed-admission-plugin",
            FindingKind::MissingFlag => "missing-flag",
            FindingKind::MissingFeatureGate => "missing-feature-gate",
            FindingKind::ConflictingFlags => "conflicting-flags",
        }
    }
}

/// One problem, located by file and object/container.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// File it was found in.
    pub file: PathBuf,
    /// Object and container (or "flags file").
    pub location: String,
    /// Component whose command line it concerns.
    pub component: Component,
    /// Class.
    pub kind: FindingKind,
    /// The flag (or gate/plugin) concerned.
    pub subject: String,
    /// Explanation and fix.
    pub message: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} ({}): {} {}: {}",
            self.file.display(),
            self.location,
            self.component,
            self.kind.code(),
            self.subject,
            self.message
        )
    }
}

/// A file could not be read or understood.
#[derive(Debug, thiserror::Error)]
pub enum LintError {
    /// I/O.
    #[error("cannot read {path}: {source}")]
    Read {
        /// File.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
    /// Neither Kubernetes YAML nor a recognisable flags file.
    #[error("{path}: {reason}")]
    Unrecognised {
        /// File.
        path: PathBuf,
        /// What is wrong and what is accepted.
        reason: String,
    },
}

/// Lints file contents already in memory.
pub fn lint_text(path: &Path, text: &str, version: KubeVersion) -> Result<Vec<Finding>, LintError> {
    let invocations = extract(path, text)?;
    let mut findings = Vec::new();
    for inv in &invocations {
        findings.extend(check(path, inv, version, &BUILTIN));
    }
    Ok(findings)
}

/// Reads and lints every file; any unreadable file is an error (nothing is skipped silently).
pub fn lint_paths(paths: &[PathBuf], version: KubeVersion) -> Result<Vec<Finding>, LintError> {
    let mut findings = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(path).map_err(|source| LintError::Read {
            path: path.clone(),
            source,
        })?;
        findings.extend(lint_text(path, &text, version)?);
    }
    Ok(findings)
}
