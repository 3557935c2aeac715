//! Frontend wishes: internal flag and subnet, families, requested IPs, public IP settings.

use std::net::IpAddr;

use ccm_names::service_annotations as sa;
use serde_json::json;

use super::{Pairs, err, ok};
use crate::loadbalancer::service::IpFamily;

fn ip(s: &str) -> IpAddr {
    s.parse().expect("test address")
}

#[test]
fn families_follow_spec_order_and_default_to_ipv4() {
    for (given, expected) in [
        (json!({}), vec![IpFamily::V4]),
        (json!({"ipFamilies": []}), vec![IpFamily::V4]),
        (json!({"ipFamilies": ["IPv6"]}), vec![IpFamily::V6]),
        (
            json!({"ipFamilies": ["IPv6", "IPv4"]}),
            vec![IpFamily::V6, IpFamily::V4],
        ),
    ] {
        assert_eq!(ok(&[], given.clone()).service.families, expected, "{given}");
    }
    assert_eq!(
        err(&[], json!({"ipFamilies": ["IPv5"]})).key(),
        "spec.ipFamilies[0]"
    );
}

#[test]
fn requested_ips_annotation_wins_and_spec_ip_goes_to_its_family() {
    let dual = json!({"ipFamilies": ["IPv4", "IPv6"]});
    let cases: Vec<(Pairs, serde_json::Value, Option<&str>, Option<&str>)> = vec![
        (
            vec![(sa::LOAD_BALANCER_IPV4, "10.0.0.5")],
            json!({}),
            Some("10.0.0.5"),
            None,
        ),
        (
            vec![],
            json!({"loadBalancerIP": "10.0.0.6"}),
            Some("10.0.0.6"),
            None,
        ),
        (
            vec![(sa::LOAD_BALANCER_IPV4, "10.0.0.5")],
            json!({"loadBalancerIP": "10.0.0.6"}),
            Some("10.0.0.5"),
            None,
        ),
        // An empty annotation counts as absent.
        (
            vec![(sa::LOAD_BALANCER_IPV4, "")],
            json!({"loadBalancerIP": "10.0.0.6"}),
            Some("10.0.0.6"),
            None,
        ),
        (
            vec![(sa::LOAD_BALANCER_IPV4, "10.0.0.5")],
            json!({"ipFamilies": ["IPv4", "IPv6"], "loadBalancerIP": "2001:db8::6"}),
            Some("10.0.0.5"),
            Some("2001:db8::6"),
        ),
        (
            vec![(sa::LOAD_BALANCER_IPV6, "2001:db8::5")],
            dual.clone(),
            None,
            Some("2001:db8::5"),
        ),
        // A family the Service does not have is not filled.
        (
            vec![(sa::LOAD_BALANCER_IPV6, "2001:db8::5")],
            json!({}),
            None,
            None,
        ),
        (vec![], json!({"loadBalancerIP": "2001:db8::6"}), None, None),
    ];
    for (annotations, spec, v4, v6) in cases {
        let got = ok(&annotations, spec.clone()).service.requested_ips;
        assert_eq!(got.v4, v4.map(ip), "{annotations:?} {spec}");
        assert_eq!(got.v6, v6.map(ip), "{annotations:?} {spec}");
    }
}

#[test]
fn requested_ips_of_the_wrong_family_or_shape_are_refused() {
    for (key, value) in [
        (sa::LOAD_BALANCER_IPV4, "2001:db8::1"),
        (sa::LOAD_BALANCER_IPV4, "10.0.0.300"),
        (sa::LOAD_BALANCER_IPV4, " 10.0.0.1"),
        (sa::LOAD_BALANCER_IPV6, "10.0.0.1"),
    ] {
        assert_eq!(err(&[(key, value)], json!({})).key(), key, "{key}={value}");
    }
    assert_eq!(
        err(&[], json!({"loadBalancerIP": "ten"})).key(),
        "spec.loadBalancerIP"
    );
}

#[test]
fn internal_subnet_counts_only_for_internal_services_and_when_not_blank() {
    let cases = [
        (
            vec![(sa::INTERNAL, "true"), (sa::INTERNAL_SUBNET, "lb")],
            Some("lb"),
        ),
        (vec![(sa::INTERNAL_SUBNET, "lb")], None),
        (
            vec![(sa::INTERNAL, "true"), (sa::INTERNAL_SUBNET, "  ")],
            None,
        ),
        (vec![(sa::INTERNAL, "true")], None),
    ];
    for (annotations, expected) in cases {
        assert_eq!(
            ok(&annotations, json!({}))
                .service
                .internal_subnet
                .as_deref(),
            expected,
            "{annotations:?}"
        );
    }
}

