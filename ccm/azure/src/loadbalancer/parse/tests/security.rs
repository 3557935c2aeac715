//! NSG sources: spec ranges vs the allowed-ranges annotations, invalid ranges, service tags.

use ccm_names::service_annotations as sa;
use ipnet::IpNet;
use serde_json::json;

use super::super::{
    REASON_CONFLICT_CONFIGURATION, REASON_INVALID_ALLOWED_IP_RANGES, REASON_INVALID_SOURCE_RANGES,
    ServiceConfigError,
};
use super::{Pairs, err, ok};

fn nets(items: &[&str]) -> Vec<IpNet> {
    items
        .iter()
        .map(|s| s.parse().expect("test CIDR"))
        .collect()
}

#[test]
fn ranges_come_from_the_spec_or_either_annotation() {
    let cases: Vec<(Pairs, serde_json::Value, Vec<&str>)> = vec![
        (vec![], json!({}), vec![]),
        (
            vec![],
            json!({"loadBalancerSourceRanges": ["10.0.0.0/8", " 192.168.0.0/16 "]}),
            vec!["10.0.0.0/8", "192.168.0.0/16"],
        ),
        (
            vec![(sa::ALLOWED_IP_RANGES, "10.0.0.0/8, 2001:db8::/32")],
            json!({}),
            vec!["10.0.0.0/8", "2001:db8::/32"],
        ),
        (
            vec![(sa::LEGACY_SOURCE_RANGES, "10.0.0.0/8")],
            json!({}),
            vec!["10.0.0.0/8"],
        ),
        // Both annotations: the new one first, then the legacy alias.
        (
            vec![
                (sa::LEGACY_SOURCE_RANGES, "172.16.0.0/12"),
                (sa::ALLOWED_IP_RANGES, "10.0.0.0/8"),
            ],
            json!({}),
            vec!["10.0.0.0/8", "172.16.0.0/12"],
        ),
    ];
    for (annotations, spec, expected) in cases {
        let p = ok(&annotations, spec.clone());
        assert_eq!(
            p.service.security.source_ranges,
            nets(&expected),
            "{annotations:?} {spec}"
        );
        assert!(p.warnings.is_empty());
    }
}

#[test]
fn valid_spec_ranges_and_valid_annotation_ranges_conflict() {
    for key in [sa::ALLOWED_IP_RANGES, sa::LEGACY_SOURCE_RANGES] {
        let e = err(
            &[(key, "10.0.0.0/8")],
            json!({"loadBalancerSourceRanges": ["192.168.0.0/16"]}),
        );
        assert!(matches!(e, ServiceConfigError::Conflict { .. }), "{e}");
        assert_eq!(e.key(), key);
        assert!(
            e.to_string().contains("spec.loadBalancerSourceRanges"),
            "{e}"
        );
    }
    // Only valid ranges count: an annotation with nothing valid does not conflict.
    let p = ok(
        &[(sa::ALLOWED_IP_RANGES, "bogus")],
        json!({"loadBalancerSourceRanges": ["192.168.0.0/16"]}),
    );
    assert_eq!(p.service.security.source_ranges, nets(&["192.168.0.0/16"]));
    assert_eq!(p.service.security.invalid_ranges, vec!["bogus".to_string()]);
}

#[test]
fn invalid_ranges_are_kept_aside_with_a_warning_per_source() {
    let p = ok(
        &[(sa::ALLOWED_IP_RANGES, "10.0.0.1/8, ,2001:db8::/32")],
        json!({"loadBalancerSourceRanges": ["nope", "1.2.3.4"]}),
    );
    let s = &p.service.security;
    assert_eq!(s.source_ranges, nets(&["2001:db8::/32"]));
    assert_eq!(
        s.invalid_ranges,
        vec!["nope", "1.2.3.4", "10.0.0.1/8", ""]
            .into_iter()
            .map(String::from)
            .collect::<Vec<_>>()
    );
    let reasons: Vec<_> = p.warnings.iter().map(|w| w.reason).collect();
    assert_eq!(
        reasons,
        vec![
            REASON_INVALID_SOURCE_RANGES,
            REASON_INVALID_ALLOWED_IP_RANGES
        ]
    );
    assert!(p.warnings[0].message.contains("\"nope\""));
    assert!(p.warnings[1].message.contains(sa::ALLOWED_IP_RANGES));
    // The legacy alias is named when its entries are the invalid ones.
    let p = ok(&[(sa::LEGACY_SOURCE_RANGES, "x")], json!({}));
    assert_eq!(p.warnings.len(), 1);
    assert_eq!(p.warnings[0].reason, REASON_INVALID_ALLOWED_IP_RANGES);
    assert!(
        p.warnings[0].message.starts_with(sa::LEGACY_SOURCE_RANGES),
        "{}",
        p.warnings[0].message
    );
}

#[test]
fn service_tags_are_trimmed_and_warn_next_to_spec_ranges() {
    let tags = [(
        sa::ALLOWED_SERVICE_TAGS,
        " AzureFrontDoor.Backend , Internet ",
    )];
    let p = ok(&tags, json!({}));
    assert_eq!(
        p.service.security.service_tags,
        vec!["AzureFrontDoor.Backend".to_string(), "Internet".to_string()]
    );
    assert!(p.warnings.is_empty());
    let p = ok(&tags, json!({"loadBalancerSourceRanges": ["10.0.0.0/8"]}));
    assert_eq!(p.warnings.len(), 1);
    assert_eq!(p.warnings[0].reason, REASON_CONFLICT_CONFIGURATION);
    for bad in ["", "Internet,", "a,,b"] {
        assert_eq!(
            err(&[(sa::ALLOWED_SERVICE_TAGS, bad)], json!({})).key(),
            sa::ALLOWED_SERVICE_TAGS,
            "{bad:?}"
        );
    }
}

#[test]
fn nsg_switches() {
    let s = ok(&[], json!({})).service.security;
    assert!(!s.disabled && !s.deny_all_except_source_ranges);
    let s = ok(
        &[
            (sa::DISABLE_NSG_RULE, "true"),
            (sa::DENY_ALL_EXCEPT_SOURCE_RANGES, "True"),
        ],
        json!({}),
    )
    .service
    .security;
    assert!(s.disabled && s.deny_all_except_source_ranges);
}
