//! What NRP checks when a NIC joins load balancers: two rules may not deliver the same protocol and backend port to
//! one ipconfig (within one LB or across LBs of the same type), a NIC may reference at most one internal and one
//! public load balancer, and the NICs of one VM together at most one public load balancer.
//!
//! The rule conflicts are checked before the one-LB-per-type rule so that both codes are reachable, as the verified
//! cross-LB code implies (a NIC in two same-type LBs whose rules collide gets the rule error); that ordering is
//! [infer].

use super::load_balancer::rule_pools;
use crate::error::ArmError;
use crate::error_codes;
use crate::id::key_of;
use crate::references::{RefKind, parent_key};
use crate::store::Store;
use serde_json::Value;

/// A load-balancing or inbound NAT rule that delivers traffic to one NIC ipconfig.
#[derive(Debug)]
struct Delivery {
    /// Key of the owning load balancer.
    lb: String,
    /// Display id of the rule.
    rule: String,
    protocol: String,
    backend_port: i64,
    floating: bool,
}

/// `true` when the load balancer stored at `lb_key` has an internal (subnet) frontend.
pub(crate) fn lb_is_internal(store: &Store, lb_key: &str) -> bool {
    store
        .object(lb_key)
        .and_then(|lb| lb.pointer("/properties/frontendIPConfigurations"))
        .and_then(Value::as_array)
        .is_some_and(|fes| {
            fes.iter()
                .any(|fe| fe.pointer("/properties/subnet/id").is_some())
        })
}

fn delivery(lb: String, rule: &Value) -> Delivery {
    let p = &rule["properties"];
    let frontend = p["frontendPort"].as_i64().unwrap_or(-1);
    Delivery {
        lb,
        rule: rule["id"].as_str().unwrap_or_default().to_string(),
        protocol: p["protocol"].as_str().unwrap_or_default().to_string(),
        backend_port: p["backendPort"].as_i64().unwrap_or(frontend),
        floating: p["enableFloatingIP"] == Value::Bool(true),
    }
}

fn ids<'a>(ipc: &'a Value, field: &str) -> impl Iterator<Item = &'a str> {
    ipc.pointer(&format!("/properties/{field}"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|r| r.get("id").and_then(Value::as_str))
}

/// Every rule of a stored LB that reaches `ipc`: rules sending to one of its pools, and its inbound NAT rules.
fn deliveries(store: &Store, ipc: &Value) -> Vec<Delivery> {
    let mut out: Vec<Delivery> = Vec::new();
    for pool_id in ids(ipc, "loadBalancerBackendAddressPools") {
        let lb = parent_key(pool_id);
        let pool = key_of(pool_id);
        for rule in store
            .object(&lb)
            .and_then(|d| d.pointer("/properties/loadBalancingRules"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let rule_id = rule["id"].as_str().unwrap_or_default();
            if rule_pools(rule).contains(&pool)
                && !out.iter().any(|d| d.rule.eq_ignore_ascii_case(rule_id))
            {
                out.push(delivery(lb.clone(), rule));
            }
        }
    }
    for nat_id in ids(ipc, "loadBalancerInboundNatRules") {
        if let Some(rule) = store.object(&key_of(nat_id)) {
            out.push(delivery(parent_key(nat_id), rule));
        }
    }
    out
}

/// Two rules with floating IP disabled that deliver the same protocol and backend port to one ipconfig.
///
/// Same LB: verified 400 RulesUseSameBackendPortProtocolAndIPConfig with this wording (NRP answer to a NIC PUT
/// quoted in hashicorp/terraform issue #14253, two inbound NAT rules). LBs of the same type (both internal or both
/// public): verified code RulesOfSameLoadBalancerTypeUseSameBackendPortProtocolAndIPConfig, status 400, on a NIC PUT,
/// message starting "Load balancer rules /subscriptions/..." (hashicorp/terraform issue #15923; the condition is the
/// Load Balancer "common deployment errors" article's); the rest of its wording follows the same-LB sibling
/// [infer]. Rules of an internal and a public LB may share a backend port.
fn check_backend_ports(store: &Store, ipc: &Value) -> Result<(), ArmError> {
    let ipc_id = ipc["id"].as_str().unwrap_or_default();
    let all = deliveries(store, ipc);
    for (i, a) in all.iter().enumerate() {
        for b in &all[i + 1..] {
            if a.floating
                || b.floating
                || a.protocol != b.protocol
                || a.backend_port != b.backend_port
            {
                continue;
            }
            let code = if a.lb == b.lb {
                error_codes::RULES_USE_SAME_BACKEND_PORT_PROTOCOL_AND_IP_CONFIG
            } else if lb_is_internal(store, &a.lb) == lb_is_internal(store, &b.lb) {
                error_codes::RULES_OF_SAME_LB_TYPE_USE_SAME_BACKEND_PORT
            } else {
                continue;
            };
            return Err(ArmError::nrp(
                code,
                format!(
                    "Load balancer rules {} and {} with floating IP disabled use the same backend port {} and protocol {}, and must not be used with the same backend IP {ipc_id}.",
                    a.rule, b.rule, a.backend_port, a.protocol
                ),
            ));
        }
    }
    Ok(())
}

/// Display id of a stored LB (falls back to the key).
fn lb_display(store: &Store, lb_key: &str) -> String {
    store
        .object(lb_key)
        .and_then(|d| d["id"].as_str())
        .unwrap_or(lb_key)
        .to_string()
}

/// A NIC references at most one internal and one public load balancer.
///
/// Public: verified 400 NetworkInterfaceUsesMultipleLoadBalancersOfSameType with this wording (NRP answer to a
/// cloud-provider NIC PUT quoted in seanknox/aztack issue #3; the CCM avoids it on Standard LBs, see
/// `isBackendPoolOnSameLB`). Internal: code AnotherInternalLoadBalancerExists documented in the Load Balancer
/// "common deployment errors" article ("only one Load Balancer of type internal [can] reference the same set of
/// VMs/network interfaces"); its wording is [unverified].
fn check_one_lb_per_type(store: &Store, nic: &Value) -> Result<(), ArmError> {
    let nic_id = nic["id"].as_str().unwrap_or_default();
    let mut by_type: [Vec<String>; 2] = [Vec::new(), Vec::new()];
    add_lbs_by_type(store, nic, &mut by_type);
    let [public, internal] = by_type;
    if public.len() > 1 {
        let list: Vec<String> = public.iter().map(|k| lb_display(store, k)).collect();
        return Err(ArmError::nrp(
            error_codes::NIC_USES_MULTIPLE_LBS_OF_SAME_TYPE,
            format!(
                "Network interface {nic_id} references more than one load balancer of the same type (internal or public): {}.",
                list.join(", ")
            ),
        ));
    }
    if internal.len() > 1 {
        return Err(ArmError::nrp(
            error_codes::ANOTHER_INTERNAL_LOAD_BALANCER_EXISTS,
            format!(
                "Network interface {nic_id} is referenced by internal load balancers {} and {}. Only one internal load balancer can reference the same network interface.",
                lb_display(store, &internal[0]),
                lb_display(store, &internal[1])
            ),
        ));
    }
    Ok(())
}

/// Adds the keys of the load balancers whose pools `nic` joins to `by_type` (`[public, internal]`), each once.
fn add_lbs_by_type(store: &Store, nic: &Value, by_type: &mut [Vec<String>; 2]) {
    for ipc in nic
        .pointer("/properties/ipConfigurations")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        for pool_id in ids(ipc, "loadBalancerBackendAddressPools") {
            let lb = parent_key(pool_id);
            let slot = &mut by_type[usize::from(lb_is_internal(store, &lb))];
            if !slot.contains(&lb) {
                slot.push(lb);
            }
        }
    }
}

