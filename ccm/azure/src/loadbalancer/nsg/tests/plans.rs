//! Example-based tests of `plan_ensure` / `plan_remove`.

use serde_json::json;

use super::fixtures::{
    apply, frontends, ips, nets, nsg, port, rule, rule_destinations, rules, service,
};
use crate::loadbalancer::nsg::{
    Destinations, NsgError, allow_rule_name, deny_all_rule_name, plan_ensure, plan_ensure_shared,
    plan_remove, plan_remove_shared,
};
use crate::loadbalancer::service::{IpFamily, LbService, Protocol};

const UID_A: &str = "aaaaaaaa-0000-0000-0000-000000000001";
const UID_B: &str = "bbbbbbbb-0000-0000-0000-000000000002";
const UID_C: &str = "cccccccc-0000-0000-0000-000000000003";

/// A rule the user wrote by hand.
fn user_rule() -> serde_json::Value {
    json!({
        "name": "allow-ssh",
        "id": "/subscriptions/sub/resourceGroups/rg/providers/Microsoft.Network/networkSecurityGroups/k8s-nsg/securityRules/allow-ssh",
        "etag": "W/\"1\"",
        "type": "Microsoft.Network/networkSecurityGroups/securityRules",
        "properties": {
            "provisioningState": "Succeeded", "priority": 100, "direction": "Inbound",
            "access": "Allow", "protocol": "Tcp", "sourceAddressPrefix": "10.0.0.0/8",
            "sourceAddressPrefixes": [], "sourcePortRange": "*", "sourcePortRanges": [],
            "destinationAddressPrefix": "*", "destinationAddressPrefixes": [],
            "destinationPortRange": "22", "destinationPortRanges": []
        }
    })
}

/// Public, no restriction: TCP 80 and 443.
fn public_default() -> LbService {
    let mut svc = service("web", UID_A);
    svc.ports = vec![
        port(Protocol::Tcp, 80, 30080),
        port(Protocol::Tcp, 443, 30443),
    ];
    svc
}

/// `spec.loadBalancerSourceRanges` with two CIDRs.
fn ranged() -> LbService {
    let mut svc = service("api", UID_B);
    svc.security.source_ranges = nets(&["192.168.0.0/24", "10.1.0.0/16"]);
    svc
}

/// `azure-allowed-service-tags` + deny-all except ranges; UDP 53 and TCP 80.
fn tagged_deny_all() -> LbService {
    let mut svc = service("dns", UID_C);
    svc.ports = vec![
        port(Protocol::Udp, 53, 30053),
        port(Protocol::Tcp, 80, 30081),
    ];
    svc.security.service_tags = vec!["AzureFrontDoor.Backend".into()];
    svc.security.source_ranges = nets(&["203.0.113.0/24"]);
    svc.security.deny_all_except_source_ranges = true;
    svc
}

#[test]
fn three_services_then_delete_one_snapshot() {
    let mut current = nsg(json!([user_rule()]));
    let services = [
        (public_default(), frontends(&["20.0.0.1"])),
        (ranged(), frontends(&["20.0.0.2"])),
        (tagged_deny_all(), frontends(&["20.0.0.3"])),
    ];
    for (svc, dst) in &services {
        let planned = plan_ensure(&current, svc, dst).expect("ensure");
        assert!(planned.is_some(), "{} adds rules", svc.key);
        current = apply(current, planned);
    }
    insta::assert_json_snapshot!("three_services_ensured", rules(&current));

    let (svc, dst) = &services[1];
    current = apply(current.clone(), plan_remove(&current, svc, dst));
    insta::assert_json_snapshot!("after_deleting_ranged_service", rules(&current));
    for r in rules(&current) {
        assert!(!rule_destinations(&r).contains(&"20.0.0.2".to_string()));
    }
}

#[test]
fn ensuring_twice_writes_nothing_the_second_time() {
    let svc = tagged_deny_all();
    let dst = frontends(&["20.0.0.3"]);
    let once = plan_ensure(&nsg(json!([])), &svc, &dst)
        .expect("ensure")
        .expect("changed");
    assert_eq!(plan_ensure(&once, &svc, &dst).expect("ensure"), None);
}

