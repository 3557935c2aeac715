//! Load balancers: defaults, frontend/probe/rule validation (limits, duplicate frontend ports, HA ports,
//! probe request paths, same-LB references) and SKU / single-user checks against referenced public IPs.

use super::network::{allocate_private_ip, sku_name};
use crate::error::ArmError;
use crate::id::key_of;
use crate::references::{RefKind, parent_key};
use crate::store::{Entry, Store};
use serde_json::{Value, json};

/// Frontend IP configurations per Standard LB.
const MAX_FRONTENDS_STANDARD: usize = 600;
/// Frontend IP configurations per Basic LB.
const MAX_FRONTENDS_BASIC: usize = 200;
/// Load-balancing + inbound NAT rules per LB.
const MAX_RULES: usize = 1500;

const COLLECTIONS: &[&str] = &[
    "frontendIPConfigurations",
    "backendAddressPools",
    "loadBalancingRules",
    "probes",
    "inboundNatRules",
    "outboundRules",
    "inboundNatPools",
];

fn bad(code: &str, msg: String) -> ArmError {
    ArmError::bad_request(code, msg)
}

/// Prepares a load balancer document.
pub(crate) fn prepare(
    store: &Store,
    doc: &mut Value,
    existing: Option<&Entry>,
) -> Result<(), ArmError> {
    let id = doc["id"].as_str().unwrap_or_default().to_string();
    let key = key_of(&id);
    if doc.get("sku").is_none_or(Value::is_null) {
        doc["sku"] = json!({ "name": "Basic", "tier": "Regional" });
    }
    let standard = sku_name(doc) == "Standard";
    for coll in COLLECTIONS {
        if doc["properties"].get(coll).is_none_or(Value::is_null) {
            doc["properties"][coll] = json!([]);
        }
    }
    let props = &mut doc["properties"];
    let fe_count = props["frontendIPConfigurations"]
        .as_array()
        .map_or(0, Vec::len);
    let max_fe = if standard {
        MAX_FRONTENDS_STANDARD
    } else {
        MAX_FRONTENDS_BASIC
    };
    if fe_count > max_fe {
        return Err(bad(
            "LoadBalancerFrontendIPConfigurationsLimitReached",
            format!(
                "Load balancer {id} has {fe_count} frontend IP configurations, which exceeds the limit of {max_fe}."
            ),
        ));
    }
    let mut internal = false;
    let mut local = Vec::new();
    let previous = existing.map(|e| &e.doc);
    if let Some(fes) = props["frontendIPConfigurations"].as_array_mut() {
        for fe in fes.iter_mut() {
            let fid = fe["id"].as_str().unwrap_or_default().to_string();
            let p = &mut fe["properties"];
            let pip = p.get("publicIPAddress").and_then(|v| v.get("id")).cloned();
            let subnet = p
                .get("subnet")
                .and_then(|v| v.get("id"))
                .and_then(Value::as_str)
                .map(String::from);
            let prefix = p.get("publicIPPrefix").and_then(|v| v.get("id")).cloned();
            match (&pip, &subnet, &prefix) {
                (None, None, None) => {
                    return Err(bad(
                        "LoadBalancerFrontendIPConfigurationMustReferencePublicIPOrSubnet",
                        format!(
                            "Frontend IP configuration {fid} must reference either a public IP address, a public IP prefix or a subnet."
                        ),
                    ));
                }
                (Some(_), Some(_), _) => {
                    return Err(bad(
                        "LoadBalancerFrontendIPConfigurationCannotReferenceBothPublicIPAndSubnet",
                        format!(
                            "Frontend IP configuration {fid} cannot reference both a public IP address and a subnet."
                        ),
                    ));
                }
                _ => {}
            }
            if let Some(pip) = pip {
                p["publicIPAddress"] = json!({ "id": pip });
            }
            if let Some(subnet) = subnet {
                internal = true;
                let method = p
                    .get("privateIPAllocationMethod")
                    .and_then(Value::as_str)
                    .unwrap_or("Dynamic")
                    .to_string();
                let requested = p
                    .get("privateIPAddress")
                    .and_then(Value::as_str)
                    .map(String::from);
                let prev_ip = previous
                    .and_then(|d| {
                        crate::store::find_child(d, "frontendIPConfigurations", fe_name(&fid))
                    })
                    .and_then(|f| {
                        f.pointer("/properties/privateIPAddress")
                            .and_then(Value::as_str)
                            .map(String::from)
                    });
                let want = if method == "Static" {
                    requested.clone()
                } else {
                    prev_ip.or(requested)
                };
                let ip = allocate_private_ip(
                    store,
                    &subnet,
                    &key,
                    want.as_deref(),
                    method == "Static",
                    &fid,
                    &mut local,
                )?;
                p["privateIPAllocationMethod"] = json!(method);
                p["privateIPAddress"] = json!(ip);
                if p.get("privateIPAddressVersion").is_none() {
                    p["privateIPAddressVersion"] = json!("IPv4");
                }
            }
        }
    }
    if let Some(probes) = props["probes"].as_array() {
        for pr in probes {
            let proto = pr
                .pointer("/properties/protocol")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let path = pr
                .pointer("/properties/requestPath")
                .and_then(Value::as_str);
            let pid = pr["id"].as_str().unwrap_or_default();
            match (proto, path) {
                ("Tcp", Some(_)) => {
                    return Err(bad(
                        "InvalidProbeRequestPath",
                        format!(
                            "Probe {pid} has protocol Tcp; requestPath is only allowed for Http and Https probes."
                        ),
                    ));
                }
                ("Http" | "Https", None) => {
                    return Err(bad(
                        "InvalidProbeRequestPath",
                        format!("Probe {pid} with protocol {proto} must specify requestPath."),
                    ));
                }
                ("Tcp" | "Http" | "Https", _) => {}
                _ => {
                    return Err(bad(
                        "InvalidRequestFormat",
                        format!(
                            "Probe {pid} has unsupported protocol '{proto}'. Allowed values are Tcp, Http, Https."
                        ),
                    ));
                }
            }
        }
    }
    let rules = props["loadBalancingRules"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let nat = props["inboundNatRules"].as_array().map_or(0, Vec::len);
    if rules.len() + nat > MAX_RULES {
        return Err(bad(
            "LoadBalancerRulesLimitReached",
            format!(
                "Load balancer {id} has {} rules, which exceeds the limit of {MAX_RULES}.",
                rules.len() + nat
            ),
        ));
    }
    let mut seen: Vec<(String, String, i64, String)> = Vec::new();
    for r in &rules {
        let rid = r["id"].as_str().unwrap_or_default().to_string();
        let p = &r["properties"];
        let proto = p["protocol"].as_str().unwrap_or_default().to_string();
        if !matches!(proto.as_str(), "Tcp" | "Udp" | "All") {
            return Err(bad(
                "InvalidRequestFormat",
                format!(
                    "Load balancing rule {rid} has unsupported protocol '{proto}'. Allowed values are Tcp, Udp, All."
                ),
            ));
        }
        let fport = p["frontendPort"].as_i64().unwrap_or(-1);
        let bport = p["backendPort"].as_i64().unwrap_or(fport);
        if !(0..=65534).contains(&fport) || !(0..=65535).contains(&bport) {
            return Err(bad(
                "InvalidRequestFormat",
                format!(
                    "Load balancing rule {rid} has invalid frontendPort {fport} or backendPort {bport}."
                ),
            ));
        }
        if proto == "All" && fport == 0 && (!internal || !standard) {
            return Err(bad(
                "HaPortsRuleNotSupportedOnLoadBalancer",
                format!(
                    "Load balancing rule {rid} uses HA ports (protocol All, port 0), which is only supported on an internal Standard load balancer."
                ),
            ));
        }
        if (proto == "All") != (fport == 0) {
            return Err(bad(
                "InvalidRequestFormat",
                format!(
                    "Load balancing rule {rid}: protocol All requires frontendPort 0 and backendPort 0 (HA ports)."
                ),
            ));
        }
        let fe = key_of(
            p.pointer("/frontendIPConfiguration/id")
                .and_then(Value::as_str)
                .unwrap_or_default(),
        );
        for id_field in [
            "/frontendIPConfiguration/id",
            "/backendAddressPool/id",
            "/probe/id",
        ] {
            if let Some(target) = p.pointer(id_field).and_then(Value::as_str)
                && parent_key(target) != key
            {
                return Err(bad(
                    "InvalidResourceReference",
                    format!(
                        "Resource {target} referenced by resource {rid} was not found. Please make sure that the referenced resource exists, and that both resources are in the same region."
                    ),
                ));
            }
        }
        if let Some((other, _, _, _)) = seen.iter().find(|(_, f, port, pr)| {
            *f == fe && *port == fport && (*pr == proto || *pr == "All" || proto == "All")
        }) {
            return Err(bad(
                "RulesUseSameFrontendIpConfigurationAndPort",
                format!(
                    "Load balancer rules {other} and {rid} with the same frontend IP configuration use the same protocol {proto} and frontend port {fport}."
                ),
            ));
        }
        seen.push((rid, fe, fport, proto));
    }
    Ok(())
}

fn fe_name(id: &str) -> &str {
    crate::id::last_name(id)
}

/// SKU match and single-user checks for the public IPs frontends reference.
pub(crate) fn validate_references(store: &Store, key: &str, doc: &Value) -> Result<(), ArmError> {
    let lb_sku = sku_name(doc);
    let lb_id = doc["id"].as_str().unwrap_or_default();
    for fe in doc
        .pointer("/properties/frontendIPConfigurations")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(pip_id) = fe
            .pointer("/properties/publicIPAddress/id")
            .and_then(Value::as_str)
        else {
            continue;
        };
        let Some(pip) = store.object(&key_of(pip_id)) else {
            continue;
        };
        let pip_sku = sku_name(pip);
        if pip_sku != lb_sku {
            return Err(ArmError::bad_request(
                "PublicIPAndLBSkuDoNotMatch",
                format!(
                    "{lb_sku} sku load balancer {lb_id} cannot reference {pip_sku} sku publicIP {}.",
                    pip["id"].as_str().unwrap_or(pip_id)
                ),
            ));
        }
        let fid = fe["id"].as_str().unwrap_or_default();
        check_single_pip_user(store, key, pip_id, fid)?;
    }
    Ok(())
}

/// A public IP may be used by one ipconfig/frontend only.
pub(crate) fn check_single_pip_user(
    store: &Store,
    owner_key: &str,
    pip_id: &str,
    user: &str,
) -> Result<(), ArmError> {
    for (owner, r) in store.index.incoming(&key_of(pip_id)) {
        if r.kind == RefKind::PipUser && owner != owner_key {
            return Err(ArmError::bad_request(
                "PublicIPAddressInUse",
                format!(
                    "Cannot add public IP address {pip_id} to {user}, because it is already in use by {}.",
                    r.from
                ),
            ));
        }
    }
    Ok(())
}
