//! `harness manifests` as users run it: the real binary, real files.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::run::harness;
use crate::scratch::Scratch;

fn examples(mode: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../manifests/examples")
        .join(mode)
}

/// `harness manifests generate --mode <mode> --out <out> <extra>`.
fn generate(mode: &str, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "manifests",
        "generate",
        "--mode",
        mode,
        "--out",
        out.to_str().expect("utf-8 scratch path"),
    ];
    args.extend_from_slice(extra);
    harness(&args)
}

/// Runs [`generate`], which must succeed, and lists the file names it wrote, sorted.
fn generated_names(mode: &str, out: &Path, extra: &[&str]) -> Vec<String> {
    let run = generate(mode, out, extra);
    assert!(
        run.status.success(),
        "{mode} {extra:?}: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let mut names: Vec<String> = std::fs::read_dir(out)
        .expect("output directory")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn generate_reproduces_the_checked_in_examples() {
    for mode in ["in-tree", "out-of-tree"] {
        let scratch = Scratch::new(&format!("manifests-{mode}"));
        let out = scratch.0.join("out");
        let names = generated_names(mode, &out, &[]);
        assert!(!names.is_empty());
        for name in names {
            let generated = std::fs::read_to_string(out.join(&name)).unwrap();
            let checked_in =
                std::fs::read_to_string(examples(mode).join(&name)).unwrap_or_default();
            assert!(
                generated == checked_in,
                "{mode}/{name} differs from the checked-in example"
            );
        }
    }
}

#[test]
fn bad_version_lists_accepted_values_and_writes_nothing() {
    let scratch = Scratch::new("manifests-bad-version");
    let out = scratch.0.join("out");
    let run = generate("out-of-tree", &out, &["--kubernetes-version", "1.40"]);
    assert!(!run.status.success());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("1.27 to 1.36"), "{stderr}");
    assert!(!out.exists());
}

#[test]
fn in_tree_on_1_30_is_refused_with_an_explanation() {
    let scratch = Scratch::new("manifests-in-tree-1-30");
    let out = scratch.0.join("out");
    let run = generate("in-tree", &out, &["--kubernetes-version", "1.30"]);
    assert!(!run.status.success());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("deleted in 1.30") && stderr.contains("out-of-tree"),
        "{stderr}"
    );
    assert!(!out.exists());
}

#[test]
fn unknown_mode_lists_accepted_values() {
    let run = generate("hybrid", Path::new("/nonexistent"), &[]);
    assert!(!run.status.success());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("in-tree") && stderr.contains("out-of-tree"),
        "{stderr}"
    );
}

#[test]
fn lint_reports_file_and_container_and_fails() {
    let scratch = Scratch::new("manifests-lint");
    let file = scratch.0.join("kube-apiserver.yaml");
    std::fs::write(
        &file,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: kube-apiserver, namespace: kube-system}\nspec:\n  containers:\n  - name: kube-apiserver\n    image: registry.k8s.io/kube-apiserver:v1.32.0\n    command: [kube-apiserver, --cloud-provider=external, '--enable-admission-plugins=NodeRestriction,PersistentVolumeLabel']\n",
    )
    .unwrap();
    let run = harness(&[
        "manifests",
        "lint",
        file.to_str().unwrap(),
        "--kubernetes-version",
        "1.33",
    ]);
    assert_eq!(run.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        stdout.contains("kube-apiserver.yaml") && stdout.contains("container kube-apiserver"),
        "{stdout}"
    );
    assert!(
        stdout.contains("removed-flag --cloud-provider")
            && stdout.contains("removed-admission-plugin PersistentVolumeLabel"),
        "{stdout}"
    );
}

#[test]
fn lint_passes_on_the_examples() {
    for mode in ["in-tree", "out-of-tree"] {
        let files: Vec<String> = [
            "apiserver.manifest",
            "kube-controller-manager.manifest",
            "kubelet.manifest",
        ]
        .iter()
        .map(|name| examples(mode).join(name).to_string_lossy().into_owned())
        .collect();
        let mut args = vec!["manifests", "lint"];
        args.extend(files.iter().map(String::as_str));
        args.extend(["--kubernetes-version", "1.29"]);
        let run = harness(&args);
        assert!(
            run.status.success(),
            "{mode}: {}",
            String::from_utf8_lossy(&run.stdout)
        );
    }
}