#[test]
fn stale_destinations_leave_every_rule_unless_another_service_claims_them() {
    let svc = public_default();
    let before = plan_ensure(&nsg(json!([])), &svc, &frontends(&["20.0.0.1"]))
        .expect("ensure")
        .expect("changed");
    let moved = Destinations {
        stale: ips(&["20.0.0.1"]),
        ..frontends(&["20.0.0.9"])
    };
    let after = plan_ensure(&before, &svc, &moved)
        .expect("ensure")
        .expect("changed");
    let text = serde_json::to_string(&after).expect("json");
    assert!(
        text.contains("20.0.0.9") && !text.contains("20.0.0.1"),
        "{text}"
    );

    // Without the stale list the old address stays next to the new one.
    let kept = plan_ensure(&before, &svc, &frontends(&["20.0.0.9"]))
        .expect("ensure")
        .expect("changed");
    assert!(
        serde_json::to_string(&kept)
            .expect("json")
            .contains("20.0.0.1")
    );

    // Another Service still using the address keeps it in its rule.
    let other = ranged();
    let other_dst = frontends(&["20.0.0.1"]);
    let shared = plan_ensure(&before, &other, &other_dst)
        .expect("ensure")
        .expect("changed");
    let after = plan_ensure_shared(&shared, &svc, &moved, &[(&other, &other_dst)])
        .expect("ensure")
        .expect("changed");
    assert!(
        serde_json::to_string(&after)
            .expect("json")
            .contains("20.0.0.1")
    );
}

#[test]
fn rules_written_by_the_upstream_ccm_are_adopted_without_a_write() {
    // What upstream wrote for a public Service with TCP 80 and 443 on 20.0.0.1, as NRP returns it
    // on GET (ids, etags, empty plural fields). Hash input `Tcp_Internet_443,80`.
    let current = nsg(json!([user_rule(), {
        "name": "k8s-azure-lb_allow_IPv4_556f7044ec033071ec0dfcf7cd85bc93",
        "id": "/subscriptions/sub/resourceGroups/rg/providers/Microsoft.Network/networkSecurityGroups/k8s-nsg/securityRules/k8s-azure-lb_allow_IPv4_556f7044ec033071ec0dfcf7cd85bc93",
        "etag": "W/\"7\"",
        "type": "Microsoft.Network/networkSecurityGroups/securityRules",
        "properties": {
            "provisioningState": "Succeeded", "priority": 500, "direction": "Inbound",
            "access": "Allow", "protocol": "Tcp",
            "sourceAddressPrefix": "Internet", "sourceAddressPrefixes": [],
            "sourcePortRange": "*", "sourcePortRanges": [],
            "destinationAddressPrefixes": ["20.0.0.1", "20.0.0.9"],
            "destinationPortRanges": ["443", "80"]
        }
    }]));
    let svc = public_default();
    assert_eq!(
        plan_ensure(&current, &svc, &frontends(&["20.0.0.1"])).expect("ensure"),
        None
    );
    assert_eq!(
        plan_ensure(&current, &svc, &frontends(&["20.0.0.9"])).expect("ensure"),
        None
    );
}

#[test]
fn user_rules_are_never_touched() {
    let foreign = json!([
        user_rule(),
        // Managed-looking name but outside the priority band: not ours.
        {"name": "k8s-azure-lb_allow_IPv4_custom", "properties": {
            "priority": 200, "direction": "Inbound", "access": "Allow", "protocol": "Tcp",
            "sourceAddressPrefix": "Internet", "sourcePortRange": "*",
            "destinationAddressPrefix": "20.0.0.1", "destinationPortRanges": ["80"]}},
        // In the band but not our prefix: not ours either.
        {"name": "team-rule", "properties": {
            "priority": 600, "direction": "Inbound", "access": "Allow", "protocol": "Tcp",
            "sourceAddressPrefix": "Internet", "sourcePortRange": "*",
            "destinationAddressPrefix": "20.0.0.1", "destinationPortRanges": ["80"]}}
    ]);
    let before = rules(&nsg(foreign.clone()));
    let svc = public_default();
    let dst = frontends(&["20.0.0.1"]);
    let ensured = apply(
        nsg(foreign.clone()),
        plan_ensure(&nsg(foreign), &svc, &dst).expect("ensure"),
    );
    assert_eq!(rules(&ensured)[..3], before[..]);
    let removed = apply(ensured.clone(), plan_remove(&ensured, &svc, &dst));
    assert_eq!(rules(&removed), before);
}

#[test]
fn allow_rules_take_free_priorities_from_500_and_deny_from_4095() {
    let taken = |name: &str, priority: i64| {
        json!({"name": name, "properties": {"priority": priority, "direction": "Inbound",
            "access": "Allow", "protocol": "Tcp", "sourceAddressPrefix": "*",
            "sourcePortRange": "*", "destinationAddressPrefix": "*", "destinationPortRange": "1"}})
    };
    let current = nsg(json!([
        taken("u500", 500),
        taken("u501", 501),
        taken("u4095", 4095)
    ]));
    let mut svc = tagged_deny_all();
    svc.ports = vec![port(Protocol::Tcp, 80, 30080)];
    let planned = plan_ensure(&current, &svc, &frontends(&["20.0.0.3"]))
        .expect("ensure")
        .expect("changed");
    let priority = |name: &str| {
        rule(&planned, name)
            .and_then(|r| r.properties.as_ref())
            .and_then(|p| p.priority)
    };
    let tag = allow_rule_name(
        "Tcp",
        IpFamily::V4,
        &["AzureFrontDoor.Backend".into()],
        &[80],
    );
    let range = allow_rule_name("Tcp", IpFamily::V4, &["203.0.113.0/24".into()], &[80]);
    assert_eq!(priority(&tag), Some(502));
    assert_eq!(priority(&range), Some(503));
    assert_eq!(priority(&deny_all_rule_name(IpFamily::V4)), Some(4094));
}

