//! Every generated file parses as its declared kind with no unknown field, and passes the lint
//! for its own version, across modes, versions and option combinations.

use std::path::Path;

use ccm_manifests::generate::FileKind;
use ccm_manifests::lint::lint_text;
use ccm_manifests::roundtrip::{check_bundle, kinds};
use ccm_manifests::{AuthMode, KubeVersion, Mode, Options, generate};

fn variants() -> Vec<Options> {
    let mut out = Vec::new();
    for version in KubeVersion::all() {
        for mode in [Mode::InTree, Mode::OutOfTree] {
            if mode == Mode::InTree && version.at_least(30) {
                continue;
            }
            out.push(Options::new(mode, version));
            let mut ha = Options::new(mode, version).with_default_dual_stack();
            ha.configure_cloud_routes = true;
            // Leader migration needs an in-tree partner: refused out-of-tree from 1.31.
            ha.leader_migration = mode == Mode::InTree || !version.at_least(31);
            ha.replicas = 3;
            ha.auth = if mode == Mode::OutOfTree {
                AuthMode::WorkloadIdentity
            } else {
                AuthMode::ServicePrincipal
            };
            out.push(ha.clone());
            if mode == Mode::OutOfTree {
                // The other node-IPAM owner.
                ha.node_ipam = Some(ccm_manifests::options::NodeIpam::KubeControllerManager);
                out.push(ha);
            }
        }
    }
    out
}

#[test]
fn every_file_round_trips_through_its_typed_struct() {
    for o in variants() {
        let bundle = generate(&o).unwrap();
        check_bundle(&bundle)
            .unwrap_or_else(|e| panic!("{} {}: {e}", o.mode.dir_name(), o.version));
    }
}

#[test]
fn every_file_passes_the_lint_for_its_version() {
    for o in variants() {
        let bundle = generate(&o).unwrap();
        for f in &bundle.files {
            if matches!(
                f.kind,
                FileKind::CloudConfig
                    | FileKind::Markdown
                    | FileKind::CredentialProviderConfig
                    | FileKind::LeaderMigrationConfiguration
            ) {
                continue;
            }
            let findings = lint_text(Path::new(&f.name), &f.contents, o.version).unwrap();
            assert!(
                findings.is_empty(),
                "{} {} {}: {findings:#?}",
                o.mode.dir_name(),
                o.version,
                f.name
            );
        }
    }
}

#[test]
fn files_hold_the_expected_kinds() {
    let o = Options::new(Mode::OutOfTree, KubeVersion::from_minor(33).unwrap());
    let b = generate(&o).unwrap();
    let k = |name: &str| kinds(b.file(name).unwrap()).unwrap();
    assert_eq!(k("apiserver.manifest"), ["Pod"]);
    assert_eq!(
        k("cloud-controller-manager.manifest"),
        [
            "ServiceAccount",
            "ClusterRole",
            "ClusterRoleBinding",
            "Role",
            "RoleBinding",
            "ClusterRoleBinding",
            "RoleBinding",
            "Deployment",
            "PodDisruptionBudget"
        ]
    );
    assert_eq!(
        k("cloud-node-manager.manifest"),
        [
            "ServiceAccount",
            "ClusterRole",
            "ClusterRoleBinding",
            "ClusterRoleBinding",
            "RoleBinding",
            "DaemonSet"
        ]
    );
}

#[test]
fn in_tree_1_29_sets_both_gates_false_everywhere() {
    let o = Options::new(Mode::InTree, KubeVersion::from_minor(29).unwrap());
    let b = generate(&o).unwrap();
    for name in [
        "apiserver.manifest",
        "kube-controller-manager.manifest",
        "kubelet.manifest",
    ] {
        let text = &b.file(name).unwrap().contents;
        assert!(
            text.contains(
                "DisableCloudProviders=false,DisableKubeletCloudCredentialProviders=false"
            ),
            "{name}"
        );
    }
    let o28 = Options::new(Mode::InTree, KubeVersion::from_minor(28).unwrap());
    assert!(
        !generate(&o28)
            .unwrap()
            .files
            .iter()
            .any(|f| f.contents.contains("DisableCloudProviders"))
    );
}

#[test]
fn out_of_tree_apiserver_never_has_cloud_flags() {
    for version in KubeVersion::all() {
        let b = generate(&Options::new(Mode::OutOfTree, version)).unwrap();
        assert!(
            !b.file("apiserver.manifest")
                .unwrap()
                .contents
                .contains("--cloud-"),
            "{version}"
        );
        let kubelet = &b.file("kubelet.manifest").unwrap().contents;
        assert!(
            kubelet.contains("--cloud-provider=external") && !kubelet.contains("--cloud-config"),
            "{version}"
        );
    }
}

#[test]
fn ccm_probe_port_matches_secure_port_flag() {
    let b = generate(&Options::new(
        Mode::OutOfTree,
        KubeVersion::from_minor(33).unwrap(),
    ))
    .unwrap();
    let text = &b
        .file("cloud-controller-manager.manifest")
        .unwrap()
        .contents;
    assert!(text.contains("--secure-port=10258"));
    assert_eq!(
        text.matches("port: 10258").count(),
        2,
        "liveness and readiness probe on the secure port"
    );
}

#[test]
fn cluster_name_is_identical_in_kcm_and_ccm() {
    let mut o = Options::new(Mode::OutOfTree, KubeVersion::from_minor(30).unwrap());
    o.cluster_name = "prod-weu".into();
    let b = generate(&o).unwrap();
    for name in [
        "kube-controller-manager.manifest",
        "cloud-controller-manager.manifest",
    ] {
        assert!(
            b.file(name)
                .unwrap()
                .contents
                .contains("--cluster-name=prod-weu"),
            "{name}"
        );
    }
}

#[test]
fn no_secret_material_is_generated() {
    let mut o = Options::new(Mode::OutOfTree, KubeVersion::from_minor(33).unwrap());
    o.auth = AuthMode::ServicePrincipal;
    let b = generate(&o).unwrap();
    let azure = &b.file("azure.json").unwrap().contents;
    assert!(azure.contains("\"aadClientSecret\": \"<client-secret>\""));
}
