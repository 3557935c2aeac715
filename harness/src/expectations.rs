//! Per-build expectations: a file per tested CCM build (`scenarios/expectations/*.yaml`) lists
//! each scenario whose outcome differs from the project's own expectation because of a
//! documented behaviour of that build, with the build's source reference. `harness run` picks
//! the file whose `match` fits the given `--ccm-binary` (its sha256, or its `--version` answer),
//! or the one named by `--expectations FILE`; such a scenario is then judged by the build's
//! expectation and reported as met "as expected for this build".
//!
//! ```yaml
//! build: kubernetes-sigs/cloud-provider-azure 7b31c76ce2ff
//! match:
//!   sha256: [fc4f190c...]          # of the cloud-controller-manager binary
//!   version: "Cloud Provider Azure v1.31.2"   # or its `--version` first line
//! scenarios:
//!   05-leader-migration:
//!     expect: {fail: single-writer}
//!     because: Leader Migration flags are parsed and ignored
//!     source: cmd/cloud-controller-manager/app/controllermanager.go (Run)
//! ```
//!
//! A bad file is refused naming the file, the field and what is accepted; a scenario named in
//! it that the run does not have is an error too (a renamed scenario must not silently drop its
//! expectation).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::scenario::{CheckName, Expect, ScenarioPlan};

/// Where the project keeps the expectation files, relative to the repository root.
pub const DIR: &str = "scenarios/expectations";

/// Why an expectations file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ExpectationsError {
    /// The file or directory cannot be read.
    #[error("{}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not a valid expectations document.
    #[error("{}: {reason} (accepted: `build`, `match` with `sha256` and/or `version`, `scenarios` mapping each scenario name to `expect` (pass or {{fail: CHECK}}), `because` and `source`)", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong, with the field.
        reason: String,
    },
}

/// How a file recognises its build.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BuildMatch {
    /// sha256 (hex) of the cloud-controller-manager binary.
    #[serde(default)]
    pub sha256: Vec<String>,
    /// The first line of the binary's `--version` answer.
    #[serde(default)]
    pub version: Option<String>,
}

/// One scenario's outcome for this build.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BuildExpectation {
    /// What the scenario ends with for this build.
    pub expect: Expect,
    /// Checks whose verdict for this build depends on timing (a documented behaviour that
    /// sometimes crosses the suite's budget): their failure is reported, and tolerated.
    #[serde(default, rename = "mayFail")]
    pub may_fail: Vec<CheckName>,
    /// The documented behaviour of the build that makes it so.
    pub because: String,
    /// Where in the build's source (file, function).
    pub source: String,
}

/// An expectations file.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BuildExpectations {
    /// Which build, in words.
    pub build: String,
    /// How `harness run` recognises it.
    #[serde(rename = "match", default)]
    pub matches: BuildMatch,
    /// Scenario name → its outcome for this build.
    #[serde(default)]
    pub scenarios: BTreeMap<String, BuildExpectation>,
    /// The file it came from.
    #[serde(skip)]
    pub path: PathBuf,
}

impl BuildExpectations {
    /// Reads and validates `path`.
    pub fn load(path: &Path) -> Result<Self, ExpectationsError> {
        let text = std::fs::read_to_string(path).map_err(|source| ExpectationsError::Read {
            path: path.to_owned(),
            source,
        })?;
        Self::parse(&text, path)
    }

    /// Parses and validates `text` (read from `path`).
    pub fn parse(text: &str, path: &Path) -> Result<Self, ExpectationsError> {
        let invalid = |reason: String| ExpectationsError::Invalid {
            path: path.to_owned(),
            reason,
        };
        let mut doc: BuildExpectations =
            serde_saphyr::from_str(text).map_err(|e| invalid(e.to_string()))?;
        doc.path = path.to_owned();
        if doc.build.trim().is_empty() {
            return Err(invalid("build: must name the build".into()));
        }
        for hash in &doc.matches.sha256 {
            if hash.len() != 64 || !hash.chars().all(|c| c.is_ascii_hexdigit()) {
                return Err(invalid(format!(
                    "match.sha256: {hash:?} is not 64 hexadecimal digits"
                )));
            }
        }
        for (name, e) in &doc.scenarios {
            if let Expect::Fail(check) = e.expect
                && e.may_fail.contains(&check)
            {
                return Err(invalid(format!(
                    "scenarios.{name}.mayFail: {check} is already the check that must fail"
                )));
            }
            for (field, value) in [("because", &e.because), ("source", &e.source)] {
                if value.trim().is_empty() {
                    return Err(invalid(format!(
                        "scenarios.{name}.{field}: must not be empty"
                    )));
                }
            }
        }
        Ok(doc)
    }

    /// True when the build is the binary with `sha256` and `--version` line `version`.
    pub fn matches(&self, sha256: &str, version: Option<&str>) -> bool {
        self.matches
            .sha256
            .iter()
            .any(|h| h.eq_ignore_ascii_case(sha256))
            || self
                .matches
                .version
                .as_deref()
                .is_some_and(|v| Some(v.trim()) == version.map(str::trim))
    }

