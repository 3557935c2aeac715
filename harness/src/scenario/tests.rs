//! Tests of the whole pipeline: the shipped scenarios load, bad files give every problem with line,
//! field and accepted values, and plans are stable (insta snapshots).

use super::*;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("harness sits in the workspace")
        .to_path_buf()
}

/// A minimal valid scenario; tests append or replace lines.
const BASE: &str = "name: t
topology: {file: fakes/examples/small.yaml}
kubernetesVersion: \"1.29\"
clusterName: k8s
switch:
  procedure: cold
";

fn load_text(text: &str) -> Result<Scenario, ScenarioError> {
    load_str(text, "t.yaml", Some(&repo()))
}

fn problems(text: &str) -> Vec<Problem> {
    match load_text(text) {
        Err(ScenarioError::Invalid { problems, .. }) => problems,
        other => panic!("expected validation problems, got {other:?}"),
    }
}

fn only_problem(text: &str) -> Problem {
    let mut p = problems(text);
    assert_eq!(p.len(), 1, "{p:?}");
    p.remove(0)
}

#[test]
fn every_shipped_scenario_loads() {
    let all = load_all(&repo().join("scenarios")).unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<&str> = all.iter().map(Scenario::name).collect();
    for n in [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 19] {
        let prefix = format!("{n:02}-");
        assert!(
            names.iter().any(|s| s.starts_with(&prefix)),
            "no scenario {n} in {names:?}"
        );
    }
    for fault in [
        "fault-429-storm",
        "fault-5xx-lro-failed",
        "fault-ccm-sigkill",
        "fault-apiserver-restart",
    ] {
        assert!(names.contains(&fault), "{fault} missing");
    }
    let negatives = all
        .iter()
        .filter(|s| matches!(s.expect, Expect::Fail(_)))
        .count();
    assert!(negatives >= 14, "only {negatives} negative scenarios");
    for s in &all {
        if let Expect::Fail(check) = s.expect {
            assert!(s.checks.contains(&check), "{}", s.name());
        }
        // The plan step accepts every shipped scenario and keeps its expectation.
        assert_eq!(plan(s).expect, s.expect);
    }
}

#[test]
fn the_readme_example_is_valid() {
    let readme = std::fs::read_to_string(repo().join("scenarios/README.md")).unwrap();
    let start = readme.find("```yaml\n").expect("a yaml block") + "```yaml\n".len();
    let block = &readme[start..];
    let block = &block[..block.find("```").expect("closed block")];
    let s = load_str(block, "README.md", Some(&repo())).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.name(), "09-node-churn");
    assert!(!s.checks.contains(&CheckName::ArmCallBudget));
}

#[test]
fn defaults_run_every_check_but_routes_on_azure_cni() {
    let s = load_text(BASE).unwrap();
    assert_eq!(s.expect, Expect::Pass);
    let expected: Vec<CheckName> = CheckName::ALL
        .into_iter()
        .filter(|c| *c != CheckName::RoutesStable)
        .collect();
    assert_eq!(s.checks, expected);
    let kubenet = format!("{BASE}network: {{mode: kubenet, clusterCIDR: 10.244.0.0/16}}\n");
    assert!(
        load_text(&kubenet)
            .unwrap()
            .checks
            .contains(&CheckName::RoutesStable)
    );
}

#[test]
fn unknown_field_names_line_field_and_accepted_fields() {
    let text = BASE.replace(
        "  procedure: cold\n",
        "  procedure: cold\n  ccmReplica: 2\n",
    );
    let err = load_text(&text).unwrap_err();
    let ScenarioError::Syntax {
        line,
        ref message,
        ref field,
        ..
    } = err
    else {
        panic!("{err:?}")
    };
    assert_eq!(line, 7);
    assert_eq!(field.as_deref(), Some("switch.ccmReplica"));
    assert!(message.contains("ccmReplica"), "{message}");
    assert!(
        message.contains("ccmReplicas"),
        "accepted fields listed: {message}"
    );
    assert!(err.to_string().starts_with("t.yaml:7:"), "{err}");
}

