//! Snapshots of the complete output for each mode at three versions chosen for what changes
//! between them, plus the HA and workload-identity variants.
//!
//! * in-tree 1.27: leader migration with the pre-1.28 controller names (`service`, `route`, ...);
//! * in-tree 1.28: leader migration with canonical names, routes and node IPAM in KCM;
//! * in-tree 1.29: both `Disable*CloudProvider*` gates set to false everywhere;
//! * out-of-tree 1.27: CCM side of leader migration with the pre-1.28 names, `oss/kubernetes`;
//! * out-of-tree 1.30: the last version that accepts leader migration (canonical names, with
//!   the route controller), routes with node IPAM kept in kube-controller-manager;
//! * out-of-tree 1.34: default options on the `oss/v2/kubernetes` registry, kubelet without any
//!   cloud flag but `--cloud-provider=external`;
//! * out-of-tree 1.36: HA, dual-stack, routes with node IPAM in the CCM.

use ccm_manifests::options::NodeIpam;
use ccm_manifests::{AuthMode, KubeVersion, Mode, Options, generate};

fn v(minor: u32) -> KubeVersion {
    KubeVersion::from_minor(minor).expect("supported minor")
}

fn with(mut o: Options, edit: impl FnOnce(&mut Options)) -> Options {
    edit(&mut o);
    o
}

/// Every snapshotted option set, by snapshot name (shared with the kubectl dry-run test).
pub fn cases() -> Vec<(&'static str, Options)> {
    vec![
        (
            "in_tree_1_27_leader_migration",
            with(Options::new(Mode::InTree, v(27)), |o| {
                o.leader_migration = true
            }),
        ),
        (
            "in_tree_1_28_leader_migration_routes",
            with(Options::new(Mode::InTree, v(28)), |o| {
                o.leader_migration = true;
                o.configure_cloud_routes = true;
            }),
        ),
        ("in_tree_1_29", Options::new(Mode::InTree, v(29))),
        (
            "out_of_tree_1_27_leader_migration",
            with(Options::new(Mode::OutOfTree, v(27)), |o| {
                o.leader_migration = true
            }),
        ),
        (
            "out_of_tree_1_30_leader_migration_kcm_ipam",
            with(Options::new(Mode::OutOfTree, v(30)), |o| {
                o.leader_migration = true;
                o.configure_cloud_routes = true;
                o.node_ipam = Some(NodeIpam::KubeControllerManager);
            }),
        ),
        ("out_of_tree_1_34", Options::new(Mode::OutOfTree, v(34))),
        (
            "out_of_tree_1_36_ha_dual_stack_routes",
            with(
                Options::new(Mode::OutOfTree, v(36)).with_default_dual_stack(),
                |o| {
                    o.configure_cloud_routes = true;
                    o.replicas = 3;
                },
            ),
        ),
    ]
}

/// Every generated file of `o`, concatenated under `==> name <==` headers.
fn render_options(o: &Options) -> String {
    let bundle = generate(o).expect("snapshot options are valid");
    bundle
        .files
        .iter()
        .map(|f| format!("==> {} <==\n{}\n", f.name, f.contents))
        .collect()
}

fn case(name: &str) -> String {
    let (_, o) = cases()
        .into_iter()
        .find(|(n, _)| *n == name)
        .expect("case listed");
    render_options(&o)
}

#[test]
fn in_tree_1_27_leader_migration() {
    insta::assert_snapshot!(case("in_tree_1_27_leader_migration"));
}

#[test]
fn in_tree_1_28_leader_migration_routes() {
    insta::assert_snapshot!(case("in_tree_1_28_leader_migration_routes"));
}

#[test]
fn in_tree_1_29() {
    insta::assert_snapshot!(case("in_tree_1_29"));
}

#[test]
fn out_of_tree_1_27_leader_migration() {
    insta::assert_snapshot!(case("out_of_tree_1_27_leader_migration"));
}

#[test]
fn out_of_tree_1_30_leader_migration_kcm_ipam() {
    insta::assert_snapshot!(case("out_of_tree_1_30_leader_migration_kcm_ipam"));
}

#[test]
fn out_of_tree_1_34() {
    insta::assert_snapshot!(case("out_of_tree_1_34"));
}

#[test]
fn out_of_tree_1_36_ha_dual_stack_routes() {
    insta::assert_snapshot!(case("out_of_tree_1_36_ha_dual_stack_routes"));
}

#[test]
fn out_of_tree_1_33_workload_identity_cloud_config_secret() {
    let mut o = Options::new(Mode::OutOfTree, v(33));
    o.auth = AuthMode::WorkloadIdentity;
    let bundle = generate(&o).expect("valid options");
    let file = |name: &str| bundle.file(name).expect("file generated").contents.clone();
    insta::assert_snapshot!(format!(
        "==> cloud-config-secret.yaml <==\n{}\n==> azure.json (node) <==\n{}",
        file("cloud-config-secret.yaml"),
        file("azure.json")
    ));
}
