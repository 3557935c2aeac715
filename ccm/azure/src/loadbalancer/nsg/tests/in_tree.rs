//! The in-tree provider's per-Service rules ([`plan_in_tree`]) and the CCM taking them over.

use serde_json::json;

use super::fixtures::{apply, frontends, nets, nsg, port, rule, rules, service};
use crate::loadbalancer::names::base_name;
use crate::loadbalancer::nsg::{
    allow_rule_name, in_tree_rule_name, plan_ensure, plan_in_tree, plan_remove,
};
use crate::loadbalancer::service::{IpFamily, Protocol};

const UID: &str = "aaaaaaaa-0000-0000-0000-000000000001";
const OTHER: &str = "bbbbbbbb-0000-0000-0000-000000000002";

fn names(nsg: &crate::arm::resources::security_group::NetworkSecurityGroup) -> Vec<String> {
    rules(nsg).into_iter().filter_map(|r| r.name).collect()
}

/// A user rule and a rule of another Service at 500, so the Service's rules start at 501.
fn busy() -> serde_json::Value {
    json!([
        {"name": "allow-ssh", "properties": {"priority": 100, "direction": "Inbound",
            "access": "Allow", "protocol": "Tcp", "sourceAddressPrefix": "*",
            "sourcePortRange": "*", "destinationAddressPrefix": "*", "destinationPortRange": "22"}},
        {"name": format!("{}-TCP-80-Internet", base_name(OTHER)), "properties": {"priority": 500,
            "direction": "Inbound", "access": "Allow", "protocol": "Tcp",
            "sourceAddressPrefix": "Internet", "sourcePortRange": "*",
            "destinationAddressPrefix": "20.0.0.9", "destinationPortRange": "80"}},
    ])
}

#[test]
fn one_rule_per_port_and_source_with_single_fields() {
    let mut svc = service("web", UID);
    svc.ports.push(port(Protocol::Udp, 53, 30053));
    svc.security.source_ranges = nets(&["10.0.0.0/8", "192.168.1.0/24"]);
    let planned = plan_in_tree(&nsg(busy()), &svc, &frontends(&["20.0.0.4"]), true)
        .expect("ok")
        .expect("changed");
    let base = base_name(UID);
    assert_eq!(
        names(&planned),
        [
            "allow-ssh".to_string(),
            format!("{}-TCP-80-Internet", base_name(OTHER)),
            format!("{base}-TCP-80-10.0.0.0_8"),
            format!("{base}-TCP-80-192.168.1.0_24"),
            format!("{base}-UDP-53-10.0.0.0_8"),
            format!("{base}-UDP-53-192.168.1.0_24"),
        ]
    );
    let first = rule(&planned, &format!("{base}-TCP-80-10.0.0.0_8")).expect("rule");
    let value = serde_json::to_value(first).expect("json");
    assert_eq!(
        value["properties"],
        json!({"priority": 501, "protocol": "Tcp", "sourcePortRange": "*",
               "destinationPortRange": "80", "sourceAddressPrefix": "10.0.0.0/8",
               "destinationAddressPrefix": "20.0.0.4", "access": "Allow",
               "direction": "Inbound"})
    );
    // A second pass changes nothing.
    assert_eq!(
        plan_in_tree(&planned, &svc, &frontends(&["20.0.0.4"]), true),
        Ok(None)
    );
}

#[test]
fn public_unrestricted_is_internet_internal_unrestricted_has_no_rule() {
    let svc = service("web", UID);
    let planned = plan_in_tree(&nsg(json!([])), &svc, &frontends(&["20.0.0.4"]), true)
        .expect("ok")
        .expect("changed");
    assert_eq!(
        names(&planned),
        [in_tree_rule_name(&base_name(UID), "TCP", 80, "Internet")]
    );
    let mut internal = service("ilb", UID);
    internal.internal = true;
    assert_eq!(
        plan_in_tree(&nsg(json!([])), &internal, &frontends(&["10.1.0.4"]), true),
        Ok(None)
    );
}

#[test]
fn a_changed_port_replaces_the_rule_and_delete_removes_them_all() {
    let svc = service("web", UID);
    let first = apply(
        nsg(busy()),
        plan_in_tree(&nsg(busy()), &svc, &frontends(&["20.0.0.4"]), true).expect("ok"),
    );
    let mut moved = svc.clone();
    moved.ports = vec![port(Protocol::Tcp, 8080, 30080)];
    let second = apply(
        first.clone(),
        plan_in_tree(&first, &moved, &frontends(&["20.0.0.4"]), true).expect("ok"),
    );
    let base = base_name(UID);
    assert!(rule(&second, &format!("{base}-TCP-80-Internet")).is_none());
    assert!(rule(&second, &format!("{base}-TCP-8080-Internet")).is_some());
    let gone = apply(
        second.clone(),
        plan_in_tree(&second, &moved, &frontends(&["20.0.0.4"]), false).expect("ok"),
    );
    assert_eq!(names(&gone), names(&nsg(busy())));
}

#[test]
fn the_ccm_replaces_the_in_tree_rules_and_leaves_nothing_on_delete() {
    let svc = service("web", UID);
    let dst = frontends(&["20.0.0.4"]);
    let in_tree = apply(
        nsg(busy()),
        plan_in_tree(&nsg(busy()), &svc, &dst, true).expect("ok"),
    );
    let ccm = apply(
        in_tree.clone(),
        plan_ensure(&in_tree, &svc, &dst).expect("ok"),
    );
    let consolidated = allow_rule_name("Tcp", IpFamily::V4, &["Internet".into()], &[80]);
    assert_eq!(
        names(&ccm),
        [
            "allow-ssh".to_string(),
            format!("{}-TCP-80-Internet", base_name(OTHER)),
            consolidated
        ]
    );
    let deleted = apply(ccm.clone(), plan_remove(&ccm, &svc, &dst));
    assert_eq!(names(&deleted), names(&nsg(busy())));
}