#[test]
fn unknown_enum_value_lists_the_accepted_values() {
    let text = BASE.replace("procedure: cold", "procedure: warm");
    let message = load_text(&text).unwrap_err().to_string();
    assert!(
        message.starts_with("t.yaml:6:14: switch.procedure: "),
        "{message}"
    );
    for accepted in ["cold", "quiesce", "leader-migration", "rollback"] {
        assert!(message.contains(accepted), "{message}");
    }
    let check = format!("{BASE}checks: [provider-id]\n");
    let message = load_text(&check).unwrap_err().to_string();
    assert!(message.contains("provider-id-stable"), "{message}");
}

#[test]
fn wrong_types_name_the_field() {
    let text = BASE.replace("procedure: cold", "procedure: quiesce\n  kcmReplicas: two");
    let message = load_text(&text).unwrap_err().to_string();
    assert!(
        message.starts_with("t.yaml:7:16: switch.kcmReplicas: "),
        "{message}"
    );
    let text = format!(
        "{BASE}workload:\n  services:\n    - name: a\n      ports: [{{port: 80, protocol: SCTP}}]\n"
    );
    let message = load_text(&text).unwrap_err().to_string();
    assert!(
        message.contains(": workload.services[0].ports[0].protocol: "),
        "{message}"
    );
    assert!(
        message.contains("TCP") && message.contains("UDP"),
        "{message}"
    );
}

#[test]
fn bad_duration_names_the_accepted_forms() {
    let message = load_text(&format!("{BASE}budgets: {{downtime: 30 sec}}\n"))
        .unwrap_err()
        .to_string();
    assert!(message.contains("t.yaml:7:"), "{message}");
    assert!(message.contains("budgets.downtime: "), "{message}");
    assert!(message.contains("accepted: <integer>ms"), "{message}");
}

#[test]
fn version_outside_the_supported_range_is_refused() {
    let p = only_problem(&BASE.replace("\"1.29\"", "\"1.27\""));
    assert_eq!((p.line, p.field.as_str()), (Some(3), "kubernetesVersion"));
    assert!(
        p.message.contains("accepted: 1.28 to 1.33"),
        "{}",
        p.message
    );
    // An unquoted 1.30 is still the string the user wrote.
    assert_eq!(
        load_text(&BASE.replace("\"1.29\"", "1.30"))
            .unwrap()
            .version
            .minor(),
        30
    );
}

#[test]
fn kubenet_needs_a_cluster_cidr() {
    let p = only_problem(&format!("{BASE}network: {{mode: kubenet}}\n"));
    assert_eq!(p.field, "network.clusterCIDR");
    assert!(
        p.message.contains("required with network.mode kubenet"),
        "{}",
        p.message
    );
    assert_eq!(p.line, Some(7));
}

#[test]
fn kubenet_fields_are_refused_on_azure_cni_and_masks_checked() {
    let p = problems(&format!("{BASE}network: {{clusterCIDR: 10.244.0.0/16}}\n"));
    assert_eq!(p[0].field, "network.clusterCIDR");
    assert!(p[0].message.contains("only for network.mode kubenet"));
    let p = only_problem(&format!(
        "{BASE}network: {{mode: kubenet, clusterCIDR: 10.244.0.0/16, nodeCIDRMaskSizeIPv4: 8}}\n"
    ));
    assert_eq!(p.field, "network.nodeCIDRMaskSizeIPv4");
    assert!(p.message.contains("accepted: 16 to 32"), "{}", p.message);
}

#[test]
fn rollback_only_up_to_the_last_in_tree_release() {
    let text = BASE
        .replace("\"1.29\"", "\"1.30\"")
        .replace("procedure: cold", "procedure: rollback");
    let p = only_problem(&text);
    assert_eq!((p.line, p.field.as_str()), (Some(6), "switch.procedure"));
    assert!(
        p.message
            .contains("accepted with this version: cold, quiesce"),
        "{}",
        p.message
    );
    assert!(load_text(&text.replace("\"1.30\"", "\"1.29\"")).is_ok());
}

#[test]
fn leader_migration_needs_replicas() {
    let text = BASE.replace(
        "procedure: cold",
        "procedure: leader-migration\n  kcmReplicas: 0\n  ccmReplicas: 0",
    );
    let p = problems(&text);
    let fields: Vec<&str> = p.iter().map(|p| p.field.as_str()).collect();
    assert_eq!(fields, ["switch.kcmReplicas", "switch.ccmReplicas"]);
    assert!(p.iter().all(|p| p.message.contains("at least 1")));
    let cold = BASE.replace("procedure: cold", "procedure: cold\n  kcmReplicas: 2");
    assert!(
        only_problem(&cold)
            .message
            .contains("only for procedure quiesce or leader-migration")
    );
}

