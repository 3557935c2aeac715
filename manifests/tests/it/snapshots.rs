//! Snapshots of the complete output for each mode at three versions.

use ccm_manifests::{KubeVersion, Mode, Options, generate};

/// Every generated file of `o`, concatenated under `==> name <==` headers.
fn render_options(o: &Options) -> String {
    let bundle = generate(o).unwrap();
    bundle
        .files
        .iter()
        .map(|f| format!("==> {} <==\n{}\n", f.name, f.contents))
        .collect()
}

/// The whole bundle for the default options of `mode` at `1.<minor>`.
fn render(mode: Mode, minor: u32) -> String {
    render_options(&Options::new(mode, KubeVersion::from_minor(minor).unwrap()))
}

#[test]
fn in_tree_1_27() {
    insta::assert_snapshot!(render(Mode::InTree, 27));
}

#[test]
fn in_tree_1_28() {
    insta::assert_snapshot!(render(Mode::InTree, 28));
}

#[test]
fn in_tree_1_29() {
    insta::assert_snapshot!(render(Mode::InTree, 29));
}

#[test]
fn out_of_tree_1_27() {
    insta::assert_snapshot!(render(Mode::OutOfTree, 27));
}

#[test]
fn out_of_tree_1_29() {
    insta::assert_snapshot!(render(Mode::OutOfTree, 29));
}

#[test]
fn out_of_tree_1_33() {
    insta::assert_snapshot!(render(Mode::OutOfTree, 33));
}

#[test]
fn out_of_tree_1_36_ha_dual_stack_routes() {
    let mut o = Options::new(Mode::OutOfTree, KubeVersion::from_minor(36).unwrap())
        .with_default_dual_stack();
    o.configure_cloud_routes = true;
    o.leader_migration = true;
    o.replicas = 3;
    let text = render_options(&o);
    insta::assert_snapshot!(text);
}

#[test]
fn out_of_tree_1_33_workload_identity_cloud_config_secret() {
    let mut o = Options::new(Mode::OutOfTree, KubeVersion::from_minor(33).unwrap());
    o.auth = ccm_manifests::AuthMode::WorkloadIdentity;
    let bundle = generate(&o).unwrap();
    let file = |name: &str| bundle.file(name).unwrap().contents.clone();
    insta::assert_snapshot!(format!(
        "==> cloud-config-secret.yaml <==\n{}\n==> azure.json (node) <==\n{}",
        file("cloud-config-secret.yaml"),
        file("azure.json")
    ));
}
