//! Errors of loading, validating and seeding a topology; every one names the file and, where known, the
//! line and field path, and none ever contains a secret.

use fake_arm::ArmError;
use std::fmt;

/// One semantic problem found while validating a topology.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// 1-based line of the offending value, when the parser recorded it.
    pub line: Option<u64>,
    /// Field path, e.g. `vms[2].privateIp`.
    pub field: String,
    /// What is wrong and what is accepted.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "line {line}: {}: {}", self.field, self.message),
            None => write!(f, "{}: {}", self.field, self.message),
        }
    }
}

/// Why a topology could not be loaded or seeded.
#[derive(Debug, thiserror::Error)]
pub enum TopologyError {
    /// The file could not be read.
    #[error("{file}: cannot read topology file: {source}")]
    Read {
        /// File name as given.
        file: String,
        /// I/O cause.
        source: std::io::Error,
    },
    /// YAML syntax error, unknown field, wrong type or unknown enum value.
    #[error("{file}:{line}:{column}: {message}")]
    Syntax {
        /// File name as given.
        file: String,
        /// 1-based line (0 when unknown).
        line: u64,
        /// 1-based column (0 when unknown).
        column: u64,
        /// Parser message (lists accepted values for enums and fields).
        message: String,
    },
    /// Well-formed YAML describing an impossible cloud; nothing was created.
    #[error("{file}: invalid topology ({} problem{}):\n{}", problems.len(), if problems.len() == 1 { "" } else { "s" }, render(file, problems))]
    Invalid {
        /// File name as given.
        file: String,
        /// Every problem found (validation does not stop at the first).
        problems: Vec<Problem>,
    },
    /// Fake ARM refused a resource while seeding (a bug in validation or an ARM rule not mirrored here).
    #[error("seeding {resource}: {source}")]
    Seed {
        /// Resource id being written.
        resource: String,
        /// ARM's answer.
        #[source]
        source: ArmError,
    },
}

fn render(file: &str, problems: &[Problem]) -> String {
    problems
        .iter()
        .map(|p| match p.line {
            Some(line) => format!("  {file}:{line}: {}: {}", p.field, p.message),
            None => format!("  {file}: {}: {}", p.field, p.message),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

impl TopologyError {
    /// Maps a fake-ARM refusal while writing `resource`.
    pub(crate) fn seed(resource: &str, source: ArmError) -> Self {
        TopologyError::Seed {
            resource: resource.to_string(),
            source,
        }
    }
}