#[test]
fn expect_fail_must_name_a_check_that_runs() {
    let text = format!("{BASE}checks: [no-orphans]\nexpect: {{fail: single-writer}}\n");
    let p = only_problem(&text);
    assert_eq!((p.line, p.field.as_str()), (Some(8), "expect.fail"));
    assert!(
        p.message.contains("'single-writer' does not run"),
        "{}",
        p.message
    );
    assert!(p.message.contains("running: no-orphans"), "{}", p.message);
    let skipped = format!("{BASE}skipChecks: [single-writer]\nexpect: {{fail: single-writer}}\n");
    assert_eq!(only_problem(&skipped).field, "expect.fail");
}

#[test]
fn budgets_only_for_checks_that_run_and_take_one() {
    let p = only_problem(&format!(
        "{BASE}checks: [no-orphans]\nbudgets: {{downtime: 5s}}\n"
    ));
    assert_eq!(p.field, "budgets.downtime");
    assert!(
        p.message.contains("check 'downtime' does not run"),
        "{}",
        p.message
    );
    // A budget for a check that takes none is not a field at all: serde lists the accepted ones.
    let message = load_text(&format!("{BASE}budgets: {{labelsEqual: 1}}\n"))
        .unwrap_err()
        .to_string();
    assert!(message.contains("armCallsPerNode"), "{message}");
}

#[test]
fn duplicate_services_and_bad_ports_are_reported() {
    let text = format!(
        "{BASE}workload:\n  services:\n    - {{name: web, ports: [{{port: 80}}]}}\n    - {{name: web, ports: [{{port: 80}}, {{port: 81}}], loadBalancerIP: not-an-ip}}\n"
    );
    let p = problems(&text);
    let fields: Vec<&str> = p.iter().map(|p| p.field.as_str()).collect();
    assert_eq!(
        fields,
        [
            "workload.services[1].name",
            "workload.services[1].ports[0].name",
            "workload.services[1].ports[1].name",
            "workload.services[1].loadBalancerIP",
        ]
    );
    assert!(p[0].message.contains("duplicate service 'default/web'"));
    assert_eq!(p[0].line, Some(10));
}

#[test]
fn service_phases_are_ordered() {
    let text = format!(
        "{BASE}workload:\n  services:\n    - name: web\n      ports: [{{port: 80}}]\n      create: after\n      delete: during\n      updates: [{{phase: before, annotations: {{a: b}}}}]\n"
    );
    let fields: Vec<String> = problems(&text).into_iter().map(|p| p.field).collect();
    assert_eq!(
        fields,
        [
            "workload.services[0].updates[0].phase",
            "workload.services[0].delete"
        ]
    );
}

#[test]
fn churn_steps_take_exactly_one_action() {
    let text = format!(
        "{BASE}workload:\n  nodeChurn:\n    - phase: during\n      stopKubelet: {{node: k8s-master-0}}\n      startKubelet: {{node: k8s-master-0}}\n"
    );
    let p = only_problem(&text);
    assert_eq!(p.field, "workload.nodeChurn[0]");
    assert!(
        p.message.contains("exactly one of scaleSet, addVm"),
        "{}",
        p.message
    );
}

#[test]
fn topology_file_must_exist() {
    let p = only_problem(&BASE.replace("small.yaml", "tiny.yaml"));
    assert_eq!((p.line, p.field.as_str()), (Some(2), "topology.file"));
    assert!(
        p.message.contains("fakes/examples/small.yaml"),
        "lists the accepted files: {}",
        p.message
    );
    let p = only_problem(&BASE.replace("fakes/examples/small.yaml", "/etc/passwd"));
    assert!(
        p.message.contains("relative to the repository root"),
        "{}",
        p.message
    );
}