#[test]
fn lint_flags_in_tree_examples_for_1_30() {
    let run = harness(&[
        "manifests",
        "lint",
        examples("in-tree")
            .join("kubelet.manifest")
            .to_str()
            .unwrap(),
        "--kubernetes-version",
        "1.30",
    ]);
    assert_eq!(run.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        stdout.contains("removed-flag-value --cloud-provider=azure"),
        "{stdout}"
    );
    assert!(
        stdout.contains("removed-flag --azure-container-registry-config"),
        "{stdout}"
    );
}

/// The snapshot versions of each mode: every generated manifest passes `harness manifests lint`
/// for the version it was generated for. Leader migration is only accepted where an in-tree
/// kube-controller-manager can take part (in-tree, or out-of-tree up to 1.30).
#[test]
fn generated_manifests_pass_the_lint_for_their_version() {
    let lm: &[&str] = &["--leader-migration"];
    let routes: &[&str] = &["--configure-cloud-routes", "--leader-migration"];
    let cases: [(&str, &str, &[&str]); 7] = [
        ("in-tree", "1.27", lm),
        ("in-tree", "1.28", routes),
        ("in-tree", "1.29", &[]),
        ("out-of-tree", "1.27", lm),
        ("out-of-tree", "1.30", routes),
        ("out-of-tree", "1.34", &[]),
        (
            "out-of-tree",
            "1.36",
            &["--configure-cloud-routes", "--dual-stack"],
        ),
    ];
    for (mode, version, extra) in cases {
        let scratch = Scratch::new(&format!("manifests-lint-{mode}-{version}"));
        let out = scratch.0.join("out");
        let mut args = vec!["--kubernetes-version", version];
        args.extend_from_slice(extra);
        let names = generated_names(mode, &out, &args);
        // Everything with a command line or kubelet settings; azure.json, the credential
        // provider config and the leader-migration config carry no flags.
        let files: Vec<String> = names
            .iter()
            .filter(|name| name.ends_with(".manifest") || *name == "kubelet-config.yaml")
            .map(|name| out.join(name).to_string_lossy().into_owned())
            .collect();
        let expected = if mode == "in-tree" { 5 } else { 7 };
        assert_eq!(files.len(), expected, "{mode} {version}: {files:?}");
        let mut args = vec!["manifests", "lint"];
        args.extend(files.iter().map(String::as_str));
        args.extend(["--kubernetes-version", version]);
        let lint = harness(&args);
        assert!(
            lint.status.success(),
            "{mode} {version}: {}{}",
            String::from_utf8_lossy(&lint.stdout),
            String::from_utf8_lossy(&lint.stderr)
        );
        assert!(
            String::from_utf8_lossy(&lint.stdout)
                .contains(&format!("no findings for Kubernetes {version}")),
            "{mode} {version}"
        );
    }
}

#[test]
fn generate_help_lists_modes_auth_modes_and_the_version_range() {
    let run = harness(&["manifests", "generate", "--help"]);
    assert!(run.status.success());
    let help = String::from_utf8_lossy(&run.stdout);
    for needle in [
        "in-tree",
        "out-of-tree",
        "managed-identity",
        "service-principal",
        "workload-identity",
        "1.27 to 1.36",
        "--cluster-cidr",
        "--leader-migration",
        "--replicas",
        "--node-ipam",
        "oss/v2/kubernetes",
    ] {
        assert!(help.contains(needle), "help lacks {needle}:\n{help}");
    }
}

