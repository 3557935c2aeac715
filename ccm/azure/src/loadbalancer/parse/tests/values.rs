//! Value shapes: booleans, integers, one-of, `key=value` lists, as the parser accepts them.

use ccm_names::service_annotations as sa;
use serde_json::json;

use super::{err, ok};
use crate::loadbalancer::service::ProbeProtocol;

#[test]
fn booleans_are_true_or_false_in_any_case() {
    for (value, expected) in [
        ("true", Some(true)),
        ("TRUE", Some(true)),
        ("True", Some(true)),
        ("false", Some(false)),
        ("False", Some(false)),
        ("yes", None),
        ("1", None),
        (" true", None),
        ("", None),
    ] {
        let a = [(sa::INTERNAL, value)];
        match expected {
            Some(b) => assert_eq!(ok(&a, json!({})).service.internal, b, "{value:?}"),
            None => assert_eq!(err(&a, json!({})).key(), sa::INTERNAL, "{value:?}"),
        }
    }
}

#[test]
fn integers_are_trimmed_32_bit_decimals_within_the_table_bounds() {
    for (value, expected) in [
        ("4", Some(4)),
        ("100", Some(100)),
        (" 10 ", Some(10)),
        ("+7", Some(7)),
        ("3", None),
        ("101", None),
        ("-5", None),
        ("abc", None),
        ("1.5", None),
        ("2147483648", None),
        ("", None),
    ] {
        let a = [(sa::TCP_IDLE_TIMEOUT, value)];
        match expected {
            Some(n) => assert_eq!(
                ok(&a, json!({})).service.rules.idle_timeout_minutes,
                Some(n),
                "{value:?}"
            ),
            None => assert_eq!(err(&a, json!({})).key(), sa::TCP_IDLE_TIMEOUT, "{value:?}"),
        }
    }
}

#[test]
fn probe_protocol_is_one_of_tcp_http_https_trimmed_any_case() {
    for (value, expected) in [
        ("Tcp", Some(ProbeProtocol::Tcp)),
        ("http", Some(ProbeProtocol::Http)),
        (" HTTPS ", Some(ProbeProtocol::Https)),
        ("grpc", None),
        ("", None),
    ] {
        let a = [(sa::HEALTH_PROBE_PROTOCOL, value)];
        match expected {
            Some(p) => assert_eq!(
                ok(&a, json!({})).service.probe.protocol,
                Some(p),
                "{value:?}"
            ),
            None => assert_eq!(
                err(&a, json!({})).key(),
                sa::HEALTH_PROBE_PROTOCOL,
                "{value:?}"
            ),
        }
    }
}

#[test]
fn key_value_pairs_are_trimmed_and_malformed_items_refused() {
    type Expected<'a> = Option<&'a [(&'a str, &'a str)]>;
    let cases: &[(&str, Expected)] = &[
        ("a=b", Some(&[("a", "b")])),
        (" a = b , c=d ", Some(&[("a", "b"), ("c", "d")])),
        ("a=b,,c=", Some(&[("a", "b"), ("c", "")])),
        ("", Some(&[])),
        ("a", None),
        ("=b", None),
        ("a=b=c", None),
    ];
    for (value, expected) in cases {
        let a = [(sa::PIP_IP_TAGS, *value)];
        match expected {
            Some(pairs) => {
                let got = ok(&a, json!({})).service.public_ip.ip_tags;
                let want: Vec<(String, String)> = pairs
                    .iter()
                    .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
                    .collect();
                assert_eq!(got, want, "{value:?}");
            }
            None => assert_eq!(err(&a, json!({})).key(), sa::PIP_IP_TAGS, "{value:?}"),
        }
    }
}

#[test]
fn pip_tags_become_a_map_and_ip_tags_keep_their_order() {
    let p = ok(
        &[
            (sa::PIP_TAGS, "team=web, env = prod"),
            (
                sa::PIP_IP_TAGS,
                "RoutingPreference=Internet,FirstPartyUsage=/NonProd",
            ),
        ],
        json!({}),
    );
    let tags: Vec<_> = p.service.public_ip.tags.into_iter().collect();
    assert_eq!(
        tags,
        vec![
            ("env".to_string(), "prod".to_string()),
            ("team".to_string(), "web".to_string())
        ]
    );
    assert_eq!(
        p.service.public_ip.ip_tags,
        vec![
            ("RoutingPreference".to_string(), "Internet".to_string()),
            ("FirstPartyUsage".to_string(), "/NonProd".to_string())
        ]
    );
}
