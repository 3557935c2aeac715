//! `azure-fakes kube-apiserver`: the real binary serves a kubeconfig that `/usr/bin/kubectl`
//! accepts, and with `--data` a restart (SIGTERM, then start again) keeps the objects.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// A running `azure-fakes kube-apiserver` and the kubeconfig it wrote.
struct ApiServer {
    child: Child,
}

impl ApiServer {
    /// Starts the binary and waits for the "kubeconfig written" line.
    fn start(dir: &Path) -> ApiServer {
        let mut child = Command::new(env!("CARGO_BIN_EXE_azure-fakes"))
            .arg("kube-apiserver")
            .args(["--listen", "127.0.0.1:0", "--kubeconfig-out"])
            .arg(dir.join("kubeconfig"))
            .arg("--data")
            .arg(dir.join("objects.json"))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn azure-fakes kube-apiserver");
        let stdout = child.stdout.take().expect("stdout");
        let mut printed = Vec::new();
        for line in BufReader::new(stdout).lines() {
            let line = line.expect("read stdout");
            let done = line.contains("kubeconfig written to");
            printed.push(line);
            if done {
                break;
            }
        }
        assert!(
            printed
                .iter()
                .any(|l| l.contains("serving on https://127.0.0.1:")),
            "URL not printed: {printed:?}"
        );
        ApiServer { child }
    }

    /// Stops it the way an operator would (SIGTERM) and waits for a clean exit.
    fn terminate(mut self) {
        let pid = self.child.id().to_string();
        let status = Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .expect("kill");
        assert!(status.success());
        let exit = self.child.wait().expect("wait");
        assert!(exit.success(), "exit after SIGTERM: {exit:?}");
    }
}

impl Drop for ApiServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs kubectl against the written kubeconfig, feeding `stdin`.
fn kubectl(dir: &Path, args: &[&str], stdin: Option<&str>) -> (bool, String) {
    let mut child = Command::new("kubectl")
        .arg("--kubeconfig")
        .arg(dir.join("kubeconfig"))
        .arg("--request-timeout=20s")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn kubectl");
    if let Some(input) = stdin {
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(input.as_bytes())
            .expect("write stdin");
    } else {
        drop(child.stdin.take());
    }
    let output = child.wait_with_output().expect("kubectl output");
    let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&output.stderr));
    (output.status.success(), text)
}

const CONFIG_MAP: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: migration-state
  namespace: kube-system
data:
  phase: in-tree
";

#[test]
fn kubectl_works_against_the_binary_and_state_survives_a_restart() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = ApiServer::start(dir.path());

    let (ok, out) = kubectl(dir.path(), &["apply", "-f", "-"], Some(CONFIG_MAP));
    assert!(ok, "apply: {out}");
    assert!(out.contains("configmap/migration-state created"), "{out}");
    let (ok, before) = kubectl(
        dir.path(),
        &[
            "get",
            "configmap/migration-state",
            "-n",
            "kube-system",
            "-o",
            "jsonpath={.metadata.uid} {.data.phase}",
        ],
        None,
    );
    assert!(ok, "get: {before}");
    assert!(before.ends_with(" in-tree"), "{before}");

    server.terminate();
    let (ok, out) = kubectl(dir.path(), &["get", "namespaces"], None);
    assert!(!ok, "a stopped server must not answer: {out}");

    let _server = ApiServer::start(dir.path());
    let (ok, after) = kubectl(
        dir.path(),
        &[
            "get",
            "configmap/migration-state",
            "-n",
            "kube-system",
            "-o",
            "jsonpath={.metadata.uid} {.data.phase}",
        ],
        None,
    );
    assert!(ok, "get after restart: {after}");
    assert_eq!(after, before, "same object (uid and data) after restart");
}

#[test]
fn bad_service_cidr_exits_non_zero_naming_the_flag() {
    let output = Command::new(env!("CARGO_BIN_EXE_azure-fakes"))
        .args(["kube-apiserver", "--service-cidr", "10.0.0.0/99"])
        .output()
        .expect("run azure-fakes");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--service-cidr"), "{stderr}");
}
