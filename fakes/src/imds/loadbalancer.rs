//! `/metadata/loadbalancer`: the Standard load balancer frontends in front of one VM, derived from the
//! LBs whose backend pools hold the VM's NIC ipconfigs (or, for IP-based pools, its private addresses).
//! Ports are numbers here, unlike `/metadata/instance`. A VM behind no Standard LB gets 404.

use super::{ImdsState, Vm, responses};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Value, json};
use std::collections::HashSet;

/// The VM's ipconfigs: (lower-case ipconfig id, private address, lower-case pool ids).
fn ipconfigs(state: &ImdsState, vm: &Vm) -> Vec<(String, String, HashSet<String>)> {
    let mut out = Vec::new();
    for nic_id in vm.nic_ids() {
        let Ok(nic) = state.arm().get(&nic_id) else {
            continue;
        };
        for ipc in nic
            .pointer("/properties/ipConfigurations")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let pools = ipc
                .pointer("/properties/loadBalancerBackendAddressPools")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|p| p["id"].as_str())
                .map(str::to_ascii_lowercase)
                .collect();
            let ip = ipc
                .pointer("/properties/privateIPAddress")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            out.push((
                ipc["id"].as_str().unwrap_or_default().to_ascii_lowercase(),
                ip,
                pools,
            ));
        }
    }
    out
}

/// Private address of the VM in `pool`, if the pool holds one of its ipconfigs.
fn member(pool: &Value, ipcs: &[(String, String, HashSet<String>)]) -> Option<String> {
    let pool_id = pool["id"].as_str().unwrap_or_default().to_ascii_lowercase();
    if let Some((_, ip, _)) = ipcs.iter().find(|(_, _, pools)| pools.contains(&pool_id)) {
        return Some(ip.clone());
    }
    let listed = |path: &str, key: &str| -> Vec<String> {
        pool.pointer(path)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|x| x.pointer(key).and_then(Value::as_str))
            .map(str::to_ascii_lowercase)
            .collect()
    };
    let backrefs = listed("/properties/backendIPConfigurations", "/id");
    if let Some((_, ip, _)) = ipcs.iter().find(|(id, _, _)| backrefs.contains(id)) {
        return Some(ip.clone());
    }
    let addresses = listed(
        "/properties/loadBalancerBackendAddresses",
        "/properties/ipAddress",
    );
    ipcs.iter()
        .find(|(_, ip, _)| addresses.contains(&ip.to_ascii_lowercase()))
        .map(|(_, ip, _)| ip.clone())
}

/// Public address of a frontend (`None` for internal frontends).
fn frontend_ip(state: &ImdsState, lb: &Value, frontend_id: &str) -> Option<String> {
    let fe = lb
        .pointer("/properties/frontendIPConfigurations")?
        .as_array()?
        .iter()
        .find(|f| {
            f["id"]
                .as_str()
                .is_some_and(|id| id.eq_ignore_ascii_case(frontend_id))
        })?;
    let pip = state
        .arm()
        .get(fe.pointer("/properties/publicIPAddress/id")?.as_str()?)
        .ok()?;
    pip.pointer("/properties/ipAddress")
        .and_then(Value::as_str)
        .map(|ip| {
            if ip.contains(':') {
                format!("[{ip}]")
            } else {
                ip.to_string()
            }
        })
}

/// Answers `/metadata/loadbalancer`.
pub(super) fn answer(state: &ImdsState, vm: &Vm) -> Response {
    let ipcs = ipconfigs(state, vm);
    let lbs = state
        .arm()
        .list(&format!(
            "/subscriptions/{}/providers/Microsoft.Network/loadBalancers",
            state.subscription_id()
        ))
        .unwrap_or_default();
    let (mut public, mut inbound, mut outbound) = (Vec::new(), Vec::new(), Vec::new());
    let mut seen = HashSet::new();
    for lb in lbs
        .iter()
        .filter(|lb| lb.pointer("/sku/name").and_then(Value::as_str) == Some("Standard"))
    {
        let pools: Vec<(String, String)> = lb
            .pointer("/properties/backendAddressPools")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|p| Some((p["id"].as_str()?.to_ascii_lowercase(), member(p, &ipcs)?)))
            .collect();
        let private_in = |pool: Option<&str>| {
            pool.and_then(|id| {
                pools
                    .iter()
                    .find(|(p, _)| p.eq_ignore_ascii_case(id))
                    .map(|(_, ip)| ip.clone())
            })
        };
        for rule in lb
            .pointer("/properties/loadBalancingRules")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let pool = rule
                .pointer("/properties/backendAddressPool/id")
                .and_then(Value::as_str);
            let (Some(private), Some(fe)) = (
                private_in(pool),
                rule.pointer("/properties/frontendIPConfiguration/id")
                    .and_then(Value::as_str),
            ) else {
                continue;
            };
            let Some(front) = frontend_ip(state, lb, fe) else {
                continue;
            };
            inbound.push(json!({ "frontendIpAddress": front, "protocol": rule.pointer("/properties/protocol").and_then(Value::as_str).unwrap_or("Tcp").to_ascii_lowercase(), "frontendPort": rule.pointer("/properties/frontendPort").cloned().unwrap_or(json!(0)), "backendPort": rule.pointer("/properties/backendPort").cloned().unwrap_or(json!(0)), "privateIpAddress": private }));
            if seen.insert((front.clone(), private.clone())) {
                public.push(json!({ "frontendIpAddress": front, "privateIpAddress": private }));
            }
        }
        for rule in lb
            .pointer("/properties/outboundRules")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let Some(private) = private_in(
                rule.pointer("/properties/backendAddressPool/id")
                    .and_then(Value::as_str),
            ) else {
                continue;
            };
            for fe in rule
                .pointer("/properties/frontendIPConfigurations")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|f| f["id"].as_str())
            {
                let Some(front) = frontend_ip(state, lb, fe) else {
                    continue;
                };
                outbound.push(json!({ "frontendIpAddress": front, "privateIpAddress": private }));
                if seen.insert((front.clone(), private.clone())) {
                    public.push(json!({ "frontendIpAddress": front, "privateIpAddress": private }));
                }
            }
        }
    }
    if public.is_empty() {
        return responses::json(
            StatusCode::NOT_FOUND,
            &json!({ "error": "No load balancer metadata is found. Please check if your VM is using any non-basic SKU load balancer and retry later." }),
        );
    }
    responses::json(
        StatusCode::OK,
        &json!({ "loadbalancer": { "publicIpAddresses": public, "inboundRules": inbound, "outboundRules": outbound } }),
    )
}
