//! `azure-fakes kube-apiserver`: the real binary serves a kubeconfig that `/usr/bin/kubectl`
//! accepts, and with `--data` a restart (SIGTERM, then start again) keeps the objects.

use std::process::Command;

use crate::api_server::{ApiServer, kubectl};

const CONFIG_MAP: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: migration-state
  namespace: kube-system
data:
  phase: in-tree
";

/// `kubectl get` of the ConfigMap's uid and phase, read before and after the restart.
const GET_STATE: &[&str] = &[
    "get",
    "configmap/migration-state",
    "-n",
    "kube-system",
    "-o",
    "jsonpath={.metadata.uid} {.data.phase}",
];

#[test]
fn kubectl_works_against_the_binary_and_state_survives_a_restart() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = ApiServer::start(dir.path());

    let (ok, out) = kubectl(dir.path(), &["apply", "-f", "-"], Some(CONFIG_MAP));
    assert!(ok, "apply: {out}");
    assert!(out.contains("configmap/migration-state created"), "{out}");
    let (ok, before) = kubectl(dir.path(), GET_STATE, None);
    assert!(ok, "get: {before}");
    assert!(before.ends_with(" in-tree"), "{before}");

    server.terminate();
    let (ok, out) = kubectl(dir.path(), &["get", "namespaces"], None);
    assert!(!ok, "a stopped server must not answer: {out}");

    let _server = ApiServer::start(dir.path());
    let (ok, after) = kubectl(dir.path(), GET_STATE, None);
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
