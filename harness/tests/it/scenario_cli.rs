//! `harness scenarios validate` through the real binary: OK lines for good files, file, line, field
//! and accepted values for bad ones, and a failing exit status.

use std::path::Path;

use crate::run::{harness, text};
use crate::scratch::Scratch;

const GOOD: &str = "name: good
topology: {file: fakes/examples/small.yaml}
kubernetesVersion: \"1.29\"
clusterName: k8s
switch: {procedure: cold}
";

/// A scratch directory laid out like the repository (topology files resolve against it).
fn repo_like() -> Scratch {
    let dir = Scratch::new("scenarios");
    let small = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fakes/examples/small.yaml");
    let small = std::fs::read_to_string(small).expect("fakes/examples/small.yaml");
    dir.write("fakes/examples/small.yaml", &small);
    dir.write("scenarios/good.yaml", GOOD);
    dir
}

#[test]
fn shipped_scenarios_are_valid() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    let out = harness(&["scenarios", "validate", dir.to_str().expect("utf-8 path")]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(stdout.contains("01-cold-switch-azure-cni.yaml"), "{stdout}");
    assert!(
        stdout.contains("expect fail: ingress-ip-stable"),
        "{stdout}"
    );
    assert!(stdout.contains("scenario files valid"), "{stdout}");
}

#[test]
fn a_broken_file_names_file_line_field_and_accepted_values() {
    let dir = repo_like();
    let bad = dir.write(
        "scenarios/bad.yaml",
        &GOOD
            .replace("name: good", "name: bad")
            .replace("switch: {procedure: cold}", "switch: {procedure: cold}\nnetwork: {mode: kubenet}\nexpect: {fail: single-writer}\nchecks: [no-orphans]"),
    );
    let typo = dir.write(
        "scenarios/typo.yaml",
        &GOOD
            .replace("name: good", "name: typo")
            .replace("procedure: cold", "procedure: warm"),
    );
    let out = harness(&[
        "scenarios",
        "validate",
        dir.0.join("scenarios").to_str().expect("utf-8"),
    ]);
    let (stdout, stderr) = text(&out);
    assert!(!out.status.success(), "{stdout}");
    assert!(
        stderr.contains("2 of 3 scenario files have errors"),
        "{stderr}"
    );
    assert!(
        stdout.contains("good.yaml (17 checks, expect pass)"),
        "{stdout}"
    );
    let bad = bad.display().to_string();
    assert!(
        stdout.contains(&format!("{bad}:6: network.clusterCIDR: required with network.mode kubenet (accepted: an IPv4 CIDR")),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("{bad}:7: expect.fail: 'single-writer' does not run in this scenario, so it cannot fail (running: no-orphans)")),
        "{stdout}"
    );
    let typo = typo.display().to_string();
    let line = stdout
        .lines()
        .find(|l| l.contains(&typo))
        .unwrap_or_else(|| panic!("no line for {typo}: {stdout}"));
    assert!(line.starts_with(&format!("error {typo}:5:")), "{line}");
    assert!(
        line.contains(": switch.procedure: "),
        "names the field: {line}"
    );
    for accepted in ["warm", "cold", "quiesce", "leader-migration", "rollback"] {
        assert!(line.contains(accepted), "{line}");
    }
}

#[test]
fn an_empty_directory_fails() {
    let dir = Scratch::new("scenarios-empty");
    let out = harness(&["scenarios", "validate", dir.0.to_str().expect("utf-8")]);
    let (_, stderr) = text(&out);
    assert!(!out.status.success());
    assert!(
        stderr.contains("no scenario files (*.yaml, *.yml) in"),
        "{stderr}"
    );
}

#[test]
fn a_missing_file_fails() {
    let dir = Scratch::new("scenarios-missing");
    let missing = dir.0.join("nope.yaml");
    let out = harness(&["scenarios", "validate", missing.to_str().expect("utf-8")]);
    let (stdout, _) = text(&out);
    assert!(!out.status.success());
    assert!(
        stdout.contains("nope.yaml: cannot read scenario file"),
        "{stdout}"
    );
}