#[test]
fn dns_label_absent_and_empty_differ() {
    assert_eq!(ok(&[], json!({})).service.public_ip.dns_label, None);
    assert_eq!(
        ok(&[(sa::DNS_LABEL_NAME, "")], json!({}))
            .service
            .public_ip
            .dns_label
            .as_deref(),
        Some("")
    );
    assert_eq!(
        ok(&[(sa::DNS_LABEL_NAME, "web")], json!({}))
            .service
            .public_ip
            .dns_label
            .as_deref(),
        Some("web")
    );
}

#[test]
fn blank_pip_names_prefixes_and_resource_group_count_as_absent() {
    let p = ok(
        &[
            (sa::PIP_NAME, ""),
            (sa::PIP_NAME_IPV6, " "),
            (sa::PIP_PREFIX_ID, ""),
            (sa::LOAD_BALANCER_RESOURCE_GROUP, "  "),
        ],
        json!({"ipFamilies": ["IPv4", "IPv6"]}),
    )
    .service
    .public_ip;
    assert_eq!(p.names.v4, None);
    assert_eq!(p.names.v6, None);
    assert_eq!(p.prefix_ids.v4, None);
    assert_eq!(p.resource_group, None);
    let p = ok(
        &[
            (sa::PIP_NAME, "pip4"),
            (sa::PIP_NAME_IPV6, "pip6"),
            (sa::LOAD_BALANCER_RESOURCE_GROUP, " rg-ip "),
        ],
        json!({"ipFamilies": ["IPv4", "IPv6"]}),
    )
    .service
    .public_ip;
    assert_eq!(p.names.v4.as_deref(), Some("pip4"));
    assert_eq!(p.names.v6.as_deref(), Some("pip6"));
    assert_eq!(p.resource_group.as_deref(), Some("rg-ip"));
}

#[test]
fn additional_public_ips_are_a_trimmed_comma_list_refused_as_a_whole() {
    assert_eq!(
        ok(
            &[(sa::ADDITIONAL_PUBLIC_IPS, "1.2.3.4, 2001:db8::1")],
            json!({})
        )
        .service
        .additional_public_ips,
        vec![ip("1.2.3.4"), ip("2001:db8::1")]
    );
    for bad in ["1.2.3.4,x", "", "1.2.3.4,"] {
        assert_eq!(
            err(&[(sa::ADDITIONAL_PUBLIC_IPS, bad)], json!({})).key(),
            sa::ADDITIONAL_PUBLIC_IPS,
            "{bad:?}"
        );
    }
}

#[test]
fn metadata_uid_is_required_for_names() {
    let mut svc = super::service(&[], json!({}));
    svc.metadata.uid = None;
    let e = super::super::parse_service(&svc, &super::STANDARD).expect_err("no uid");
    assert_eq!(e.key(), "metadata.uid");
}

#[test]
fn single_stack_services_take_pip_name_and_prefix_from_the_unsuffixed_keys() {
    let a = [
        (sa::PIP_NAME, "pip"),
        (sa::PIP_NAME_IPV6, "pip6"),
        (sa::PIP_PREFIX_ID, "prefix"),
        (sa::PIP_PREFIX_ID_IPV6, "prefix6"),
    ];
    for (spec, v4, v6) in [
        (json!({}), Some(("pip", "prefix")), None),
        (
            json!({"ipFamilies": ["IPv4"]}),
            Some(("pip", "prefix")),
            None,
        ),
        (
            json!({"ipFamilies": ["IPv6"]}),
            None,
            Some(("pip", "prefix")),
        ),
        (
            json!({"ipFamilies": ["IPv6", "IPv4"]}),
            Some(("pip", "prefix")),
            Some(("pip6", "prefix6")),
        ),
    ] {
        let p = ok(&a, spec.clone()).service.public_ip;
        let got = |names: Option<String>, prefix: Option<String>| names.zip(prefix);
        assert_eq!(
            got(p.names.v4, p.prefix_ids.v4),
            v4.map(|(n, x)| (n.to_string(), x.to_string())),
            "{spec}"
        );
        assert_eq!(
            got(p.names.v6, p.prefix_ids.v6),
            v6.map(|(n, x)| (n.to_string(), x.to_string())),
            "{spec}"
        );
    }
}
