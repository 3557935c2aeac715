//! Command-line failures: a bad topology or faults file exits non-zero naming file, line and field.

use std::process::Command;

fn run(args: &[&str]) -> (i32, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_azure-fakes"))
        .args(args)
        .output()
        .expect("run azure-fakes");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn bad_topology_exits_non_zero_naming_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let topology = dir.path().join("broken.yaml");
    let small = std::fs::read_to_string(crate::support::small_topology()).unwrap();
    std::fs::write(
        &topology,
        small.replace("location: eastus", "location: eastus\nlocaton: westus"),
    )
    .unwrap();
    let tls = dir.path().join("tls");
    let (code, stderr) = run(&[
        "serve",
        "--topology",
        topology.to_str().unwrap(),
        "--listen",
        "127.0.0.1:0",
        "--tls-dir",
        tls.to_str().unwrap(),
    ]);
    assert_ne!(code, 0);
    assert!(stderr.contains("broken.yaml"), "{stderr}");
    assert!(stderr.contains("locaton"), "{stderr}");
    assert!(stderr.contains(":5:"), "line of the bad field: {stderr}");
}

#[test]
fn missing_topology_and_bad_faults_file_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let tls = dir.path().join("tls");
    let (code, stderr) = run(&[
        "serve",
        "--topology",
        "/nonexistent/t.yaml",
        "--listen",
        "127.0.0.1:0",
        "--tls-dir",
        tls.to_str().unwrap(),
    ]);
    assert_ne!(code, 0);
    assert!(stderr.contains("/nonexistent/t.yaml"), "{stderr}");
    let faults = dir.path().join("faults.yaml");
    std::fs::write(&faults, "rules:\n- path: /x\n  fault: {kind: explode}\n").unwrap();
    let small = crate::support::small_topology();
    let (code, stderr) = run(&[
        "serve",
        "--topology",
        small.to_str().unwrap(),
        "--listen",
        "127.0.0.1:0",
        "--tls-dir",
        tls.to_str().unwrap(),
        "--faults",
        faults.to_str().unwrap(),
    ]);
    assert_ne!(code, 0);
    assert!(
        stderr.contains("faults.yaml") && stderr.contains("explode"),
        "{stderr}"
    );
    let (code, stderr) = run(&[
        "serve",
        "--topology",
        "t.yaml",
        "--tls-dir",
        "d",
        "--read-bucket",
        "x",
    ]);
    assert_eq!(code, 2);
    assert!(stderr.contains("SIZE/REFILL_PER_SEC"), "{stderr}");
}

#[test]
fn a_bad_retry_after_names_the_accepted_values() {
    let (code, stderr) = run(&["serve", "--retry-after", "soon"]);
    assert_ne!(code, 0);
    assert!(stderr.contains("--retry-after"), "{stderr}");
    assert!(stderr.contains("or none"), "{stderr}");
}