#[test]
fn exhausted_priorities_are_an_error() {
    let all: Vec<_> = (500..4096)
        .map(|p| json!({"name": format!("u{p}"), "properties": {"priority": p}}))
        .collect();
    let err = plan_ensure(
        &nsg(json!(all)),
        &public_default(),
        &frontends(&["20.0.0.1"]),
    );
    assert!(
        matches!(err, Err(NsgError::PriorityExhausted { .. })),
        "{err:?}"
    );
}

#[test]
fn ensure_without_frontend_ip_is_an_error() {
    let err = plan_ensure(&nsg(json!([])), &public_default(), &Destinations::default());
    assert!(matches!(err, Err(NsgError::NoFrontendIp { .. })), "{err:?}");
}

#[test]
fn disabled_nsg_rules_leave_the_nsg_alone() {
    let mut svc = public_default();
    let dst = frontends(&["20.0.0.1"]);
    let current = apply(
        nsg(json!([])),
        plan_ensure(&nsg(json!([])), &svc, &dst).expect("ok"),
    );
    svc.security.disabled = true;
    svc.ports.push(port(Protocol::Udp, 53, 30053));
    assert_eq!(plan_ensure(&current, &svc, &dst).expect("ok"), None);
    assert_eq!(plan_remove(&current, &svc, &dst), None);
}

#[test]
fn internal_service_without_restriction_gets_no_rule() {
    let mut svc = public_default();
    svc.internal = true;
    let empty = nsg(json!([]));
    assert_eq!(
        plan_ensure(&empty, &svc, &frontends(&["10.0.0.7"])).expect("ok"),
        None
    );
}

#[test]
fn internal_service_with_allow_all_range_uses_the_range_as_source() {
    let mut svc = public_default();
    svc.internal = true;
    svc.security.source_ranges = nets(&["0.0.0.0/0"]);
    let planned = plan_ensure(&nsg(json!([])), &svc, &frontends(&["10.0.0.7"]))
        .expect("ok")
        .expect("changed");
    let all = rules(&planned);
    assert_eq!(all.len(), 1);
    let props = all[0].properties.as_ref().expect("props");
    assert_eq!(props.source_address_prefix.as_deref(), Some("0.0.0.0/0"));
    assert_eq!(
        all[0].name.as_deref(),
        Some(allow_rule_name("Tcp", IpFamily::V4, &["0.0.0.0/0".into()], &[80, 443]).as_str())
    );
}

#[test]
fn invalid_ranges_deny_all_and_drop_the_internet_rule() {
    let mut svc = public_default();
    svc.security.invalid_ranges = vec!["10.0.0.1/33".into()];
    let planned = plan_ensure(&nsg(json!([])), &svc, &frontends(&["20.0.0.1"]))
        .expect("ok")
        .expect("changed");
    let names: Vec<_> = rules(&planned).into_iter().filter_map(|r| r.name).collect();
    assert_eq!(names, [deny_all_rule_name(IpFamily::V4)]);
}

#[test]
fn overlapping_and_adjacent_ranges_are_aggregated() {
    let mut svc = public_default();
    svc.security.source_ranges =
        nets(&["10.0.0.0/25", "10.0.0.128/25", "10.0.0.7/32", "fd00::/64"]);
    let planned = plan_ensure(&nsg(json!([])), &svc, &frontends(&["20.0.0.1"]))
        .expect("ok")
        .expect("changed");
    let v4 = allow_rule_name("Tcp", IpFamily::V4, &["10.0.0.0/24".into()], &[80, 443]);
    assert!(rule(&planned, &v4).is_some(), "{:#?}", rules(&planned));
    assert_eq!(
        rules(&planned).len(),
        1,
        "no IPv6 destination, no IPv6 rule"
    );
}

#[test]
fn floating_ip_off_targets_node_ips_on_node_ports() {
    let mut svc = public_default();
    svc.rules.floating_ip = false;
    let dst = Destinations {
        frontend_ips: ips(&["20.0.0.1"]),
        backend_ips: ips(&["10.240.0.5", "10.240.0.4"]),
        stale: vec![],
    };
    let planned = plan_ensure(&nsg(json!([])), &svc, &dst)
        .expect("ok")
        .expect("changed");
    let name = allow_rule_name("Tcp", IpFamily::V4, &["Internet".into()], &[30080, 30443]);
    let r = rule(&planned, &name).expect("rule on node ports");
    let props = r.properties.as_ref().expect("props");
    assert_eq!(
        props.destination_address_prefixes.as_deref(),
        Some(&["10.240.0.4".to_string(), "10.240.0.5".to_string()][..])
    );
    assert_eq!(
        props.destination_port_ranges.as_deref(),
        Some(&["30080".to_string(), "30443".to_string()][..])
    );
}

