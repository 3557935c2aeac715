//! `harness run` end to end: every shipped scenario through the real binary (which starts the
//! fakes, the in-tree stand-ins and the production CCM/CNM binaries as processes), each meeting its
//! expectation: positives pass every check, each negative fails for the check it names. The
//! artifacts must be a TestGrid build directory `harness testgrid check` accepts.

use crate::outcomes::{outcomes, repo_root, unmet};
use crate::run::{harness, text};
use crate::scratch::Scratch;

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
    let problems: Vec<String> = all.iter().flat_map(unmet).collect();
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
