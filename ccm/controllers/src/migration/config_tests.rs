//! Decoding and validation of `LeaderMigrationConfiguration` files.

use std::path::Path;

use proptest::prelude::*;

use super::*;

const FILE: &str = "/etc/leadermigration.conf";

fn parse(text: &str) -> Result<LeaderMigrationConfig, MigrationConfigError> {
    LeaderMigrationConfig::parse(text, Path::new(FILE))
}

fn error(text: &str) -> String {
    match parse(text) {
        Ok(config) => panic!("accepted: {config:?}"),
        Err(err) => err.to_string(),
    }
}

#[test]
fn every_api_version_decodes_the_upstream_doc_examples() {
    for version in ["v1alpha1", "v1beta1"] {
        let text = format!(
            "kind: LeaderMigrationConfiguration\napiVersion: controllermanager.config.k8s.io/{version}\nleaderName: cloud-provider-extraction-migration\nresourceLock: leases\ncontrollerLeaders:\n  - name: route\n    component: kube-controller-manager\n  - name: service\n    component: kube-controller-manager\n  - name: cloud-node-lifecycle\n    component: kube-controller-manager\n"
        );
        let config = parse(&text).unwrap();
        assert_eq!(config.leader_name, "cloud-provider-extraction-migration");
        assert_eq!(config.controller_leaders.len(), 3);
        assert_eq!(config.source, ConfigSource::File(FILE.into()));
    }
    let v1 = "kind: LeaderMigrationConfiguration\napiVersion: controllermanager.config.k8s.io/v1\nleaderName: cloud-provider-extraction-migration\ncontrollerLeaders:\n  - name: route-controller\n    component: \"*\"\n  - name: service-controller\n    component: \"*\"\n";
    let config = parse(v1).unwrap();
    assert_eq!(config.controller_leaders[0].component, "*");
}

#[test]
fn json_is_accepted() {
    let text = r#"{"kind":"LeaderMigrationConfiguration","apiVersion":"controllermanager.config.k8s.io/v1","leaderName":"x","controllerLeaders":[{"name":"route","component":"cloud-controller-manager"}]}"#;
    let config = parse(text).unwrap();
    assert_eq!(config.leader_name, "x");
    assert_eq!(
        config.controller_leaders,
        vec![ControllerLeader {
            name: "route".into(),
            component: "cloud-controller-manager".into()
        }]
    );
}

#[test]
fn v1_accepts_resource_lock_leases_as_in_the_docs() {
    let text = "kind: LeaderMigrationConfiguration\napiVersion: controllermanager.config.k8s.io/v1\nleaderName: m\nresourceLock: leases\ncontrollerLeaders: []\n";
    assert!(parse(text).is_ok());
}

#[test]
fn built_in_default_is_upstreams() {
    let config = LeaderMigrationConfig::built_in_default();
    assert_eq!(config.leader_name, "cloud-provider-extraction-migration");
    let names: Vec<_> = config
        .controller_leaders
        .iter()
        .map(|l| (l.name.as_str(), l.component.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("route", "*"),
            ("service", "*"),
            ("cloud-node-lifecycle", "*")
        ]
    );
    assert_eq!(config.source, ConfigSource::BuiltInDefault);
}

#[test]
fn invalid_configs_name_the_file_and_field() {
    let head =
        "kind: LeaderMigrationConfiguration\napiVersion: controllermanager.config.k8s.io/v1beta1\n";
    let cases = [
        ("missing_leader_name", format!("{head}resourceLock: leases\ncontrollerLeaders: []\n")),
        ("empty_leader_name", format!("{head}leaderName: \"\"\ncontrollerLeaders: []\n")),
        ("unknown_lock", format!("{head}leaderName: m\nresourceLock: endpoints\n")),
        (
            "v1_unknown_lock",
            "kind: LeaderMigrationConfiguration\napiVersion: controllermanager.config.k8s.io/v1\nleaderName: m\nresourceLock: configmaps\n".to_string(),
        ),
        (
            "empty_component",
            format!("{head}leaderName: m\ncontrollerLeaders:\n  - name: route\n    component: kube-controller-manager\n  - name: service\n    component: \"\"\n"),
        ),
        (
            "missing_name",
            format!("{head}leaderName: m\ncontrollerLeaders:\n  - component: \"*\"\n"),
        ),
        (
            "unknown_field",
            format!("{head}leaderName: m\nleaderNmae: typo\n"),
        ),
        (
            "unknown_entry_field",
            format!("{head}leaderName: m\ncontrollerLeaders:\n  - name: route\n    component: \"*\"\n    lease: x\n"),
        ),
        (
            "wrong_version",
            "kind: LeaderMigrationConfiguration\napiVersion: controllermanager.config.k8s.io/v2\nleaderName: m\n".to_string(),
        ),
        ("wrong_kind", "kind: KubeControllerManagerConfiguration\napiVersion: controllermanager.config.k8s.io/v1\nleaderName: m\n".to_string()),
        (
            "duplicate_controller_across_releases",
            format!("{head}leaderName: m\ncontrollerLeaders:\n  - name: route\n    component: kube-controller-manager\n  - name: route-controller\n    component: cloud-controller-manager\n"),
        ),
        ("wrong_type", format!("{head}leaderName: m\ncontrollerLeaders: route\n")),
        ("not_yaml", "leaderName: [unclosed\n".to_string()),
    ];
    for (name, text) in cases {
        let message = error(&text);
        assert!(message.contains(FILE), "{name}: {message}");
        insta::assert_snapshot!(name, message);
    }
}

#[test]
fn unreadable_file_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("absent.yaml");
    let err = LeaderMigrationConfig::load(&missing).unwrap_err();
    assert!(matches!(err, MigrationConfigError::Read { .. }));
    assert!(err.to_string().contains("absent.yaml"), "{err}");
}

proptest! {
    #[test]
    fn parser_never_panics(text in "\\PC{0,200}") {
        let _ = parse(&text);
    }

    #[test]
    fn parser_never_panics_on_near_valid_yaml(
        version in prop::sample::select(vec!["v1", "v1beta1", "v1alpha1", "v9", ""]),
        leader in "[a-z*\"-]{0,12}",
        lock in prop::sample::select(vec!["leases", "endpoints", "", "[", "{}"]),
        name in "[a-z*:\\[\\]-]{0,12}",
        component in "[a-z*\"{}-]{0,24}",
    ) {
        let text = format!(
            "kind: LeaderMigrationConfiguration\napiVersion: controllermanager.config.k8s.io/{version}\nleaderName: {leader}\nresourceLock: {lock}\ncontrollerLeaders:\n  - name: {name}\n    component: {component}\n"
        );
        if let Ok(config) = parse(&text) {
            prop_assert!(!config.leader_name.is_empty());
            prop_assert!(config.controller_leaders.iter().all(|l| !l.name.is_empty() && !l.component.is_empty()));
        }
    }
}
