//! Network security groups: default rules, user-rule validation (priority range, per-direction uniqueness,
//! port ranges, singular/plural exclusivity, rule limit) and the singular/plural echo NRP returns.

use crate::error::ArmError;
use crate::error_codes;
use crate::store::Entry;
use serde_json::{Value, json};

/// Rules per NSG (ARM limit).
pub(crate) const MAX_RULES: usize = 1000;

const DEFAULTS: &[(&str, i64, &str, &str, &str, &str, &str)] = &[
    (
        "AllowVnetInBound",
        65000,
        "Inbound",
        "Allow",
        "VirtualNetwork",
        "VirtualNetwork",
        "Allow inbound traffic from all VMs in VNET",
    ),
    (
        "AllowAzureLoadBalancerInBound",
        65001,
        "Inbound",
        "Allow",
        "AzureLoadBalancer",
        "*",
        "Allow inbound traffic from azure load balancer",
    ),
    (
        "DenyAllInBound",
        65500,
        "Inbound",
        "Deny",
        "*",
        "*",
        "Deny all inbound traffic",
    ),
    (
        "AllowVnetOutBound",
        65000,
        "Outbound",
        "Allow",
        "VirtualNetwork",
        "VirtualNetwork",
        "Allow outbound traffic from all VMs to all VMs in VNET",
    ),
    (
        "AllowInternetOutBound",
        65001,
        "Outbound",
        "Allow",
        "*",
        "Internet",
        "Allow outbound traffic from all VMs to Internet",
    ),
    (
        "DenyAllOutBound",
        65500,
        "Outbound",
        "Deny",
        "*",
        "*",
        "Deny all outbound traffic",
    ),
];

fn valid_port_range(v: &str) -> bool {
    if v == "*" {
        return true;
    }
    let parse = |s: &str| s.trim().parse::<u32>().ok().filter(|n| *n <= 65535);
    match v.split_once('-') {
        Some((a, b)) => matches!((parse(a), parse(b)), (Some(a), Some(b)) if a <= b),
        None => parse(v).is_some(),
    }
}

/// An IP address or CIDR prefix (what the plural prefix fields accept).
fn is_address(v: &str) -> bool {
    let v = v.trim();
    v.parse::<ipnet::IpNet>().is_ok() || v.parse::<std::net::IpAddr>().is_ok()
}

/// Verified: 400 SecurityRuleInvalidPortRange with this wording (user transcripts of NRP answers).
fn bad_port(v: &str) -> ArmError {
    ArmError::nrp(
        error_codes::SECURITY_RULE_INVALID_PORT_RANGE,
        format!(
            "Security rule has invalid Port range. Value provided: {v}. Value should be an integer OR integer range with '-' delimiter. Valid range 0-65535."
        ),
    )
}

/// SecurityRuleParameterContainsUnsupportedValue (verified code, 400). The wording of the direction/access/protocol
/// and singular-plus-plural cases is [unverified]; the tag-in-plural case is verified (see caller).
fn unsupported(param: &str, id: &str, detail: &str) -> ArmError {
    ArmError::nrp(
        error_codes::SECURITY_RULE_UNSUPPORTED_VALUE,
        format!("Security rule parameter {param} for rule with Id {id} {detail}"),
    )
}

