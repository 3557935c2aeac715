//! The parser and the annotation table (which also generates the reference page) agree: every
//! documented annotation is read, every read key is documented, and a bad value of each typed
//! kind is refused with an error naming the key and the table's description of accepted values.

use std::collections::BTreeSet;

use ccm_names::service_annotations::{self as sa, SERVICE_ANNOTATIONS, ValueKind};
use serde_json::json;

use super::super::annotations::Annotations;
use super::super::{ServiceConfigError, parse_with};
use super::{STANDARD, parse, service};

/// Load-balancer selection annotations are read by the LB selection, not by this parser.
const NOT_PARSED_HERE: [&str; 2] = [sa::LOAD_BALANCER_MODE, sa::LOAD_BALANCER_CONFIGURATIONS];

fn keys_read_for(annotations: &[(&str, &str)]) -> BTreeSet<&'static str> {
    let svc = service(annotations, json!({}));
    let map = svc.metadata.annotations.clone().unwrap_or_default();
    let a = Annotations::new(&map);
    let spec = svc.spec.clone().unwrap_or_default();
    parse_with(&a, &svc, &spec, &STANDARD).expect("valid Service parses");
    a.keys_read()
}

#[test]
fn every_table_entry_is_read_by_the_parser_except_load_balancer_selection() {
    let read = keys_read_for(&[]);
    let missing: Vec<_> = SERVICE_ANNOTATIONS
        .iter()
        .map(|a| a.key)
        .filter(|k| !NOT_PARSED_HERE.contains(k) && !read.contains(k))
        .collect();
    assert!(
        missing.is_empty(),
        "table entries the parser never reads: {missing:?}"
    );
    for k in NOT_PARSED_HERE {
        assert!(
            !read.contains(k),
            "{k} is read here but documented as LB selection"
        );
    }
}

#[test]
fn every_key_the_parser_reads_is_in_the_table() {
    let table: BTreeSet<&str> = SERVICE_ANNOTATIONS.iter().map(|a| a.key).collect();
    let extra: Vec<_> = keys_read_for(&[])
        .into_iter()
        .filter(|k| !table.contains(k))
        .collect();
    assert!(extra.is_empty(), "keys read but not documented: {extra:?}");
}

/// Values a kind refuses (beyond the table's bounds for integers).
fn bad_values(kind: ValueKind) -> Vec<String> {
    match kind {
        ValueKind::Bool => vec!["yes".into(), "1".into(), "".into()],
        ValueKind::Integer { min, max } => {
            let mut v = vec!["abc".to_string(), "".to_string(), "9999999999".to_string()];
            v.extend(min.map(|m| (m - 1).to_string()));
            v.extend(max.map(|m| (m + 1).to_string()));
            v
        }
        ValueKind::IpAddress("IPv4") => vec!["2001:db8::1".into(), "10.0.0".into()],
        ValueKind::IpAddress(_) => vec!["10.0.0.1".into(), "2001:db8::g".into()],
        ValueKind::OneOf(_) => vec!["Grpc".into(), "".into()],
        _ => Vec::new(),
    }
}

#[test]
fn a_bad_value_of_each_typed_entry_is_refused_naming_the_key_and_accepted_values() {
    let mut checked = 0;
    for entry in SERVICE_ANNOTATIONS {
        if NOT_PARSED_HERE.contains(&entry.key) {
            continue;
        }
        let key = entry.for_port(80);
        for value in bad_values(entry.kind) {
            let e = match parse(&[(key.as_str(), value.as_str())], json!({})) {
                Ok(_) => panic!("{key}={value:?} was accepted"),
                Err(e) => e,
            };
            assert_eq!(e.key(), key, "{key}={value:?}: {e}");
            let ServiceConfigError::InvalidValue { accepted, .. } = &e else {
                panic!("{key}={value:?}: not an InvalidValue: {e}");
            };
            assert_eq!(accepted, &entry.kind.describe(), "{key}={value:?}");
            let text = e.to_string();
            assert!(
                text.contains(&key) && text.contains(&format!("{value:?}")),
                "{text}"
            );
            checked += 1;
        }
    }
    assert!(checked > 30, "only {checked} bad values checked");
}
