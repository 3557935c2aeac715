//! Load balancers: defaults, frontend/probe/rule validation (limits, duplicate frontend ports, HA ports,
//! probe request paths, same-LB references) and SKU / single-user checks against referenced public IPs.

use super::default;
use super::network::sku_name;
use super::private_address::{AddressRequest, allocate_private_ip, wanted_address};
use crate::error::ArmError;
use crate::error_codes::{self, ErrorCode};
use crate::id::key_of;
use crate::kinds::KindId;
use crate::references::{RefKind, parent_key};
use crate::store::{Entry, Store, child_collections};
use serde_json::{Value, json};
use std::collections::HashMap;

/// Frontend IP configurations per Standard LB.
const MAX_FRONTENDS_STANDARD: usize = 600;
/// Frontend IP configurations per Basic LB.
const MAX_FRONTENDS_BASIC: usize = 200;
/// Load-balancing + inbound NAT rules per LB.
const MAX_RULES: usize = 1500;

fn bad(code: ErrorCode, msg: String) -> ArmError {
    ArmError::nrp(code, msg)
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
    // Recorded NRP answers carry `sku.tier: Regional` when only `sku.name` was sent (cloud-provider-azure
    // loadbalancerclient / privatelinkserviceclient testdata).
    if doc["sku"].is_object() {
        default(&mut doc["sku"], "tier", json!("Regional"));
    }
    let standard = sku_name(doc) == "Standard";
    for coll in child_collections(KindId::LoadBalancer) {
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
    // [unverified] code; the limits are documented in the Load Balancer limits include.
    if fe_count > max_fe {
        return Err(bad(
            error_codes::LB_FRONTENDS_LIMIT_REACHED,
            format!(
                "Load balancer {id} has {fe_count} frontend IP configurations, which exceeds the limit of {max_fe}."
            ),
        ));
    }
    let has_children = child_collections(KindId::LoadBalancer)
        .iter()
        .filter(|c| **c != "frontendIPConfigurations")
        .any(|c| props[*c].as_array().is_some_and(|a| !a.is_empty()));
    if fe_count == 0 && has_children {
        // Verified: 400 LoadBalancerWithoutFrontendIPCantHaveChildResources, wording from an NRP response quoted in
        // terraform-provider-azurerm issue #774; listed in the Load Balancer "common deployment errors" article.
        return Err(bad(
            error_codes::LB_WITHOUT_FRONTEND_CANT_HAVE_CHILDREN,
            format!(
                "Load Balancer {id} does not have Frontend IP Configuration, but it has other child resources. This setup is not supported."
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
                    // Verified: 400 FrontendIPConfigHasNoSubnetOrPublicIP, wording from an NRP response quoted in
                    // ernestio/ernest issue #480.
                    return Err(bad(
                        error_codes::FRONTEND_HAS_NO_SUBNET_OR_PUBLIC_IP,
                        format!(
                            "Frontend IP Configuration {fid} must reference either a Subnet or a Public IP Address."
                        ),
                    ));
                }
                // Verified: 400 FrontendIPConfigHasBothSubnetAndPublicIP with this wording (NRP answer quoted in
                // terraform-provider-azurerm issue #1622).
                (Some(_), Some(_), _) => {
                    return Err(bad(
                        error_codes::FRONTEND_HAS_BOTH_SUBNET_AND_PUBLIC_IP,
                        format!(
                            "Frontend IP Configuration {fid} must not reference both a Subnet and a Public IP Address."
                        ),
                    ));
                }
                _ => {}
            }
            if let Some(pip) = pip {
                p["publicIPAddress"] = json!({ "id": pip });
                // Recorded: public frontends report `privateIPAllocationMethod: Dynamic` (same testdata).
                default(p, "privateIPAllocationMethod", json!("Dynamic"));
            }
            if let Some(subnet) = subnet {
                internal = true;
                let method = p
                    .get("privateIPAllocationMethod")
                    .and_then(Value::as_str)
                    .unwrap_or("Dynamic")
                    .to_string();
                let previous_fe = previous.and_then(|d| {
                    crate::store::find_child(d, "frontendIPConfigurations", fe_name(&fid))
                });
                let want = wanted_address(p, method == "Static", previous_fe);
                let request = AddressRequest {
                    subnet_id: &subnet,
                    owners: &[key.as_str()],
                    want: want.as_deref(),
                    is_static: method == "Static",
                    user: &fid,
                    v6: p.get("privateIPAddressVersion").and_then(Value::as_str) == Some("IPv6"),
                };
                let ip = allocate_private_ip(store, &request, &mut local)?;
                p["privateIPAllocationMethod"] = json!(method);
                p["privateIPAddress"] = json!(ip);
                if p.get("privateIPAddressVersion").is_none() {
                    p["privateIPAddressVersion"] = json!("IPv4");
                }
            }
        }
    }
    // [infer] from the issue-9 observation ("empty backend pools list `loadBalancerBackendAddresses: []`"); pools with
    // NIC members keep the field absent here, while real NRP may list the NIC-derived addresses in it.
    for pool in props["backendAddressPools"]
        .as_array_mut()
        .into_iter()
        .flatten()
    {
        default(
            &mut pool["properties"],
            "loadBalancerBackendAddresses",
            json!([]),
        );
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
            // [unverified] code and wording (InvalidProbeRequestPath).
            match (proto, path) {
                ("Tcp", Some(_)) => {
                    return Err(bad(
                        error_codes::INVALID_PROBE_REQUEST_PATH,
                        format!(
                            "Probe {pid} has protocol Tcp; requestPath is only allowed for Http and Https probes."
                        ),
                    ));
                }
                ("Http" | "Https", None) => {
                    return Err(bad(
                        error_codes::INVALID_PROBE_REQUEST_PATH,
                        format!("Probe {pid} with protocol {proto} must specify requestPath."),
                    ));
                }
                ("Tcp" | "Http" | "Https", _) => {}
                _ => {
                    return Err(bad(
                        error_codes::INVALID_REQUEST_FORMAT,
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
    // [unverified] code; the limit is documented in the Load Balancer limits include.
    if rules.len() + nat > MAX_RULES {
        return Err(bad(
            error_codes::LB_RULES_LIMIT_REACHED,
            format!(
                "Load balancer {id} has {} rules, which exceeds the limit of {MAX_RULES}.",
                rules.len() + nat
            ),
        ));
    }
    // Earlier rules by (frontend, frontend port), in rule order. Rules sharing a key must use disjoint protocols
    // (else the first clash is refused), so each list holds at most two and the check stays linear overall.
    let mut seen: HashMap<(String, i64), Vec<(String, String)>> = HashMap::new();
    for r in &rules {
        let rid = r["id"].as_str().unwrap_or_default().to_string();
        let p = &r["properties"];
        let proto = p["protocol"].as_str().unwrap_or_default().to_string();
        if !matches!(proto.as_str(), "Tcp" | "Udp" | "All") {
            return Err(bad(
                error_codes::INVALID_REQUEST_FORMAT,
                format!(
                    "Load balancing rule {rid} has unsupported protocol '{proto}'. Allowed values are Tcp, Udp, All."
                ),
            ));
        }
        let fport = p["frontendPort"].as_i64().unwrap_or(-1);
        let bport = p["backendPort"].as_i64().unwrap_or(fport);
        if !(0..=65534).contains(&fport) || !(0..=65535).contains(&bport) {
            return Err(bad(
                error_codes::INVALID_REQUEST_FORMAT,
                format!(
                    "Load balancing rule {rid} has invalid frontendPort {fport} or backendPort {bport}."
                ),
            ));
        }
        // [unverified] code and wording (HA ports need an internal Standard LB per the HA ports article).
        if proto == "All" && fport == 0 && (!internal || !standard) {
            return Err(bad(
                error_codes::HA_PORTS_RULE_NOT_SUPPORTED,
                format!(
                    "Load balancing rule {rid} uses HA ports (protocol All, port 0), which is only supported on an internal Standard load balancer."
                ),
            ));
        }
        if (proto == "All") != (fport == 0) {
            return Err(bad(
                error_codes::INVALID_REQUEST_FORMAT,
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
                    error_codes::INVALID_RESOURCE_REFERENCE,
                    format!(
                        "Resource {target} referenced by resource {rid} was not found. Please make sure that the referenced resource exists, and that both resources are in the same region."
                    ),
                ));
            }
        }
        // [unverified] code and wording: no public NRP response for a duplicate frontend+protocol+port was found.
        let earlier = seen.entry((fe, fport)).or_default();
        if let Some((other, _)) = earlier.iter().find(|(_, pr)| protocols_overlap(pr, &proto)) {
            return Err(bad(
                error_codes::RULES_USE_SAME_FRONTEND_AND_PORT,
                format!(
                    "Load balancer rules {other} and {rid} with the same frontend IP configuration use the same protocol {proto} and frontend port {fport}."
                ),
            ));
        }
        earlier.push((rid, proto));
    }
    check_backend_port_reuse(&rules)?;
    check_outbound_frontends(props)?;
    check_outbound_snat(props)?;
    Ok(())
}

/// `true` when two rule protocols overlap (`All` overlaps everything).
fn protocols_overlap(a: &str, b: &str) -> bool {
    a == b || a == "All" || b == "All"
}

/// Every (outbound rule, frontend id) pair of a load balancer's `properties`: both outbound checks ask which
/// frontends the outbound rules use.
fn outbound_rule_frontends(props: &Value) -> impl Iterator<Item = (&Value, &str)> {
    props["outboundRules"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|o| {
            o.pointer("/properties/frontendIPConfigurations")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(move |fe| fe["id"].as_str().map(|id| (o, id)))
        })
}

/// One frontend may serve at most one outbound rule per protocol. Verified: 400
/// MoreThanOneOutboundRuleUsingSameFrontendIPConfigurationAndProtocolIsNotSupported with this wording, typo included
/// (NRP answer quoted in Azure/AzLoadBalancerMigration issue #10); the message's end after the rule list is
/// [unverified].
fn check_outbound_frontends(props: &Value) -> Result<(), ArmError> {
    let uses: Vec<(String, String, String, String)> = outbound_rule_frontends(props)
        .map(|(o, id)| {
            let proto = o
                .pointer("/properties/protocol")
                .and_then(Value::as_str)
                .unwrap_or("All");
            let rule = o["id"].as_str().unwrap_or_default();
            (
                key_of(id),
                id.to_string(),
                proto.to_string(),
                rule.to_string(),
            )
        })
        .collect();
    for (i, (fe, fe_id, proto, rule)) in uses.iter().enumerate() {
        let clashes: Vec<&str> = uses[i + 1..]
            .iter()
            .filter(|(f, _, p, r)| f == fe && r != rule && protocols_overlap(p, proto))
            .map(|(_, _, _, r)| r.as_str())
            .collect();
        if !clashes.is_empty() {
            let mut rules = vec![rule.as_str()];
            rules.extend(clashes);
            return Err(bad(
                error_codes::MULTIPLE_OUTBOUND_RULES_SAME_FRONTEND_AND_PROTOCOL,
                format!(
                    "Is is not supported to have more than a single outbound rule using frontendIPConfiguration {fe_id} with same or overlapping protocol. This frontendIPConfiguration is used by the following outbound rules: {}",
                    rules.join(",")
                ),
            ));
        }
    }
    Ok(())
}

/// The backend pools a load-balancing rule sends to (`backendAddressPool` plus `backendAddressPools[]`).
pub(crate) fn rule_pools(rule: &Value) -> Vec<String> {
    let p = &rule["properties"];
    let mut out: Vec<String> = p
        .pointer("/backendAddressPool/id")
        .and_then(Value::as_str)
        .map(key_of)
        .into_iter()
        .collect();
    for pool in p["backendAddressPools"].as_array().into_iter().flatten() {
        if let Some(id) = pool["id"].as_str().map(key_of)
            && !out.contains(&id)
        {
            out.push(id);
        }
    }
    out
}

/// Two rules without floating IP may not send the same protocol and backend port to the same pool.
/// Verified: 400 RulesUseSameBackendPortProtocolAndPool, wording from NRP responses quoted in
/// MicrosoftDocs/azure-docs issues #94673 and #117762.
///
/// Reports the first clashing pair in rule order (smallest first rule, then smallest second rule), found by
/// grouping rules by (protocol, backend port, pool) instead of comparing every pair.
fn check_backend_port_reuse(rules: &[Value]) -> Result<(), ArmError> {
    let floating = |r: &Value| r.pointer("/properties/enableFloatingIP") == Some(&json!(true));
    // Rule indices per (protocol, backend port, pool key), ascending because rules are visited in order.
    let mut groups: HashMap<(String, i64, String), Vec<usize>> = HashMap::new();
    for (i, r) in rules.iter().enumerate() {
        if floating(r) {
            continue;
        }
        let proto = r["properties"]["protocol"].to_string();
        for pool in rule_pools(r) {
            groups
                .entry((proto.clone(), backend_port(r), pool))
                .or_default()
                .push(i);
        }
    }
    // The first rule of a clashing pair is the smallest index that has a later partner; that index heads every
    // group it clashes in, so its earliest partner is the smallest second member among those groups.
    let Some((i, j)) = groups
        .values()
        .filter(|g| g.len() > 1)
        .map(|g| (g[0], g[1]))
        .min()
    else {
        return Ok(());
    };
    let (a, b) = (&rules[i], &rules[j]);
    let pools_b = rule_pools(b);
    let Some(pool) = rule_pools(a).into_iter().find(|p| pools_b.contains(p)) else {
        return Ok(());
    };
    let pool_id = a
        .pointer("/properties/backendAddressPool/id")
        .and_then(Value::as_str)
        .filter(|id| key_of(id) == pool)
        .map(String::from)
        .unwrap_or(pool);
    Err(bad(
        error_codes::RULES_USE_SAME_BACKEND_PORT_PROTOCOL_AND_POOL,
        format!(
            "Load balancing rules {} and {} with floating IP disabled use the same protocol {} and backend port {}, and must not be used with the same backend address pool {pool_id}.",
            a["id"].as_str().unwrap_or_default(),
            b["id"].as_str().unwrap_or_default(),
            a["properties"]["protocol"].as_str().unwrap_or_default(),
            backend_port(a)
        ),
    ))
}

fn backend_port(rule: &Value) -> i64 {
    let p = &rule["properties"];
    p["backendPort"]
        .as_i64()
        .unwrap_or_else(|| p["frontendPort"].as_i64().unwrap_or(-1))
}

/// A rule whose frontend an outbound rule also uses must set `disableOutboundSnat`.
/// Verified code: LoadBalancingRuleMustDisableSNATSinceSameFrontendIPConfigurationIsReferencedByOutboundRule
/// (400; seen in live-deployment notes and in gardener's Azure error classifier); [unverified] wording.
fn check_outbound_snat(props: &Value) -> Result<(), ArmError> {
    let outbound_fes: Vec<(String, &str)> = outbound_rule_frontends(props)
        .map(|(o, id)| (key_of(id), o["id"].as_str().unwrap_or_default()))
        .collect();
    for r in props["loadBalancingRules"].as_array().into_iter().flatten() {
        if r.pointer("/properties/disableOutboundSnat") == Some(&json!(true)) {
            continue;
        }
        let Some(fe) = r
            .pointer("/properties/frontendIPConfiguration/id")
            .and_then(Value::as_str)
        else {
            continue;
        };
        if let Some((_, outbound)) = outbound_fes.iter().find(|(f, _)| *f == key_of(fe)) {
            return Err(bad(
                error_codes::RULE_MUST_DISABLE_SNAT,
                format!(
                    "Load balancing rule {} must disable SNAT (disableOutboundSnat) since its frontend IP configuration {fe} is also referenced by outbound rule {outbound}.",
                    r["id"].as_str().unwrap_or_default()
                ),
            ));
        }
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
    let mut seen_pips: Vec<String> = Vec::new();
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
            // Verified: code and wording from an NRP response quoted in public AKS scripts (400 [infer]).
            return Err(ArmError::nrp(
                error_codes::PUBLIC_IP_AND_LB_SKU_DO_NOT_MATCH,
                format!(
                    "{lb_sku} sku load balancer {lb_id} cannot reference {pip_sku} sku publicIP {}.",
                    pip["id"].as_str().unwrap_or(pip_id)
                ),
            ));
        }
        let fid = fe["id"].as_str().unwrap_or_default();
        if seen_pips.contains(&key_of(pip_id)) {
            return Err(pip_referenced_twice(pip_id, lb_id));
        }
        seen_pips.push(key_of(pip_id));
        check_single_pip_user(store, key, pip_id, fid)?;
    }
    Ok(())
}

/// Two ipconfigs (frontends) of one resource reference the same public IP. Verified: code and wording from
/// kubernetes-sigs/cloud-provider-azure issue #4243 (an NRP answer to a CCM LB PUT); status 400 [infer].
pub(crate) fn pip_referenced_twice(pip_id: &str, owner_id: &str) -> ArmError {
    ArmError::nrp(
        error_codes::PUBLIC_IP_REFERENCED_BY_MULTIPLE_IP_CONFIGS,
        format!(
            "Public ip address {pip_id} is referenced by multiple ipconfigs in resource {owner_id}."
        ),
    )
}

/// A public IP may be used by one ipconfig/frontend only. Verified code: PublicIPAddressInUse, 400 (recorded NRP
/// response in an azure-sdk-for-node nock fixture; a live 400 on an Azure Firewall attach); [unverified] wording.
pub(crate) fn check_single_pip_user(
    store: &Store,
    owner_key: &str,
    pip_id: &str,
    user: &str,
) -> Result<(), ArmError> {
    for (owner, r) in store.index.incoming(&key_of(pip_id)) {
        if r.kind == RefKind::PipUser && owner != owner_key {
            return Err(ArmError::nrp(
                error_codes::PUBLIC_IP_ADDRESS_IN_USE,
                format!(
                    "Cannot add public IP address {pip_id} to {user}, because it is already in use by {}.",
                    r.from
                ),
            ));
        }
    }
    Ok(())
}
