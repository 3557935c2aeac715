//! Errors of loading a scenario: every one names the file and, where known, the line, the field path
//! and the accepted values. Problems reuse the fake topology's [`Problem`] (line + field + message).

pub use azure_fakes::topology::Problem;
use std::fmt;

/// Why one scenario file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    /// The file could not be read.
    #[error("{file}: cannot read scenario file: {source}")]
    Read {
        /// File name as given.
        file: String,
        /// I/O cause.
        source: std::io::Error,
    },
    /// YAML syntax error, unknown field, wrong type or unknown enum value.
    #[error("{file}:{line}:{column}: {}{message}", .field.as_deref().map(|f| format!("{f}: ")).unwrap_or_default())]
    Syntax {
        /// File name as given.
        file: String,
        /// 1-based line (0 when unknown).
        line: u64,
        /// 1-based column (0 when unknown).
        column: u64,
        /// Field path at that position (`switch.kcmReplicas`), when it could be followed.
        field: Option<String>,
        /// Parser message (lists the accepted fields or values).
        message: String,
    },
    /// Well-formed YAML that breaks a cross-field rule.
    #[error("{file}: invalid scenario ({} problem{}):\n{}", problems.len(), if problems.len() == 1 { "" } else { "s" }, render(file, problems))]
    Invalid {
        /// File name as given.
        file: String,
        /// Every problem found (validation does not stop at the first).
        problems: Vec<Problem>,
    },
}

impl ScenarioError {
    /// The file the error is about.
    pub fn file(&self) -> &str {
        match self {
            Self::Read { file, .. } | Self::Syntax { file, .. } | Self::Invalid { file, .. } => {
                file
            }
        }
    }

    /// Maps a parser error on `text`, keeping its position once as `file:line:column` and naming the
    /// field found at that position.
    pub(crate) fn syntax(file: &str, text: &str, e: &serde_saphyr::Error) -> Self {
        let (line, column) = e.location().map_or((0, 0), |l| (l.line(), l.column()));
        let full = e.without_snippet().to_string();
        let position = format!(" at line {line}, column {column}");
        let message = full.strip_suffix(&position).unwrap_or(&full).to_string();
        Self::Syntax {
            file: file.to_string(),
            line,
            column,
            field: super::yaml_path::path_at(text, line, column),
            message,
        }
    }
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

/// Every error found while loading a directory or a list of files (nothing runs when there is one).
#[derive(Debug, thiserror::Error)]
pub struct LoadErrors {
    /// One entry per bad file (or per clash between files).
    pub errors: Vec<ScenarioError>,
}

impl fmt::Display for LoadErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} scenario error{}:",
            self.errors.len(),
            if self.errors.len() == 1 { "" } else { "s" }
        )?;
        for e in &self.errors {
            write!(f, "\n{e}")?;
        }
        Ok(())
    }
}
