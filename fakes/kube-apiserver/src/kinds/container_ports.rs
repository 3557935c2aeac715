//! Validation of a container's `ports` list as the real server does it (`validateContainerPorts`):
//! port numbers in range, a supported protocol, and IANA service names that are unique within
//! the container.

use serde_json::Value;

use crate::status::{Cause, invalid_value, not_supported, required};

const PROTOCOLS: &[&str] = &["SCTP", "TCP", "UDP"];
const PORT_RANGE: &str = "must be between 1 and 65535, inclusive";

/// Causes for the `ports` of the container at `at` (e.g. `spec.containers[0]`).
pub fn validate(container: &Value, at: &str) -> Vec<Cause> {
    let mut causes = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    for (i, port) in container["ports"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let field = format!("{at}.ports[{i}]");
        if let Some(name) = port["name"].as_str().filter(|n| !n.is_empty()) {
            for why in port_name_problems(name) {
                causes.push(invalid_value(format!("{field}.name"), &port["name"], why));
            }
            if names.contains(&name) {
                causes.push(Cause {
                    reason: "FieldValueDuplicate".into(),
                    message: format!("Duplicate value: {name:?}"),
                    field: format!("{field}.name"),
                });
            }
            names.push(name);
        }
        match port["containerPort"].as_i64() {
            None | Some(0) => causes.push(required(format!("{field}.containerPort"))),
            Some(p) if !(1..=65535).contains(&p) => causes.push(invalid_value(
                format!("{field}.containerPort"),
                &port["containerPort"],
                PORT_RANGE,
            )),
            Some(_) => {}
        }
        if let Some(p) = port["hostPort"].as_i64()
            && p != 0
            && !(1..=65535).contains(&p)
        {
            causes.push(invalid_value(
                format!("{field}.hostPort"),
                &port["hostPort"],
                PORT_RANGE,
            ));
        }
        match port["protocol"].as_str() {
            None | Some("") => causes.push(required(format!("{field}.protocol"))),
            Some(p) if !PROTOCOLS.contains(&p) => {
                causes.push(not_supported(format!("{field}.protocol"), p, PROTOCOLS));
            }
            Some(_) => {}
        }
    }
    causes
}

/// `IsValidPortName`: an IANA service name.
fn port_name_problems(name: &str) -> Vec<&'static str> {
    let mut out = Vec::new();
    if name.len() > 15 {
        out.push("must be no more than 15 characters");
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        out.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
    }
    if !name.chars().any(|c| c.is_ascii_lowercase()) {
        out.push("must contain at least one letter (a-z)");
    }
    if name.contains("--") {
        out.push("must not contain consecutive hyphens");
    }
    if name.starts_with('-') || name.ends_with('-') {
        out.push("must not begin or end with a hyphen");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fields(c: &Value) -> Vec<String> {
        validate(c, "spec.containers[0]")
            .into_iter()
            .map(|c| format!("{}: {}", c.field, c.message))
            .collect()
    }

    #[test]
    fn ports_are_checked_like_the_real_server() {
        let c = json!({"ports": [
            {"containerPort": 80, "protocol": "TCP", "name": "http"},
            {"containerPort": 70000, "hostPort": -1, "protocol": "ICMP", "name": "http"},
            {"protocol": "UDP", "name": "Bad--"}
        ]});
        assert_eq!(
            fields(&c),
            vec![
                r#"spec.containers[0].ports[1].name: Duplicate value: "http""#,
                "spec.containers[0].ports[1].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
                "spec.containers[0].ports[1].hostPort: Invalid value: -1: must be between 1 and 65535, inclusive",
                r#"spec.containers[0].ports[1].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP""#,
                r#"spec.containers[0].ports[2].name: Invalid value: "Bad--": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)"#,
                r#"spec.containers[0].ports[2].name: Invalid value: "Bad--": must not contain consecutive hyphens"#,
                r#"spec.containers[0].ports[2].name: Invalid value: "Bad--": must not begin or end with a hyphen"#,
                "spec.containers[0].ports[2].containerPort: Required value",
            ]
        );
        assert!(fields(&json!({"ports": [{"containerPort": 1, "protocol": "SCTP"}]})).is_empty());
    }
}
