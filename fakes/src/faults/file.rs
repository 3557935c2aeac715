//! Loading a faults file (YAML or JSON: `seed` + `rules`) given on the command line.

use std::path::{Path, PathBuf};

use super::engine::FaultPlan;

/// A faults file that cannot be used; always names the file.
#[derive(Debug, thiserror::Error)]
pub enum FaultFileError {
    /// The file cannot be read.
    #[error("faults file {path}: {source}")]
    Io {
        /// File.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
    /// Not valid YAML, or a field is unknown / of the wrong type.
    #[error(
        "faults file {path}: {message} (accepted: seed: <u64>, rules: [{{id?, surface?: arm|imds|entra, method?, path | pathRegex, fault: {{kind: throttle|status|latency|lroFailed|preconditionFailed|reset, ...}}, count?, probability?}}])"
    )]
    Parse {
        /// File.
        path: PathBuf,
        /// Parser message (with line and column).
        message: String,
    },
    /// A rule is invalid.
    #[error("faults file {path}: {source}")]
    Rule {
        /// File.
        path: PathBuf,
        /// The rule problem (names `rules[i].field`).
        source: super::rule::RuleError,
    },
}

/// Reads and parses `path` (rules are validated when the plan is installed).
pub fn load(path: &Path) -> Result<FaultPlan, FaultFileError> {
    let text = std::fs::read_to_string(path).map_err(|source| FaultFileError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    serde_saphyr::from_str(&text).map_err(|e| FaultFileError::Parse {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::faults::FaultKind;

    #[test]
    fn yaml_file_loads() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("faults.yaml");
        std::fs::write(
            &path,
            "seed: 42\nrules:\n- method: PUT\n  path: /subscriptions/**/loadBalancers/*\n  fault: {kind: lroFailed}\n  count: 1\n- path: /**\n  fault: {kind: latency, ms: 20}\n  probability: 0.1\n",
        )
        .unwrap();
        let plan = load(&path).unwrap();
        assert_eq!(plan.seed, 42);
        assert_eq!(plan.rules.len(), 2);
        assert!(
            matches!(plan.rules[0].fault, FaultKind::LroFailed { ref code, .. } if code == "InternalServerError")
        );
    }

    #[test]
    fn errors_name_the_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("faults.yaml");
        std::fs::write(
            &path,
            "seed: 1\nrules:\n- path: /x\n  falut: {kind: reset}\n",
        )
        .unwrap();
        let message = load(&path).unwrap_err().to_string();
        assert!(message.contains("faults.yaml"), "{message}");
        assert!(message.contains("falut"), "{message}");
        assert!(
            message.contains("line 4") || message.contains("4:"),
            "{message}"
        );
        let missing = load(&dir.path().join("nope.yaml")).unwrap_err().to_string();
        assert!(missing.contains("nope.yaml"), "{missing}");
    }
}
