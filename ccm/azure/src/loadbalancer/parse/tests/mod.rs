//! Tests of the Service parser: one file per concern.

mod frontend;
mod ports;
mod properties;
mod security;
mod snapshots;
mod table;
mod values;

use k8s_openapi::api::core::v1::Service;
use serde_json::{Value, json};

use super::{ParseContext, Parsed, ServiceConfigError, parse_service};
use crate::config::{LoadBalancerSku, ProbeMode};

/// Annotations of a test case, as (key, value) pairs.
pub(super) type Pairs<'a> = Vec<(&'a str, &'a str)>;

/// Standard SKU, per-Service probes (the defaults).
pub(super) const STANDARD: ParseContext = ParseContext {
    sku: LoadBalancerSku::Standard,
    probe_mode: ProbeMode::ServiceNodePort,
};

/// A LoadBalancer Service `ns/web` with `annotations` and the given spec (merged over one TCP
/// port 80 → NodePort 30080 named `http`).
pub(super) fn service(annotations: &[(&str, &str)], spec: Value) -> Service {
    let mut base = json!({
        "type": "LoadBalancer",
        "ports": [{"name": "http", "protocol": "TCP", "port": 80, "nodePort": 30080}]
    });
    if let (Some(b), Value::Object(extra)) = (base.as_object_mut(), spec) {
        b.extend(extra);
    }
    let annotations: serde_json::Map<String, Value> = annotations
        .iter()
        .map(|(k, v)| ((*k).to_string(), Value::String((*v).to_string())))
        .collect();
    serde_json::from_value(json!({
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {
            "name": "web",
            "namespace": "ns",
            "uid": "1a2b3c4d-0000-1111-2222-333344445555",
            "annotations": annotations
        },
        "spec": base
    }))
    .expect("test Service JSON is valid")
}

/// Parses with the standard context.
pub(super) fn parse(
    annotations: &[(&str, &str)],
    spec: Value,
) -> Result<Parsed, ServiceConfigError> {
    parse_service(&service(annotations, spec), &STANDARD)
}

/// Parses and expects success.
pub(super) fn ok(annotations: &[(&str, &str)], spec: Value) -> Parsed {
    match parse(annotations, spec) {
        Ok(p) => p,
        Err(e) => panic!("expected success, got: {e}"),
    }
}

/// Parses and expects an error.
pub(super) fn err(annotations: &[(&str, &str)], spec: Value) -> ServiceConfigError {
    match parse(annotations, spec) {
        Ok(p) => panic!("expected an error, got: {:?}", p.service),
        Err(e) => e,
    }
}
