//! Reading a `harness run` build directory back: the repository root the runs start in, each
//! scenario's `outcome.json`, and what an outcome lacks to meet its expectation.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The workspace root (scenario paths in the shipped files are relative to it).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

/// Reads `outcome.json` of every scenario under the build directory, sorted by name.
pub fn outcomes(artifacts: &Path) -> Vec<Value> {
    let dir = artifacts.join("artifacts").join("scenarios");
    let mut out: Vec<Value> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path().join("outcome.json"))
        .map(|p| {
            let text =
                std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            serde_json::from_str(&text).expect("outcome.json is JSON")
        })
        .collect();
    out.sort_by_key(|o| o["name"].as_str().unwrap_or_default().to_owned());
    out
}

/// The verdict (`pass`, `fail`, `error`, `skipped`) of `check` in `outcome`.
pub fn verdict(outcome: &Value, check: &str) -> Option<String> {
    outcome["checks"]
        .as_array()?
        .iter()
        .find(|c| c["check"] == check)
        .map(|c| c["verdict"].as_str().unwrap_or_default().to_owned())
}

/// Why `outcome` does not meet its expectation (empty when it does): a negative must fail the
/// check it names without breaking off; a positive must pass (or skip) every check.
pub fn unmet(outcome: &Value) -> Vec<String> {
    let name = outcome["name"].as_str().unwrap_or_default();
    let mut problems = Vec::new();
    match outcome["expect"].get("fail").and_then(|c| c.as_str()) {
        Some(named) => {
            let got = verdict(outcome, named);
            if got.as_deref() != Some("fail") || outcome.get("failure").is_some() {
                problems.push(format!(
                    "{name}: must fail {named}, got {got:?} (failure: {})",
                    outcome["failure"]
                ));
            }
        }
        None => {
            for c in outcome["checks"].as_array().into_iter().flatten() {
                if !matches!(c["verdict"].as_str(), Some("pass" | "skipped")) {
                    problems.push(format!(
                        "{name}: {} is {}: {}",
                        c["check"], c["verdict"], c["reason"]
                    ));
                }
            }
            if let Some(failure) = outcome.get("failure") {
                problems.push(format!("{name}: broke off: {failure}"));
            }
        }
    }
    problems
}
