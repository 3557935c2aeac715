//! Snapshot tests of the messages users see for broken topology files: each names the file, the line
//! and the field, and says what is accepted.

use super::load_str;

const BASE: &str = "\
tenantId: 72f988bf-86f1-41af-91ab-2d7cd011db47
subscriptionId: 0b1f6471-1bf0-4dda-aec3-111122223333
location: eastus
resourceGroups:
  node:
    name: rg
network:
  vnet:
    name: vnet
    addressSpace: [10.0.0.0/16]
    subnets:
      - name: nodes
        cidr: 10.0.0.0/24
";

fn error_of(extra: &str) -> String {
    let text = format!("{BASE}{extra}");
    match load_str(&text, "bad.yaml") {
        Ok(_) => panic!("topology unexpectedly valid:\n{text}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn base_is_valid() {
    assert!(load_str(BASE, "base.yaml").is_ok());
}

#[test]
fn unknown_field() {
    insta::assert_snapshot!(error_of(
        "vms:\n  - name: node-0\n    sizee: Standard_D2s_v3\n"
    ));
}

#[test]
fn bad_cidr() {
    let text = BASE.replace("cidr: 10.0.0.0/24", "cidr: 10.0.0.1/24");
    insta::assert_snapshot!(
        load_str(&text, "bad.yaml")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    );
}

#[test]
fn subnet_outside_vnet() {
    let text = BASE.replace("cidr: 10.0.0.0/24", "cidr: 10.1.0.0/24");
    insta::assert_snapshot!(
        load_str(&text, "bad.yaml")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    );
}

#[test]
fn duplicate_name() {
    insta::assert_snapshot!(error_of("vms:\n  - name: node-0\n  - name: Node-0\n"));
}

#[test]
fn bad_zone_and_power_state() {
    insta::assert_snapshot!(error_of(
        "scaleSets:\n  - name: pool\n    instances: 2\n    zones: [1, 4]\n"
    ));
    insta::assert_snapshot!(error_of(
        "vms:\n  - name: node-0\n    powerState: hibernated\n"
    ));
}

#[test]
fn static_address_outside_subnet_and_unknown_references() {
    insta::assert_snapshot!(error_of(
        "vms:\n  - name: node-0\n    privateIp: 10.0.1.4\n    availabilitySet: missing\n    backendPools: [kubernetes/kubernetes]\n"
    ));
}