/// Validates and completes one user rule's properties (also used for the child endpoint, via the parent).
fn prepare_rule(rule: &mut Value) -> Result<(), ArmError> {
    let id = rule["id"].as_str().unwrap_or_default().to_string();
    let p = rule["properties"].as_object_mut().ok_or_else(|| {
        ArmError::nrp(
            error_codes::INVALID_REQUEST_FORMAT,
            "Cannot parse the request.",
        )
    })?;
    let priority = p.get("priority").and_then(Value::as_i64);
    // Verified: 400 SecurityRuleInvalidPriority with this wording (az CLI transcript of the NRP answer).
    match priority {
        Some(pr) if (100..=4096).contains(&pr) => {}
        Some(pr) => {
            return Err(ArmError::nrp(
                error_codes::SECURITY_RULE_INVALID_PRIORITY,
                format!(
                    "Security rule has invalid Priority. Value provided: {pr} Allowed range 100-4096."
                ),
            ));
        }
        None => {
            return Err(ArmError::nrp(
                error_codes::SECURITY_RULE_INVALID_PRIORITY,
                "Security rule has invalid Priority. Value provided: null Allowed range 100-4096.",
            ));
        }
    }
    let direction = p
        .get("direction")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if !matches!(direction, "Inbound" | "Outbound") {
        return Err(unsupported(
            "Direction",
            &id,
            &format!("has unsupported value {direction}. Allowed values are Inbound, Outbound."),
        ));
    }
    let access = p.get("access").and_then(Value::as_str).unwrap_or_default();
    if !matches!(access, "Allow" | "Deny") {
        return Err(unsupported(
            "Access",
            &id,
            &format!("has unsupported value {access}. Allowed values are Allow, Deny."),
        ));
    }
    let protocol = p
        .get("protocol")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if !matches!(protocol, "Tcp" | "Udp" | "Icmp" | "Esp" | "Ah" | "*") {
        return Err(unsupported(
            "Protocol",
            &id,
            &format!(
                "has unsupported value {protocol}. Allowed values are Tcp, Udp, Icmp, Esp, Ah, *."
            ),
        ));
    }
    for (single, plural, name) in [
        ("sourcePortRange", "sourcePortRanges", "SourcePortRange"),
        (
            "destinationPortRange",
            "destinationPortRanges",
            "DestinationPortRange",
        ),
        (
            "sourceAddressPrefix",
            "sourceAddressPrefixes",
            "SourceAddressPrefix",
        ),
        (
            "destinationAddressPrefix",
            "destinationAddressPrefixes",
            "DestinationAddressPrefix",
        ),
    ] {
        let s = p.get(single).and_then(Value::as_str).map(String::from);
        let many: Vec<String> = p
            .get(plural)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        if s.is_some() && !many.is_empty() {
            return Err(unsupported(
                name,
                &id,
                &format!("cannot specify both {single} and {plural}."),
            ));
        }
        if s.is_none() && many.is_empty() && !single.ends_with("Prefix") {
            return Err(unsupported(name, &id, "must be specified."));
        }
        if single.ends_with("Range") {
            for v in s.iter().chain(many.iter()) {
                if !valid_port_range(v) {
                    return Err(bad_port(v));
                }
            }
            if let Some(v) = many.iter().find(|v| v.trim() == "*") {
                // Code seen in public terraform module notes on NRP behaviour; [unverified] wording.
                return Err(ArmError::nrp(
                    error_codes::SECURITY_RULE_INVALID_PORT_RANGES,
                    format!(
                        "Security rule parameter {name} for rule with Id {id} contains invalid port range {v}: '*' is only allowed in {single}."
                    ),
                ));
            }
        } else if let Some(v) = many.iter().find(|v| !is_address(v)) {
            // Verified: 400 with this wording (NRP answer quoted in a public chaos-testing report); service tags
            // and '*' are only accepted in the singular field.
            return Err(unsupported(
                name,
                &id,
                &format!(
                    "cannot specify existing VIRTUALNETWORK, INTERNET, AZURELOADBALANCER, '*' or system tags. Unsupported value used: {v}."
                ),
            ));
        }
        p.insert(plural.into(), json!(many));
    }
    Ok(())
}

fn default_rules(nsg_id: &str, nsg_type: &str) -> Value {
    Value::Array(
        DEFAULTS
            .iter()
            .map(|(name, prio, dir, access, src, dst, desc)| {
                json!({
                    "name": name,
                    "id": format!("{nsg_id}/defaultSecurityRules/{name}"),
                    "type": format!("{nsg_type}/defaultSecurityRules"),
                    "properties": {
                        "description": desc, "protocol": "*", "sourcePortRange": "*", "destinationPortRange": "*",
                        "sourceAddressPrefix": src, "destinationAddressPrefix": dst, "access": access, "priority": prio,
                        "direction": dir, "sourcePortRanges": [], "destinationPortRanges": [], "sourceAddressPrefixes": [],
                        "destinationAddressPrefixes": []
                    }
                })
            })
            .collect(),
    )
}

