//! A validated scenario: the parsed file plus what validation resolved (version, checks, expectation).

use super::check::CheckName;
use super::spec::{Expect, ScenarioSpec};
use ccm_manifests::KubeVersion;
use std::path::PathBuf;

/// A scenario that passed every rule; [`super::plan`] turns it into what the runner executes.
#[derive(Debug)]
pub struct Scenario {
    /// File it came from (as given), for messages and reports.
    pub file: String,
    /// Repository root topology files resolve against (`None` for text loaded without one).
    pub repo_root: Option<PathBuf>,
    /// Kubernetes minor.
    pub version: KubeVersion,
    /// Checks that run, in report order.
    pub checks: Vec<CheckName>,
    /// `pass` or the check that must fail.
    pub expect: Expect,
    /// The file as parsed.
    pub spec: ScenarioSpec,
}

impl Scenario {
    /// Scenario name (the file stem).
    pub fn name(&self) -> &str {
        &self.spec.name.value
    }
}
