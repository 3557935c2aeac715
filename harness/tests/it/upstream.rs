//! The upstream Azure CCM and CNM (unmodified binaries of kubernetes-sigs/cloud-provider-azure,
//! `../shared/upstream/`, unpacked by `.ci/run` into `target/upstream/`) through the whole
//! parity suite, with no wrapper: every scenario met, or met as expected for that build
//! (`scenarios/expectations/upstream-7b31c76.yaml`). Skips, saying why, only when the binaries
//! are absent.

use std::path::PathBuf;
use std::process::Command;

use crate::outcomes::{outcomes, repo_root};
use crate::run::text;
use crate::scratch::Scratch;

fn upstream(name: &str) -> Option<PathBuf> {
    let path = repo_root().join("target/upstream").join(name);
    path.is_file().then_some(path)
}

#[test]
fn the_upstream_ccm_meets_the_suite_as_expected_for_its_build() {
    let (Some(ccm), Some(cnm)) = (
        upstream("cloud-controller-manager"),
        upstream("cloud-node-manager"),
    ) else {
        eprintln!(
            "skipped: target/upstream/cloud-controller-manager and cloud-node-manager are absent \
             (.ci/run unpacks them from ../shared/upstream/ when it is there)"
        );
        return;
    };
    let _suite = crate::run::whole_suite();
    let scratch = Scratch::new("upstream-suite");
    let artifacts = scratch.0.join("build");
    let out = Command::new(env!("CARGO_BIN_EXE_harness"))
        .current_dir(repo_root())
        .args(["run", "--plain", "--jobs", "4", "--artifacts"])
        .arg(&artifacts)
        .arg("--ccm-binary")
        .arg(&ccm)
        .arg("--cnm-binary")
        .arg(&cnm)
        .output()
        .expect("harness runs");
    let (stdout, stderr) = text(&out);
    let all = outcomes(&artifacts);
    let files = std::fs::read_dir(repo_root().join("scenarios"))
        .expect("scenarios")
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "yaml"))
        .count();
    assert_eq!(all.len(), files, "{stdout}\n{stderr}");
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("judging by the expectations of kubernetes-sigs/cloud-provider-azure"),
        "{stdout}"
    );
    let by_build = all
        .iter()
        .filter(|o| o.get("expectedForBuild").is_some())
        .count();
    assert!(by_build >= 1, "{stdout}");
}