    /// Applies the file to `plans`: each scenario it names is judged by the build's expectation.
    /// Errors name a scenario the file lists that `known` (every scenario file of the suite)
    /// does not have.
    pub fn apply(
        &self,
        plans: &mut [ScenarioPlan],
        known: &[String],
    ) -> Result<(), ExpectationsError> {
        if let Some(name) = self.scenarios.keys().find(|n| !known.contains(n)) {
            return Err(ExpectationsError::Invalid {
                path: self.path.clone(),
                reason: format!("scenarios.{name}: no scenario of that name"),
            });
        }
        for plan in plans.iter_mut() {
            if let Some(e) = self.scenarios.get(&plan.name) {
                if let Some(check) = e
                    .may_fail
                    .iter()
                    .find(|c| !plan.checks.iter().any(|p| p.check == **c))
                {
                    return Err(ExpectationsError::Invalid {
                        path: self.path.clone(),
                        reason: format!(
                            "scenarios.{}.mayFail: {check} is not a check of that scenario",
                            plan.name
                        ),
                    });
                }
                plan.expect = e.expect;
                plan.may_fail.clone_from(&e.may_fail);
                plan.expected_for_build =
                    Some(format!("{} ({}: {})", e.because, self.build, e.source));
            }
        }
        Ok(())
    }
}

/// sha256 of a file, hex.
pub fn sha256_of(path: &Path) -> Result<String, ExpectationsError> {
    let bytes = std::fs::read(path).map_err(|source| ExpectationsError::Read {
        path: path.to_owned(),
        source,
    })?;
    Ok(Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// The expectations file in `dir` that matches the CCM binary `ccm` (whose `--version` first
/// line is `version`), if any; every file there must be valid.
pub fn find(
    dir: &Path,
    ccm: &Path,
    version: Option<&str>,
) -> Result<Option<BuildExpectations>, ExpectationsError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(ExpectationsError::Read {
                path: dir.to_owned(),
                source,
            });
        }
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "yml"))
        .collect();
    files.sort();
    let hash = sha256_of(ccm)?;
    for file in files {
        let doc = BuildExpectations::load(&file)?;
        if doc.matches(&hash, version) {
            return Ok(Some(doc));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::CheckName;

    const DOC: &str = "build: upstream 7b31c76\nmatch:\n  sha256: [fc4f190c2ba0c2350e08bc505580b5ff619052e9a516de3c4472af0110cbbcfa]\nscenarios:\n  05-leader-migration:\n    expect: {fail: single-writer}\n    because: Leader Migration flags are ignored\n    source: cmd/x.go (Run)\n";

    #[test]
    fn a_file_parses_matches_and_applies() {
        let doc = BuildExpectations::parse(DOC, Path::new("e.yaml")).unwrap();
        assert!(doc.matches(
            "FC4F190C2BA0C2350E08BC505580B5FF619052E9A516DE3C4472AF0110CBBCFA",
            None
        ));
        assert!(!doc.matches("00", Some("v1")));
        let mut plan = crate::checks::builders::plan("");
        plan.name = "05-leader-migration".into();
        let mut plans = vec![plan];
        doc.apply(&mut plans, &["05-leader-migration".into()])
            .unwrap();
        assert_eq!(plans[0].expect, Expect::Fail(CheckName::SingleWriter));
        assert!(
            plans[0]
                .expected_for_build
                .as_deref()
                .is_some_and(|n| n.contains("upstream 7b31c76") && n.contains("cmd/x.go")),
            "{:?}",
            plans[0].expected_for_build
        );
        let unknown = doc.apply(&mut plans, &["other".into()]).unwrap_err();
        assert!(
            unknown
                .to_string()
                .contains("scenarios.05-leader-migration"),
            "{unknown}"
        );
    }

    #[test]
    fn may_fail_reaches_the_plan_and_names_only_checks_it_runs() {
        let text = "build: b\nscenarios:\n  s:\n    expect: pass\n    mayFail: [arm-call-budget]\n    because: timing\n    source: x.go (f)\n";
        let doc = BuildExpectations::parse(text, Path::new("e.yaml")).unwrap();
        let mut plan = crate::checks::builders::plan("");
        plan.name = "s".into();
        let runs_it = plan
            .checks
            .iter()
            .any(|c| c.check == CheckName::ArmCallBudget);
        assert!(runs_it, "the default plan runs arm-call-budget");
        let mut plans = vec![plan.clone()];
        doc.apply(&mut plans, &["s".into()]).unwrap();
        assert_eq!(plans[0].may_fail, vec![CheckName::ArmCallBudget]);
        plan.checks.retain(|c| c.check != CheckName::ArmCallBudget);
        let mut plans = vec![plan];
        let e = doc
            .apply(&mut plans, &["s".into()])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("scenarios.s.mayFail") && e.contains("arm-call-budget"),
            "{e}"
        );
    }

    #[test]
    fn bad_files_name_the_field() {
        for (text, field) in [
            ("build: x\nmatch: {sha256: [abc]}\n", "match.sha256"),
            ("build: ''\n", "build"),
            (
                "build: x\nscenarios:\n  a: {expect: pass, because: '', source: s}\n",
                "scenarios.a.because",
            ),
            (
                "build: x\nscenarios:\n  a: {expect: maybe, because: b, source: s}\n",
                "maybe",
            ),
            ("build: x\nwhat: 1\n", "what"),
            (
                "build: x\nscenarios:\n  a: {expect: {fail: single-writer}, mayFail: [single-writer], because: b, source: s}\n",
                "scenarios.a.mayFail",
            ),
            (
                "build: x\nscenarios:\n  a: {expect: pass, mayFail: [no-such-check], because: b, source: s}\n",
                "no-such-check",
            ),
        ] {
            let e = BuildExpectations::parse(text, Path::new("e.yaml")).unwrap_err();
            let shown = e.to_string();
            assert!(
                shown.starts_with("e.yaml: ") && shown.contains(field),
                "{shown}"
            );
        }
    }
}
