//! `harness run --ccm-binary/--cnm-binary`: scenario 05 (Leader Migration) with our own binaries
//! given by path meets its expectation (so a given binary, run behind the fake's CONNECT proxy,
//! behaves as ours), the run records which binaries it tested, and a stand-in build that ignores the
//! migration Lease (as the upstream Azure CCM does) makes the same scenario fail `single-writer`.
//! A path that cannot be run is refused before anything starts, naming the flag. Our binaries
//! with their output thrown away still meet scenario 05 (the harness reads no log to decide),
//! and a cloud-node-manager that exits at start ends the scenario as an error naming it.

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

/// Runs scenario 05 with `ccm` and `cnm` given by path and asserts it met its expectation.
fn meets_05_with(
    artifacts: &std::path::Path,
    ccm: &std::path::Path,
    cnm: &std::path::Path,
) -> Output {
    let out = run(
        artifacts,
        &[
            "--ccm-binary".as_ref(),
            ccm.as_os_str(),
            "--cnm-binary".as_ref(),
            cnm.as_os_str(),
        ],
        &[],
    );
    let (stdout, stderr) = text(&out);
    let all = outcomes(artifacts);
    assert_eq!(all.len(), 1, "{stdout}\n{stderr}");
    let problems = unmet(&all[0]);
    assert!(
        problems.is_empty(),
        "{}\n{stdout}\n{stderr}",
        problems.join("\n")
    );
    out
}

#[test]
fn our_binaries_given_by_path_meet_scenario_05_and_are_recorded() {
    let scratch = Scratch::new("ccm-binary-ours");
    let artifacts = scratch.0.join("build");
    let (ccm, cnm) = (ours("cloud-controller-manager"), ours("cloud-node-manager"));
    let out = meets_05_with(&artifacts, &ccm, &cnm);
    let (stdout, stderr) = text(&out);
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

/// An executable script in `scratch` running `body` (POSIX sh).
fn script(scratch: &Scratch, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = scratch.write(name, &format!("#!/bin/sh\n{body}\n"));
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path
}

#[test]
fn our_binaries_with_their_output_thrown_away_still_meet_scenario_05() {
    let scratch = Scratch::new("ccm-binary-silent");
    let artifacts = scratch.0.join("build");
    let silent = |name: &str| {
        let binary = ours(name);
        script(
            &scratch,
            name,
            &format!("exec {} \"$@\" >/dev/null 2>&1", binary.display()),
        )
    };
    let (ccm, cnm) = (
        silent("cloud-controller-manager"),
        silent("cloud-node-manager"),
    );
    meets_05_with(&artifacts, &ccm, &cnm);
    let log = artifacts
        .join("artifacts/scenarios/05-leader-migration/logs/cloud-controller-manager-0.log");
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(text.trim().is_empty(), "the CCM printed nothing: {text}");
}

#[test]
fn a_cloud_node_manager_exiting_at_start_is_an_error_naming_it() {
    let scratch = Scratch::new("ccm-binary-cnm-exits");
    let artifacts = scratch.0.join("build");
    let cnm = script(
        &scratch,
        "cloud-node-manager",
        "echo \"unknown flag: $1\" >&2; exit 2",
    );
    let mut command = Command::new(env!("CARGO_BIN_EXE_harness"));
    let out = command
        .current_dir(repo_root())
        .args([
            "run",
            "scenarios/01-cold-switch-azure-cni.yaml",
            "--plain",
            "--artifacts",
        ])
        .arg(&artifacts)
        .arg("--cnm-binary")
        .arg(&cnm)
        .output()
        .expect("harness runs");
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    let all = outcomes(&artifacts);
    assert_eq!(all.len(), 1, "{stdout}\n{stderr}");
    let failure = all[0]["failure"].as_str().unwrap_or_default();
    assert!(
        failure.contains("cloud-node-manager-") && failure.contains("exit status: 2"),
        "{failure}"
    );
    assert!(
        failure.contains("unknown flag"),
        "the log tail is quoted: {failure}"
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