#[test]
fn sctp_uses_the_any_protocol_and_additional_ips_are_destinations() {
    let mut svc = public_default();
    svc.ports = vec![port(Protocol::Sctp, 9000, 30900)];
    svc.additional_public_ips = ips(&["52.0.0.9", "2001:db8::9"]);
    let dst = frontends(&["20.0.0.1", "2001:db8::1"]);
    let planned = plan_ensure(&nsg(json!([])), &svc, &dst)
        .expect("ok")
        .expect("changed");
    let v4 = allow_rule_name("*", IpFamily::V4, &["Internet".into()], &[9000]);
    let v6 = allow_rule_name("*", IpFamily::V6, &["Internet".into()], &[9000]);
    let r4 = rule(&planned, &v4).expect("v4");
    assert_eq!(
        r4.properties.as_ref().and_then(|p| p.protocol.as_deref()),
        Some("*")
    );
    assert_eq!(rule_destinations(r4), ["20.0.0.1", "52.0.0.9"]);
    assert_eq!(
        rule_destinations(rule(&planned, &v6).expect("v6")),
        ["2001:db8::1", "2001:db8::9"]
    );
}

#[test]
fn changed_ports_move_the_destination_and_drop_the_empty_rule() {
    let svc = public_default();
    let dst = frontends(&["20.0.0.1"]);
    let first = apply(
        nsg(json!([])),
        plan_ensure(&nsg(json!([])), &svc, &dst).expect("ok"),
    );
    let mut changed = svc.clone();
    changed.ports = vec![port(Protocol::Tcp, 8443, 30843)];
    let second = plan_ensure(&first, &changed, &dst)
        .expect("ok")
        .expect("changed");
    let names: Vec<_> = rules(&second).into_iter().filter_map(|r| r.name).collect();
    assert_eq!(
        names,
        [allow_rule_name(
            "Tcp",
            IpFamily::V4,
            &["Internet".into()],
            &[8443]
        )]
    );
}

#[test]
fn a_shared_frontend_ip_keeps_the_other_services_rules() {
    let a = public_default();
    let mut b = service("other", UID_B);
    b.ports = vec![port(Protocol::Tcp, 8080, 31080)];
    let dst = frontends(&["20.0.0.1"]);
    let mut current = nsg(json!([]));
    current = apply(
        current.clone(),
        plan_ensure(&current, &a, &dst).expect("ok"),
    );
    current = apply(
        current.clone(),
        plan_ensure_shared(&current, &b, &dst, &[(&a, &dst)]).expect("ok"),
    );
    let b_rule = allow_rule_name("Tcp", IpFamily::V4, &["Internet".into()], &[8080]);
    let a_rule = allow_rule_name("Tcp", IpFamily::V4, &["Internet".into()], &[80, 443]);
    assert!(rule(&current, &a_rule).is_some() && rule(&current, &b_rule).is_some());

    let shared = apply(
        current.clone(),
        plan_remove_shared(&current, &a, &dst, &[(&b, &dst)]),
    );
    assert!(rule(&shared, &a_rule).is_none());
    assert_eq!(
        rule_destinations(rule(&shared, &b_rule).expect("b kept")),
        ["20.0.0.1"]
    );

    // Without the other Service, removal takes the IP out of every managed rule.
    let alone = apply(current.clone(), plan_remove(&current, &a, &dst));
    assert!(rules(&alone).is_empty());
}

#[test]
fn dual_stack_rules_are_per_family() {
    let mut svc = ranged();
    svc.families = vec![IpFamily::V4, IpFamily::V6];
    svc.security.source_ranges = nets(&["10.1.0.0/16", "2001:db8:1::/48"]);
    let dst = frontends(&["20.0.0.2", "2001:db8::2"]);
    let planned = plan_ensure(&nsg(json!([])), &svc, &dst)
        .expect("ok")
        .expect("changed");
    let v4 = allow_rule_name("Tcp", IpFamily::V4, &["10.1.0.0/16".into()], &[80]);
    let v6 = allow_rule_name("Tcp", IpFamily::V6, &["2001:db8:1::/48".into()], &[80]);
    assert_eq!(
        rule_destinations(rule(&planned, &v4).expect("v4")),
        ["20.0.0.2"]
    );
    assert_eq!(
        rule_destinations(rule(&planned, &v6).expect("v6")),
        ["2001:db8::2"]
    );
}
