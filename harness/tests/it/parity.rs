//! `harness run` end to end: every shipped scenario through the real binary (which starts the
//! fakes, the in-tree stand-ins and the production CCM/CNM binaries as processes), each meeting its
//! expectation: positives pass every check, each negative fails for the check it names. The
//! artifacts must be a TestGrid build directory `harness testgrid check` accepts.

use std::path::{Path, PathBuf};

use crate::run::{harness, text};
use crate::scratch::Scratch;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

/// Reads `outcome.json` of every scenario under the build directory.
fn outcomes(artifacts: &Path) -> Vec<serde_json::Value> {
    let dir = artifacts.join("artifacts").join("scenarios");
    let mut out: Vec<serde_json::Value> = std::fs::read_dir(&dir)
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

#[test]
fn every_scenario_meets_its_expectation_and_each_negative_fails_for_its_check() {
    let root = repo_root();
    let scratch = Scratch::new("parity");
    let artifacts = scratch.0.join("build");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_harness"))
        .current_dir(&root)
        .args(["run", "--plain", "--jobs", "2", "--artifacts"])
        .arg(&artifacts)
        .output()
        .expect("harness runs");
    let (stdout, stderr) = text(&out);
    let all = outcomes(&artifacts);
    let scenarios = std::fs::read_dir(root.join("scenarios"))
        .expect("scenarios dir")
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "yaml"))
        })
        .count();
    assert_eq!(
        all.len(),
        scenarios,
        "one outcome per scenario\n{stdout}\n{stderr}"
    );
    let mut problems = Vec::new();
    for outcome in &all {
        let name = outcome["name"].as_str().unwrap_or_default();
        let checks = outcome["checks"].as_array().cloned().unwrap_or_default();
        match outcome["expect"].get("fail").and_then(|c| c.as_str()) {
            Some(named) => {
                let verdict = checks
                    .iter()
                    .find(|c| c["check"] == named)
                    .map(|c| c["verdict"].as_str().unwrap_or_default().to_owned());
                if verdict.as_deref() != Some("fail") || outcome.get("failure").is_some() {
                    problems.push(format!(
                        "{name}: must fail {named}, got {verdict:?} (failure: {})",
                        outcome["failure"]
                    ));
                }
            }
            None => {
                for c in &checks {
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
    }
    assert!(
        problems.is_empty(),
        "{}\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        problems.join("\n")
    );
    assert!(
        out.status.success(),
        "exit {:?}\n{stdout}\n{stderr}",
        out.status
    );
    let checked = harness(&["testgrid", "check", artifacts.to_str().expect("utf-8 path")]);
    let (check_out, check_err) = text(&checked);
    assert!(checked.status.success(), "{check_out}\n{check_err}");
    let html = std::fs::read_to_string(artifacts.join("artifacts").join("report.html"))
        .expect("report.html");
    let rows = html
        .lines()
        .filter(|l| {
            ["good", "bad", "neutral"]
                .iter()
                .any(|class| l.starts_with(&format!("<tr class=\"{class}\"")))
        })
        .count();
    let checks: usize = all
        .iter()
        .map(|o| o["checks"].as_array().map_or(0, Vec::len))
        .sum();
    assert_eq!(rows, checks, "report.html has one row per check");
}
