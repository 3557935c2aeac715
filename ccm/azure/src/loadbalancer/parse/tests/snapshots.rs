//! Snapshots: the `LbService` of a Service with every starred annotation set, and the messages
//! users read in Warning events.

use ccm_names::service_annotations::{self as sa, SERVICE_ANNOTATIONS};
use serde_json::json;

use super::{Pairs, parse};

/// A value for each starred (`common`) annotation.
fn starred_value(key: &str) -> Option<&'static str> {
    Some(match key {
        sa::INTERNAL => "true",
        sa::INTERNAL_SUBNET => "ilb-subnet",
        sa::LOAD_BALANCER_IPV4 => "10.240.0.50",
        sa::PIP_NAME => "shared-pip",
        sa::LOAD_BALANCER_RESOURCE_GROUP => "rg-ips",
        sa::DNS_LABEL_NAME => "web-app",
        sa::PIP_TAGS => "team=web, cost-center=42",
        sa::HEALTH_PROBE_PROTOCOL => "http",
        sa::HEALTH_PROBE_REQUEST_PATH => "/healthz",
        sa::TCP_IDLE_TIMEOUT => "15",
        sa::DISABLE_FLOATING_IP => "true",
        sa::ENABLE_HA_PORTS => "true",
        sa::ALLOWED_SERVICE_TAGS => "AzureFrontDoor.Backend",
        sa::ALLOWED_IP_RANGES => "203.0.113.0/24, 2001:db8::/48",
        sa::PLS_CREATE => "false",
        _ => return None,
    })
}

#[test]
fn every_starred_annotation() {
    let starred: Vec<(&str, &str)> = SERVICE_ANNOTATIONS
        .iter()
        .filter(|a| a.common)
        .map(|a| match starred_value(a.key) {
            Some(v) => (a.key, v),
            None => panic!("no test value for starred annotation {}", a.key),
        })
        .collect();
    let parsed = parse(
        &starred,
        json!({
            "ipFamilies": ["IPv4", "IPv6"],
            "sessionAffinity": "ClientIP",
            "ports": [
                {"name": "http", "protocol": "TCP", "port": 80, "nodePort": 30080},
                {"name": "https", "protocol": "TCP", "port": 443, "nodePort": 30443, "appProtocol": "https"},
                {"name": "dns", "protocol": "UDP", "port": 53, "nodePort": 30053}
            ]
        }),
    )
    .expect("starred annotations parse");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    insta::assert_debug_snapshot!(parsed.service);
}

#[test]
fn error_messages() {
    let i80 = sa::PORT_HEALTH_PROBE_INTERVAL.replace(sa::PORT_PLACEHOLDER, "80");
    let pp80 = sa::PORT_HEALTH_PROBE_PORT.replace(sa::PORT_PLACEHOLDER, "80");
    let cases: Vec<(&str, Pairs, serde_json::Value)> = vec![
        ("bool", vec![(sa::INTERNAL, "yes")], json!({})),
        (
            "integer range",
            vec![(sa::TCP_IDLE_TIMEOUT, "120")],
            json!({}),
        ),
        ("per-port minimum", vec![(i80.as_str(), "2")], json!({})),
        (
            "one of",
            vec![(sa::HEALTH_PROBE_PROTOCOL, "grpc")],
            json!({}),
        ),
        (
            "ip family",
            vec![(sa::LOAD_BALANCER_IPV4, "2001:db8::1")],
            json!({}),
        ),
        ("key=value", vec![(sa::PIP_TAGS, "team")], json!({})),
        ("probe port", vec![(pp80.as_str(), "metrics")], json!({})),
        (
            "probe too long",
            vec![
                (sa::HEALTH_PROBE_INTERVAL, "30"),
                (sa::HEALTH_PROBE_NUM_OF_PROBE, "4"),
            ],
            json!({}),
        ),
        (
            "ranges conflict",
            vec![(sa::ALLOWED_IP_RANGES, "10.0.0.0/8")],
            json!({"loadBalancerSourceRanges": ["192.168.0.0/16"]}),
        ),
        ("pls", vec![(sa::PLS_CREATE, "true")], json!({})),
        (
            "sctp",
            vec![],
            json!({"ports": [{"port": 3868, "protocol": "SCTP", "nodePort": 31868}]}),
        ),
        ("spec ip", vec![], json!({"loadBalancerIP": "ten"})),
        ("local", vec![], json!({"externalTrafficPolicy": "Local"})),
    ];
    let text = cases
        .into_iter()
        .map(
            |(name, annotations, spec)| match parse(&annotations, spec) {
                Ok(_) => panic!("{name}: accepted"),
                Err(e) => format!("{name}: {e}"),
            },
        )
        .collect::<Vec<_>>()
        .join("\n");
    insta::assert_snapshot!(text);
}

#[test]
fn warning_messages() {
    let parsed = parse(
        &[
            (sa::ALLOWED_IP_RANGES, "10.0.0.1/8"),
            (sa::ALLOWED_SERVICE_TAGS, "Internet"),
        ],
        json!({"loadBalancerSourceRanges": ["192.168.0.0/16", "bad"]}),
    )
    .expect("warnings only");
    let text = parsed
        .warnings
        .iter()
        .map(|w| format!("{}: {}", w.reason, w.message))
        .collect::<Vec<_>>()
        .join("\n");
    insta::assert_snapshot!(text);
}