#[test]
fn churn_names_what_the_topology_has() {
    let text = format!(
        "{BASE}workload:\n  nodeChurn:\n    - phase: during\n      scaleSet: {{name: nopool, instances: 2}}\n    - phase: during\n      addVm: {{name: extra, availabilitySet: nope}}\n    - phase: after\n      stopKubelet: {{node: extra}}\n    - phase: after\n      powerState: {{node: ghost, state: stopped}}\n"
    );
    let p = problems(&text);
    let fields: Vec<&str> = p.iter().map(|p| p.field.as_str()).collect();
    assert_eq!(
        fields,
        [
            "workload.nodeChurn[0].scaleSet.name",
            "workload.nodeChurn[1].addVm.availabilitySet",
            "workload.nodeChurn[3].powerState.node",
        ]
    );
    assert!(
        p[0].message.contains("accepted: none in this topology"),
        "{}",
        p[0].message
    );
    assert!(
        p[1].message.contains("accepted: agentpool-availabilityset"),
        "{}",
        p[1].message
    );
    assert!(
        p[2].message
            .contains("k8s-agentpool-0-0, k8s-agentpool-0-1, k8s-master-0"),
        "{}",
        p[2].message
    );
}

#[test]
fn a_topology_the_fake_refuses_is_reported() {
    let text = BASE.replace(
        "topology: {file: fakes/examples/small.yaml}",
        "topology:\n  inline: {tenantId: nope}",
    );
    let p = only_problem(&text);
    assert_eq!((p.line, p.field.as_str()), (Some(3), "topology"));
    assert!(
        p.message
            .starts_with("the fake refuses this topology: topology.inline"),
        "{}",
        p.message
    );
}

#[test]
fn fault_rules_are_validated_by_the_fakes_compiler() {
    let text = format!(
        "{BASE}faults:\n  rules:\n    - path: /x\n      fault: {{kind: throttle}}\n      probability: 2\n    - surface: imds\n      path: /imds/**\n      fault: {{kind: lroFailed}}\n"
    );
    let p = problems(&text);
    assert_eq!(p[0].field, "faults.rules[0].probability");
    assert_eq!(p[0].line, Some(9));
    assert!(
        p[0].message.contains("not between 0.0 and 1.0"),
        "{}",
        p[0].message
    );
    assert_eq!(p[1].field, "faults.rules[1].fault.kind");
    assert!(
        p[1].message.contains("accepted kinds for imds"),
        "{}",
        p[1].message
    );
    let unknown =
        format!("{BASE}faults:\n  rules:\n    - path: /x\n      fault: {{kind: explode}}\n");
    let message = load_text(&unknown).unwrap_err().to_string();
    assert!(message.contains("lroFailed"), "{message}");
}

#[test]
fn process_faults_hit_a_running_process() {
    let text = format!(
        "{BASE}faults:\n  processes:\n    - {{phase: before, action: kill-cloud-controller-manager}}\n"
    );
    let p = only_problem(&text);
    assert_eq!(p.field, "faults.processes[0].phase");
    assert!(p.message.contains("accepted: during, after"));
    // The switch procedure restarts the KCM itself while it runs.
    let text = format!(
        "{BASE}faults:\n  processes:\n    - {{phase: during, action: kill-kube-controller-manager}}\n"
    );
    let p = only_problem(&text);
    assert_eq!(p.field, "faults.processes[0].phase");
    assert!(
        p.message.contains("accepted: before, after"),
        "{}",
        p.message
    );
}

#[test]
fn a_phase_disrupts_its_managers_before_its_node_churn() {
    let text = format!(
        "{BASE}workload:\n  nodeChurn:\n    - phase: after\n      addVm: {{name: extra}}\n\
         faults:\n  processes:\n    - {{phase: after, action: kill-kube-controller-manager}}\n"
    );
    let plan = plan(&load_text(&text).unwrap());
    let after = plan
        .phases
        .iter()
        .find(|p| p.phase == Phase::After)
        .unwrap();
    assert!(
        matches!(
            after.actions.as_slice(),
            [Action::Process(_), Action::AddVm(_)]
        ),
        "{:?}",
        after.actions
    );
}

#[test]
fn checks_and_skip_checks_are_exclusive() {
    let text = format!("{BASE}checks: [downtime, downtime]\nskipChecks: [no-orphans]\n");
    let fields: Vec<String> = problems(&text).into_iter().map(|p| p.field).collect();
    assert_eq!(fields, ["checks[1]", "skipChecks"]);
}