/// Prepares an NSG document.
pub(crate) fn prepare(doc: &mut Value, _existing: Option<&Entry>) -> Result<(), ArmError> {
    let id = doc["id"].as_str().unwrap_or_default().to_string();
    let ty = doc["type"].as_str().unwrap_or_default().to_string();
    let props = &mut doc["properties"];
    if props.get("securityRules").is_none_or(Value::is_null) {
        props["securityRules"] = json!([]);
    }
    let rules = props["securityRules"].as_array_mut().ok_or_else(|| {
        ArmError::nrp(
            error_codes::INVALID_REQUEST_FORMAT,
            "Cannot parse the request.",
        )
    })?;
    // [unverified] code; the 1000-rule limit is documented in the virtual network limits include.
    if rules.len() > MAX_RULES {
        return Err(ArmError::nrp(
            error_codes::SECURITY_RULES_LIMIT_REACHED,
            format!(
                "Network security group {id} has {} security rules, which exceeds the limit of {MAX_RULES}.",
                rules.len()
            ),
        ));
    }
    for r in rules.iter_mut() {
        prepare_rule(r)?;
    }
    for (i, a) in rules.iter().enumerate() {
        for b in &rules[i + 1..] {
            if a["properties"]["priority"] == b["properties"]["priority"]
                && a["properties"]["direction"] == b["properties"]["direction"]
            {
                // Verified: 400 SecurityRuleConflict with this wording (az CLI transcripts of NRP answers).
                return Err(ArmError::nrp(
                    error_codes::SECURITY_RULE_CONFLICT,
                    format!(
                        "Security rule {} conflicts with rule {}. Rules cannot have the same Priority and Direction. To learn more, see aka.ms/nsgrules.",
                        a["name"].as_str().unwrap_or_default(),
                        b["name"].as_str().unwrap_or_default()
                    ),
                ));
            }
        }
    }
    props["defaultSecurityRules"] = default_rules(&id, &ty);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plural_prefixes_accept_only_addresses() {
        for ok in ["10.0.0.0/8", "1.2.3.4", "fd00::/64", "2001:db8::1"] {
            assert!(is_address(ok), "{ok}");
        }
        for bad in ["*", "Internet", "AzureLoadBalancer", "10.0.0.0/33", ""] {
            assert!(!is_address(bad), "{bad}");
        }
        let mut rule = json!({"id":"/x/r","properties":{"priority":100,"direction":"Inbound","access":"Allow","protocol":"Tcp",
            "sourcePortRange":"*","destinationPortRange":"80","sourceAddressPrefixes":["10.0.0.0/8","Internet"]}});
        let err = prepare_rule(&mut rule).unwrap_err();
        assert_eq!(err.code(), "SecurityRuleParameterContainsUnsupportedValue");
        assert!(
            err.message().contains("Unsupported value used: Internet."),
            "{}",
            err.message()
        );
        let mut rule = json!({"id":"/x/r","properties":{"priority":100,"direction":"Inbound","access":"Allow","protocol":"Tcp",
            "sourcePortRange":"*","destinationPortRanges":["*"],"sourceAddressPrefix":"Internet"}});
        assert_eq!(
            prepare_rule(&mut rule).unwrap_err().code(),
            "SecurityRuleParameterContainsInvalidPortRanges"
        );
    }

    #[test]
    fn port_ranges() {
        for ok in ["*", "80", "0-65535", "1000-2000"] {
            assert!(valid_port_range(ok), "{ok}");
        }
        for bad in ["", "65536", "10-5", "a", "1-2-3"] {
            assert!(!valid_port_range(bad), "{bad}");
        }
    }
}