#[test]
fn bad_options_name_the_option_and_the_accepted_values() {
    let scratch = Scratch::new("manifests-bad-options");
    let out = scratch.0.join("out");
    let cases: [(&[&str], &[&str]); 5] = [
        (
            &["--auth", "password"],
            &["--auth", "managed-identity", "workload-identity"],
        ),
        (
            &["--cluster-cidr", "10.0.0.0/33"],
            &["--cluster-cidr", "10.244.0.0/16"],
        ),
        (&["--replicas", "9"], &["--replicas", "accepted: 1 to 5"]),
        (
            &["--cluster-name", "my cluster"],
            &["--cluster-name", "letters, digits"],
        ),
        (
            &["--cluster-cidr", "10.244.0.0/16,10.245.0.0/16"],
            &["--cluster-cidr", "one IPv4 and one IPv6"],
        ),
    ];
    for (extra, needles) in cases {
        let run = generate("out-of-tree", &out, extra);
        assert!(!run.status.success(), "{extra:?} was accepted");
        let stderr = String::from_utf8_lossy(&run.stderr);
        for needle in needles {
            assert!(
                stderr.contains(needle),
                "{extra:?}: `{needle}` missing in:\n{stderr}"
            );
        }
        assert!(!out.exists(), "{extra:?} wrote files");
    }
}

#[test]
fn lint_accepts_a_kubelet_configuration_with_feature_gates() {
    let scratch = Scratch::new("manifests-lint-kubelet-config");
    let file = scratch.0.join("kubelet-config.yaml");
    std::fs::write(
        &file,
        "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nfeatureGates:\n  GracefulNodeShutdown: true\n",
    )
    .unwrap();
    let run = harness(&[
        "manifests",
        "lint",
        file.to_str().unwrap(),
        "--kubernetes-version",
        "1.30",
    ]);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{stdout}");
    assert!(!stdout.contains("missing-flag"), "{stdout}");
}

#[test]
fn lint_flags_a_non_external_kubelet_cloud_provider_from_1_31() {
    let scratch = Scratch::new("manifests-lint-cloud-provider-value");
    let file = scratch.0.join("10-kubelet.conf");
    std::fs::write(
        &file,
        "[Service]\nExecStart=/usr/bin/kubelet --cloud-provider=gce --image-credential-provider-config=/c --image-credential-provider-bin-dir=/b\n",
    )
    .unwrap();
    let lint = |version: &str| {
        harness(&[
            "manifests",
            "lint",
            file.to_str().unwrap(),
            "--kubernetes-version",
            version,
        ])
    };
    let run = lint("1.31");
    assert_eq!(run.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        stdout.contains("removed-flag-value --cloud-provider=gce"),
        "{stdout}"
    );
    assert!(lint("1.30").status.success());
}

#[test]
fn leader_migration_and_node_ipam_refusals_name_the_option() {
    let scratch = Scratch::new("manifests-refusals");
    let out = scratch.0.join("out");
    let cases: [(&str, &[&str], &[&str]); 4] = [
        (
            "out-of-tree",
            &["--kubernetes-version", "1.31", "--leader-migration"],
            &["--leader-migration", "1.27 to 1.30"],
        ),
        (
            "out-of-tree",
            &["--node-ipam", "kube-controller-manager"],
            &["--node-ipam", "--configure-cloud-routes"],
        ),
        (
            "in-tree",
            &[
                "--configure-cloud-routes",
                "--node-ipam",
                "cloud-controller-manager",
            ],
            &["--node-ipam", "--mode out-of-tree"],
        ),
        (
            "out-of-tree",
            &[
                "--kubernetes-version",
                "1.30",
                "--leader-migration",
                "--configure-cloud-routes",
                "--node-ipam",
                "cloud-controller-manager",
            ],
            &[
                "--node-ipam cloud-controller-manager cannot be combined with --leader-migration",
                "Accepted: --leader-migration with --node-ipam kube-controller-manager",
            ],
        ),
    ];
    for (mode, extra, needles) in cases {
        let run = generate(mode, &out, extra);
        assert!(!run.status.success(), "{extra:?} was accepted");
        let stderr = String::from_utf8_lossy(&run.stderr);
        for needle in needles {
            assert!(
                stderr.contains(needle),
                "{extra:?}: `{needle}` missing in:\n{stderr}"
            );
        }
        assert!(!out.exists(), "{extra:?} wrote files");
    }
}