#[test]
fn file_name_must_match_the_scenario_name() {
    let dir = tempfile::tempdir().unwrap();
    // Inside the repository layout so the topology file resolves.
    std::fs::create_dir_all(dir.path().join("fakes/examples")).unwrap();
    std::fs::copy(
        repo().join("fakes/examples/small.yaml"),
        dir.path().join("fakes/examples/small.yaml"),
    )
    .unwrap();
    let scenarios = dir.path().join("scenarios");
    std::fs::create_dir(&scenarios).unwrap();
    std::fs::write(scenarios.join("other.yaml"), BASE).unwrap();
    let err = load(&scenarios.join("other.yaml")).unwrap_err().to_string();
    assert!(
        err.contains("other.yaml:1: name: 't' differs from the file name 'other'"),
        "{err}"
    );
}

#[test]
fn load_all_reports_every_bad_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("fakes/examples")).unwrap();
    std::fs::copy(
        repo().join("fakes/examples/small.yaml"),
        dir.path().join("fakes/examples/small.yaml"),
    )
    .unwrap();
    let scenarios = dir.path().join("scenarios");
    std::fs::create_dir(&scenarios).unwrap();
    std::fs::write(scenarios.join("t.yaml"), BASE).unwrap();
    std::fs::write(
        scenarios.join("a.yaml"),
        BASE.replace("name: t", "name: a")
            .replace("cold", "lukewarm"),
    )
    .unwrap();
    std::fs::write(
        scenarios.join("b.yaml"),
        BASE.replace("name: t", "name: b")
            .replace("\"1.29\"", "\"2.0\""),
    )
    .unwrap();
    std::fs::write(scenarios.join("README.md"), "not a scenario").unwrap();
    let errors = load_all(&scenarios).unwrap_err().errors;
    let files: Vec<String> = errors
        .iter()
        .map(|e| {
            Path::new(e.file())
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(files, ["a.yaml", "b.yaml"]);
}

#[test]
fn error_listing_is_stable() {
    let text = "name: Bad_Name
topology: {file: fakes/examples/small.yaml}
kubernetesVersion: \"1.31\"
clusterName: k8s
network: {mode: kubenet}
workload:
  services:
    - {name: web, ports: []}
switch:
  procedure: leader-migration
  skipQuiesce: true
  ccmClusterName: k8s
  ccmFlags: {cluster-name: x}
checks: [routes-stable]
budgets: {armCallsPerNode: 3}
expect: {fail: downtime}
";
    insta::assert_snapshot!(load_text(text).unwrap_err().to_string());
}

fn plan_of(file: &str) -> ScenarioPlan {
    let mut s = load(&repo().join("scenarios").join(file)).unwrap_or_else(|e| panic!("{e}"));
    // A fixed root keeps the snapshots independent of the checkout's location.
    s.repo_root = Some(PathBuf::from("/repo"));
    plan(&s)
}

#[test]
fn plan_of_cold_switch() {
    insta::assert_yaml_snapshot!(plan_of("01-cold-switch-azure-cni.yaml"));
}

#[test]
fn plan_of_node_churn() {
    insta::assert_yaml_snapshot!(plan_of("09-node-churn.yaml"));
}

#[test]
fn plan_of_faults_and_service_lifecycle() {
    let mut p = plan_of("fault-5xx-lro-failed.yaml");
    p.description.clear();
    insta::assert_yaml_snapshot!(p);
}

#[test]
fn plan_of_leader_migration_and_inline_topology() {
    let lm = plan_of("05-leader-migration.yaml");
    insta::assert_yaml_snapshot!("leader_migration_switch", lm.switch);
    let TopologySource::Inline { yaml } = plan_of("15-throttling-budget.yaml").topology else {
        panic!("15 has an inline topology")
    };
    // The rendered text is what the fake parses: it must read back as the same document.
    let back: serde_json::Value = serde_saphyr::from_str(&yaml).unwrap();
    assert_eq!(back["scaleSets"][0]["instances"], 120);
    assert_eq!(
        back["resourceGroups"]["node"]["name"],
        "MC_throttle_cluster_eastus"
    );
}
