//! Rules written by the pre-v1.29 providers.

use serde_json::json;

use super::fixtures::{apply, frontends, nsg, rule, rule_destinations, rules, service};
use crate::loadbalancer::names::base_name;
use crate::loadbalancer::nsg::{allow_rule_name, plan_ensure, plan_remove};
use crate::loadbalancer::service::IpFamily;

const UID: &str = "dddddddd-0000-0000-0000-000000000004";
const OTHER_UID: &str = "eeeeeeee-0000-0000-0000-000000000005";

/// A legacy-style rule (single destination port, as older providers wrote them).
fn legacy(name: &str, priority: i64, destinations: &[&str]) -> serde_json::Value {
    json!({"name": name, "properties": {
        "priority": priority, "direction": "Inbound", "access": "Allow", "protocol": "Tcp",
        "sourceAddressPrefix": "Internet", "sourcePortRange": "*",
        "destinationAddressPrefixes": destinations, "destinationPortRange": "80"}})
}

fn legacy_nsg() -> serde_json::Value {
    let base = base_name(UID);
    let other = base_name(OTHER_UID);
    json!([
        legacy(&format!("{base}-TCP-80-Internet"), 500, &["20.0.0.4"]),
        legacy(
            &format!("{base}-TCP-80-Internet-IPv6"),
            501,
            &["2001:db8::4"]
        ),
        legacy(&format!("{other}-TCP-80-Internet"), 502, &["20.0.0.5"]),
        legacy("shared-TCP-80-Internet", 503, &["20.0.0.4", "20.0.0.6"]),
        legacy("shared-TCP-80-10.0.0.0_8", 504, &["20.0.0.4"]),
    ])
}

#[test]
fn ensure_replaces_the_services_legacy_rules_and_keeps_others() {
    let svc = service("legacy", UID);
    let dst = frontends(&["20.0.0.4"]);
    let planned = plan_ensure(&nsg(legacy_nsg()), &svc, &dst)
        .expect("ok")
        .expect("changed");
    let names: Vec<_> = rules(&planned).into_iter().filter_map(|r| r.name).collect();
    let other = base_name(OTHER_UID);
    let new = allow_rule_name("Tcp", IpFamily::V4, &["Internet".into()], &[80]);
    assert_eq!(
        names,
        [
            format!("{other}-TCP-80-Internet"),
            "shared-TCP-80-Internet".into(),
            "shared-TCP-80-10.0.0.0_8".into(),
            new.clone(),
        ]
    );
    // The freed priorities of the deleted legacy rules are not reused in the same pass, like
    // upstream's helper (it builds its priority map once).
    let priority = rule(&planned, &new).and_then(|r| r.properties.as_ref()?.priority);
    assert_eq!(priority, Some(505));
}

#[test]
fn delete_takes_the_service_out_of_shared_rules() {
    let svc = service("legacy", UID);
    let dst = frontends(&["20.0.0.4"]);
    let after = apply(
        nsg(legacy_nsg()),
        plan_remove(&nsg(legacy_nsg()), &svc, &dst),
    );
    let names: Vec<_> = rules(&after).into_iter().filter_map(|r| r.name).collect();
    let other = base_name(OTHER_UID);
    assert_eq!(
        names,
        [
            format!("{other}-TCP-80-Internet"),
            "shared-TCP-80-Internet".into()
        ]
    );
    assert_eq!(
        rule_destinations(rule(&after, "shared-TCP-80-Internet").expect("kept")),
        ["20.0.0.6"]
    );
}
