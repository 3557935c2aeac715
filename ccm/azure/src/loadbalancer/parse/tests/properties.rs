//! Properties: the parser never panics, whatever the annotation and spec values, and every error
//! names its key in its message.

use ccm_names::service_annotations::SERVICE_ANNOTATIONS;
use proptest::prelude::*;
use serde_json::json;

use super::super::parse_service;
use super::{STANDARD, service};

/// Any table key (per-port ones for port 80 or 53), or an unknown key.
fn any_key() -> impl Strategy<Value = String> {
    prop_oneof![
        (
            0..SERVICE_ANNOTATIONS.len(),
            prop_oneof![Just(80u16), Just(53u16), any::<u16>()]
        )
            .prop_map(|(i, port)| SERVICE_ANNOTATIONS[i].for_port(port)),
        "service\\.beta\\.kubernetes\\.io/[a-z_0-9-]{0,20}",
    ]
}

/// Values near the accepted shapes plus arbitrary text.
fn any_value() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("true".to_string()),
        Just("false".to_string()),
        Just(String::new()),
        (-200i64..400).prop_map(|n| n.to_string()),
        Just("10.0.0.1/8, 2001:db8::/32,,x".to_string()),
        Just("a=b,c".to_string()),
        Just("http".to_string()),
        "[0-9a-fA-F:./, =]{0,30}",
        any::<String>(),
    ]
}

fn any_spec() -> impl Strategy<Value = serde_json::Value> {
    (
        prop::collection::vec(prop_oneof![Just("IPv4"), Just("IPv6"), Just("IPvX")], 0..3),
        prop::option::of(any_value()),
        prop::collection::vec(any_value(), 0..3),
        prop::option::of(prop_oneof![Just("Local"), Just("Cluster")]),
        prop::option::of(any::<i32>()),
        prop::collection::vec(
            (any::<i32>(), prop::option::of(any::<i32>()), prop_oneof![Just("TCP"), Just("UDP"), Just("SCTP")]),
            0..3,
        ),
    )
        .prop_map(|(families, lb_ip, ranges, etp, hcnp, ports)| {
            let ports: Vec<_> = ports
                .into_iter()
                .enumerate()
                .map(|(i, (port, node_port, protocol))| {
                    json!({"name": format!("p{i}"), "port": port, "nodePort": node_port, "protocol": protocol})
                })
                .collect();
            json!({
                "ipFamilies": families,
                "loadBalancerIP": lb_ip,
                "loadBalancerSourceRanges": ranges,
                "externalTrafficPolicy": etp,
                "healthCheckNodePort": hcnp,
                "ports": ports,
            })
        })
}

proptest! {
    #[test]
    fn never_panics_and_errors_name_their_key(
        annotations in prop::collection::vec((any_key(), any_value()), 0..6),
        spec in prop_oneof![Just(json!({})), any_spec()],
    ) {
        let pairs: Vec<(&str, &str)> =
            annotations.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let svc = service(&pairs, spec);
        if let Err(e) = parse_service(&svc, &STANDARD) {
            prop_assert!(!e.key().is_empty());
            prop_assert!(e.to_string().contains(e.key()), "{} does not name {}", e, e.key());
        }
    }
}
