//! `harness run --ccm-binary/--cnm-binary`: scenario 05 (Leader Migration) with our own binaries
//! given by path meets its expectation (so a given binary, run behind the fake's CONNECT proxy,
//! behaves as ours), the run records which binaries it tested, and a stand-in build that ignores the
//! migration Lease (as the upstream Azure CCM does) makes the same scenario fail `single-writer`.
//! A path that cannot be run is refused before anything starts, naming the flag.

use std::path::PathBuf;
use std::process::{Command, Output};

use crate::outcomes::{outcomes, repo_root, unmet, verdict};
use crate::run::{harness, text};
use crate::scratch::Scratch;

const SCENARIO: &str = "scenarios/05-leader-migration.yaml";

/// One of our binaries, beside the harness under test (cargo builds the workspace's binaries
/// into one directory; `cargo build -p azure-ccm` first).
fn ours(name: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_BIN_EXE_harness"))
        .parent()
        .expect("target dir")
        .join(name);
    assert!(
        path.is_file(),
        "{} missing: run `cargo build -p azure-ccm` first",
        path.display()
    );
    path
}

/// `harness run SCENARIO --artifacts DIR` plus `extra`, from the repository root, with `env`.
fn run(artifacts: &std::path::Path, extra: &[&std::ffi::OsStr], env: &[(&str, PathBuf)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_harness"));
    command
        .current_dir(repo_root())
        .args(["run", SCENARIO, "--plain", "--jobs", "1", "--artifacts"])
        .arg(artifacts)
        .args(extra);
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().expect("harness runs")
}

#[test]
fn our_binaries_given_by_path_meet_scenario_05_and_are_recorded() {
    let scratch = Scratch::new("ccm-binary-ours");
    let artifacts = scratch.0.join("build");
    let (ccm, cnm) = (ours("cloud-controller-manager"), ours("cloud-node-manager"));
    let out = run(
        &artifacts,
        &[
            "--ccm-binary".as_ref(),
            ccm.as_os_str(),
            "--cnm-binary".as_ref(),
            cnm.as_os_str(),
        ],
        &[],
    );
    let (stdout, stderr) = text(&out);
    let all = outcomes(&artifacts);
    assert_eq!(all.len(), 1, "{stdout}\n{stderr}");
    let problems = unmet(&all[0]);
    assert!(
        problems.is_empty(),
        "{}\n{stdout}\n{stderr}",
        problems.join("\n")
    );
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let recorded: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(artifacts.join("artifacts").join("binaries.json"))
            .expect("binaries.json"),
    )
    .expect("binaries.json is JSON");
    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(
        recorded["cloud-controller-manager"],
        serde_json::json!({"path": ccm, "given": true, "version": version})
    );
    assert_eq!(
        recorded["cloud-node-manager"],
        serde_json::json!({"path": cnm, "given": true, "version": version})
    );
    // The given CCM's own answer to --version is the build's ccm-version column header.
    let finished: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(artifacts.join("finished.json")).expect("finished.json"),
    )
    .expect("finished.json is JSON");
    assert_eq!(finished["metadata"]["ccm-version"], version, "{finished}");
}

#[test]
fn a_ccm_ignoring_the_migration_lease_fails_single_writer_on_scenario_05() {
    let scratch = Scratch::new("ccm-binary-stand-in");
    let artifacts = scratch.0.join("build");
    let stand_in = repo_root().join("harness/tests/fixtures/ccm-ignoring-migration-lease.sh");
    let out = run(
        &artifacts,
        &["--ccm-binary".as_ref(), stand_in.as_os_str()],
        &[("STAND_IN_CCM", ours("cloud-controller-manager"))],
    );
    let (stdout, stderr) = text(&out);
    let all = outcomes(&artifacts);
    assert_eq!(all.len(), 1, "{stdout}\n{stderr}");
    let outcome = &all[0];
    assert_eq!(
        verdict(outcome, "single-writer").as_deref(),
        Some("fail"),
        "{outcome:#}\n{stdout}\n{stderr}"
    );
    assert!(outcome.get("failure").is_none(), "{outcome:#}");
    assert!(
        !out.status.success(),
        "a positive scenario failing a check exits 1"
    );
}

#[test]
fn a_binary_that_cannot_run_is_refused_naming_its_flag() {
    let scratch = Scratch::new("ccm-binary-bad");
    let plain = scratch.write("not-executable", "#!/bin/sh\n");
    let root = repo_root();
    let scenario = root.join(SCENARIO);
    let scenario = scenario.to_str().expect("utf-8 path");
    let artifacts = scratch.0.join("build");
    let artifacts = artifacts.to_str().expect("utf-8 path");
    let out = harness(&[
        "run",
        scenario,
        "--artifacts",
        artifacts,
        "--cnm-binary",
        plain.to_str().expect("utf-8 path"),
    ]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("--cnm-binary") && stderr.contains("not executable"),
        "{stderr}"
    );
    let missing = scratch.0.join("missing");
    let out = harness(&[
        "run",
        scenario,
        "--artifacts",
        artifacts,
        "--ccm-binary",
        missing.to_str().expect("utf-8 path"),
    ]);
    let (_, stderr) = text(&out);
    assert!(stderr.contains("--ccm-binary"), "{stderr}");
    assert!(
        !std::path::Path::new(artifacts)
            .join("artifacts")
            .join("scenarios")
            .exists(),
        "nothing ran"
    );
}