/// A VM's NICs together may not join two public load balancers (fact sheet 2.11 item 6).
///
/// The check itself is documented NRP/CRP behaviour; its code and wording are [unverified], so the generic
/// `InvalidParameter` envelope is used, as the fact sheet's open points advise.
///
/// `pending` is a NIC document being written (key and body), used instead of its stored version.
pub(crate) fn check_vm_nics(
    store: &Store,
    vm_id: &str,
    nic_keys: &[String],
    pending: Option<(&str, &Value)>,
) -> Result<(), ArmError> {
    let mut by_type: [Vec<String>; 2] = [Vec::new(), Vec::new()];
    for key in nic_keys {
        let nic = match pending {
            Some((k, doc)) if k == key => Some(doc),
            _ => store.object(key),
        };
        if let Some(nic) = nic {
            add_lbs_by_type(store, nic, &mut by_type);
        }
    }
    let public = &by_type[0];
    if public.len() > 1 {
        let list: Vec<String> = public.iter().map(|k| lb_display(store, k)).collect();
        return Err(ArmError::invalid_parameter(
            format!(
                "Virtual machine {vm_id} has network interfaces in more than one public load balancer: {}. A virtual machine's network interfaces may reference at most one public load balancer.",
                list.join(", ")
            ),
            "properties.networkProfile.networkInterfaces",
        ));
    }
    Ok(())
}

/// The VM-level check for a NIC being written while attached to a VM: the VM's NICs, this one as written.
fn check_owning_vm(store: &Store, nic_key: &str, nic: &Value) -> Result<(), ArmError> {
    let Some(vm_key) = store
        .index
        .incoming(nic_key)
        .find(|(_, r)| r.kind == RefKind::VmOfNic)
        .map(|(owner, _)| owner.clone())
    else {
        return Ok(());
    };
    let Some(vm) = store.object(&vm_key) else {
        return Ok(());
    };
    let nic_keys: Vec<String> = vm
        .pointer("/properties/networkProfile/networkInterfaces")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|n| n.get("id").and_then(Value::as_str))
        .map(key_of)
        .collect();
    let vm_id = vm["id"].as_str().unwrap_or(&vm_key);
    check_vm_nics(store, vm_id, &nic_keys, Some((nic_key, nic)))
}

/// All load-balancer checks of a NIC document being written, in NRP's (inferred) order.
pub(crate) fn validate(store: &Store, nic_key: &str, nic: &Value) -> Result<(), ArmError> {
    for ipc in nic
        .pointer("/properties/ipConfigurations")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        check_backend_ports(store, ipc)?;
    }
    check_one_lb_per_type(store, nic)?;
    check_owning_vm(store, nic_key, nic)
}
