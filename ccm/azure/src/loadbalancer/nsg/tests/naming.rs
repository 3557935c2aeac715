//! Rule names and priority bands.

use crate::loadbalancer::nsg::priority::{Band, Priorities};
use crate::loadbalancer::nsg::rule_name::{
    allow_rule_name, deny_all_rule_name, is_legacy_service_rule, is_legacy_shared_rule,
    port_strings,
};
use crate::loadbalancer::service::{IpFamily, Protocol};

/// Upstream `GenerateAllowSecurityRuleName(Tcp, IPv4, ["Internet"], [80, 443])`: the ports become
/// strings and are sorted as strings ("443" < "80"), then protocol, sources and ports are joined
/// with "_" (each list with ","), giving `Tcp_Internet_443,80`;
/// `printf 'Tcp_Internet_443,80' | md5sum` = 556f7044ec033071ec0dfcf7cd85bc93.
#[test]
fn allow_rule_name_hashes_protocol_sorted_sources_and_string_sorted_ports() {
    let name = allow_rule_name("Tcp", IpFamily::V4, &["Internet".into()], &[80, 443]);
    assert_eq!(
        name,
        "k8s-azure-lb_allow_IPv4_556f7044ec033071ec0dfcf7cd85bc93"
    );
    // Port order given does not matter.
    assert_eq!(
        allow_rule_name("Tcp", IpFamily::V4, &["Internet".into()], &[443, 80]),
        name
    );
    // `printf 'Udp_10.0.0.0/8,192.168.0.0/16_53' | md5sum`; sources are sorted before hashing.
    assert_eq!(
        allow_rule_name(
            "Udp",
            IpFamily::V6,
            &["192.168.0.0/16".into(), "10.0.0.0/8".into()],
            &[53]
        ),
        "k8s-azure-lb_allow_IPv6_545ea50c50ef8635dcabbb5c0e93cbed"
    );
}

#[test]
fn deny_all_names_are_per_family() {
    assert_eq!(
        deny_all_rule_name(IpFamily::V4),
        "k8s-azure-lb_deny-all_IPv4"
    );
    assert_eq!(
        deny_all_rule_name(IpFamily::V6),
        "k8s-azure-lb_deny-all_IPv6"
    );
}

#[test]
fn ports_are_sorted_as_strings_and_deduplicated() {
    assert_eq!(port_strings(&[80, 443, 8080, 80]), ["443", "80", "8080"]);
}

#[test]
fn legacy_names_are_recognised_narrowly() {
    let base = "a1a2b3c4d5e6f708192a3b4c5d6e7f80";
    assert!(is_legacy_service_rule(
        &format!("{base}-TCP-80-Internet"),
        base
    ));
    assert!(is_legacy_service_rule(
        &format!("{base}-UDP-53-10.0.0.0_8-IPv6"),
        base
    ));
    assert!(is_legacy_service_rule(
        &format!("{}-SCTP-9-deny_all", base.to_uppercase()),
        base
    ));
    assert!(!is_legacy_service_rule(
        &format!("{base}-snet-TCP-80"),
        base
    ));
    assert!(!is_legacy_service_rule("a1a2b3-TCP-80-Internet", base));
    assert!(is_legacy_shared_rule(
        "shared-TCP-80-Internet",
        Protocol::Tcp,
        80
    ));
    assert!(!is_legacy_shared_rule(
        "shared-TCP-8080-Internet",
        Protocol::Tcp,
        80
    ));
    assert!(!is_legacy_shared_rule(
        "shared-UDP-80-Internet",
        Protocol::Tcp,
        80
    ));
}

#[test]
fn allow_priorities_fill_from_500_skipping_used_ones() {
    let mut p = Priorities::new([500, 501, 503, 100, 4095]);
    assert_eq!(p.take(Band::FromStart), Some(502));
    assert_eq!(p.take(Band::FromStart), Some(504));
    assert_eq!(p.take(Band::FromStart), Some(505));
}

#[test]
fn deny_priorities_fill_from_4095_down_and_never_use_4096() {
    let mut p = Priorities::new([4095, 4093]);
    assert_eq!(p.take(Band::FromEnd), Some(4094));
    assert_eq!(p.take(Band::FromEnd), Some(4092));
    let mut empty = Priorities::new([]);
    assert_eq!(empty.take(Band::FromEnd), Some(4095));
}

#[test]
fn a_full_band_is_reported() {
    let mut full = Priorities::new(500..4096);
    assert_eq!(full.take(Band::FromStart), None);
    assert_eq!(full.take(Band::FromEnd), None);
}
