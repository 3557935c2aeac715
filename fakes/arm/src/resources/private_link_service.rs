//! Private link services: NAT IP allocation, alias, the subnet network-policy rule, and the network interface NRP
//! creates for every private link service.
//!
//! The automatic NIC is verified against the recorded NRP traffic in cloud-provider-azure
//! (`pkg/azclient/privatelinkserviceclient/testdata/AZURECLOUD.yaml`): the PLS create answer (201) already lists
//! `properties.networkInterfaces: [{id: .../resourceGroups/<pls rg>/providers/Microsoft.Network/networkInterfaces/<pls
//! name>.nic.<guid>}]`, the NIC lives in the PLS's resource group, and the alias uses the lower-cased PLS name. The NIC
//! points back with the read-only `properties.privateLinkService.id` (armnetwork `InterfacePropertiesFormat`; the
//! field Azure Resource Graph orphan-NIC queries test). It is deleted with the PLS. Its ipConfigurations mirroring the
//! PLS NAT ipConfigurations (same names, subnets and addresses) is [infer].

use super::default;
use super::private_address::assign_ipconfig_address;
use crate::error::ArmError;
use crate::error_codes;
use crate::etag;
use crate::id::key_of;
use crate::kinds::KindId;
use crate::references::RefKind;
use crate::store::{Entry, Store};
use serde_json::{Value, json};

/// The id of the NIC NRP creates for the private link service `pls_id`: `<pls name>.nic.<guid>` in its group.
fn nic_id_for(pls_id: &str, name: &str) -> String {
    const SEGMENT: &str = "/privatelinkservices/";
    let group = match pls_id.to_ascii_lowercase().rfind(SEGMENT) {
        Some(at) => &pls_id[..at],
        None => pls_id,
    };
    format!(
        "{group}/networkInterfaces/{name}.nic.{}",
        uuid::Uuid::new_v4()
    )
}

/// The NIC id a stored private link service document lists (its first `networkInterfaces` entry).
pub(crate) fn nic_of(doc: &Value) -> Option<&str> {
    doc.pointer("/properties/networkInterfaces/0/id")
        .and_then(Value::as_str)
}

/// Prepares a private link service document (alias, NAT IP allocation, automatic NIC reference, defaults). Like the
/// recorded NRP answers (see the module header), frontends and subnets are `{id}` references, `visibility` and
/// `autoApproval` appear only when sent, and a Dynamic NAT ipconfig shows no `privateIPAddress` (the address lives on
/// the service's NIC; see [`sync_nic`]).
pub(crate) fn prepare(
    store: &Store,
    doc: &mut Value,
    existing: Option<&Entry>,
) -> Result<(), ArmError> {
    let id = doc["id"].as_str().unwrap_or_default().to_string();
    let key = key_of(&id);
    let name = doc["name"].as_str().unwrap_or_default().to_string();
    let location = doc["location"].as_str().unwrap_or_default().to_string();
    let nic_id = existing
        .and_then(|e| nic_of(&e.doc))
        .map(String::from)
        .unwrap_or_else(|| nic_id_for(&id, &name));
    let nic_key = key_of(&nic_id);
    let previous = existing.map(|e| with_nic_addresses(store, &e.doc, &nic_key));
    let previous = previous.as_ref();
    let p = &mut doc["properties"];
    if let Some(fes) = p
        .get_mut("loadBalancerFrontendIpConfigurations")
        .and_then(Value::as_array_mut)
    {
        for fe in fes.iter_mut() {
            *fe = json!({ "id": fe.get("id") });
        }
    }
    if p.get("loadBalancerFrontendIpConfigurations")
        .and_then(Value::as_array)
        .is_none_or(Vec::is_empty)
    {
        // [unverified] code and wording.
        return Err(ArmError::nrp(
            error_codes::PLS_MUST_HAVE_FRONTENDS,
            format!(
                "Private link service {id} must reference at least one load balancer frontend IP configuration."
            ),
        ));
    }
    let mut local = Vec::new();
    let Some(ipcs) = p
        .get_mut("ipConfigurations")
        .and_then(Value::as_array_mut)
        .filter(|a| !a.is_empty())
    else {
        // [unverified] code and wording.
        return Err(ArmError::nrp(
            error_codes::PLS_MUST_HAVE_IP_CONFIGURATIONS,
            format!("Private link service {id} must have at least one IP configuration."),
        ));
    };
    for (i, ipc) in ipcs.iter_mut().enumerate() {
        let ipc_name = ipc["name"].as_str().unwrap_or_default().to_string();
        ipc["id"] = json!(format!("{id}/ipConfigurations/{ipc_name}"));
        let ipp = &mut ipc["properties"];
        default(ipp, "primary", json!(i == 0));
        default(ipp, "privateIPAllocationMethod", json!("Dynamic"));
        default(ipp, "privateIPAddressVersion", json!("IPv4"));
        if let Some(subnet) = ipp.get("subnet").and_then(|v| v.get("id")).cloned() {
            ipp["subnet"] = json!({ "id": subnet });
        }
        let owners = [key.as_str(), nic_key.as_str()];
        assign_ipconfig_address(store, ipc, previous, &owners, false, &mut local)?;
    }
    let alias = existing
        .and_then(|e| e.doc.pointer("/properties/alias").cloned())
        .unwrap_or_else(|| {
            json!(format!(
                "{}.{}.{location}.azure.privatelinkservice",
                name.to_ascii_lowercase(),
                uuid::Uuid::new_v4()
            ))
        });
    p["alias"] = alias;
    // Read-only: whatever the client echoed is replaced by the NIC NRP manages.
    p["networkInterfaces"] = json!([{ "id": nic_id }]);
    default(p, "fqdns", json!([]));
    default(p, "enableProxyProtocol", json!(false));
    default(p, "privateEndpointConnections", json!([]));
    Ok(())
}

/// PLS subnets must have `privateLinkServiceNetworkPolicies: Disabled`. Verified: 400
/// PrivateLinkServiceCannotBeCreatedInSubnetThatHasNetworkPoliciesEnabled with this wording (NRP answer quoted in a
/// public terraform configuration).
pub(crate) fn validate_references(store: &Store, doc: &Value) -> Result<(), ArmError> {
    let pls_id = doc["id"].as_str().unwrap_or_default();
    for ipc in doc
        .pointer("/properties/ipConfigurations")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(subnet_id) = ipc.pointer("/properties/subnet/id").and_then(Value::as_str) else {
            continue;
        };
        let Some(subnet) = store.object(&key_of(subnet_id)) else {
            continue;
        };
        if subnet
            .pointer("/properties/privateLinkServiceNetworkPolicies")
            .and_then(Value::as_str)
            != Some("Disabled")
        {
            return Err(ArmError::nrp(
                error_codes::PLS_IN_SUBNET_WITH_NETWORK_POLICIES,
                format!(
                    "Private link service {pls_id} cannot be created in a subnet {subnet_id} since it has private link service network policies enabled."
                ),
            ));
        }
    }
    Ok(())
}

/// The NAT ipconfig of the stored NIC `nic_key` named `name`.
fn nic_ipconfig<'a>(store: &'a Store, nic_key: &str, name: &str) -> Option<&'a Value> {
    store
        .object(nic_key)
        .and_then(|nic| crate::store::find_child(nic, "ipConfigurations", name))
}

/// A stored PLS document with the NAT addresses its NIC holds filled into Dynamic ipconfigs (the document itself
/// does not show them), so that a later PUT keeps them.
fn with_nic_addresses(store: &Store, doc: &Value, nic_key: &str) -> Value {
    let mut doc = doc.clone();
    for ipc in doc
        .pointer_mut("/properties/ipConfigurations")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        let name = ipc["name"].as_str().unwrap_or_default().to_string();
        if ipc.pointer("/properties/privateIPAddress").is_none()
            && let Some(addr) = nic_ipconfig(store, nic_key, &name)
                .and_then(|c| c.pointer("/properties/privateIPAddress"))
                .cloned()
        {
            ipc["properties"]["privateIPAddress"] = addr;
        }
    }
    doc
}

/// Removes `privateIPAddress` from Dynamic NAT ipconfigs; `true` if any was removed.
fn hide_dynamic_addresses(doc: &mut Value) -> bool {
    let mut any = false;
    for ipc in doc
        .pointer_mut("/properties/ipConfigurations")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        if let Some(p) = ipc.get_mut("properties").and_then(Value::as_object_mut)
            && p.get("privateIPAllocationMethod").and_then(Value::as_str) != Some("Static")
        {
            any |= p.remove("privateIPAddress").is_some();
        }
    }
    any
}

/// The NAT ipConfigurations of a PLS document as the NIC carries them.
fn nic_ipconfigs(pls: &Value, nic_id: &str) -> Vec<Value> {
    pls.pointer("/properties/ipConfigurations")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|c| {
            let name = c["name"].as_str().unwrap_or_default();
            let p = &c["properties"];
            json!({
                "name": name,
                "id": format!("{nic_id}/ipConfigurations/{name}"),
                "type": "Microsoft.Network/networkInterfaces/ipConfigurations",
                "properties": {
                    "privateIPAddress": p["privateIPAddress"],
                    "privateIPAllocationMethod": p["privateIPAllocationMethod"],
                    "privateIPAddressVersion": p["privateIPAddressVersion"],
                    "primary": p["primary"],
                    "subnet": { "id": p.pointer("/subnet/id") },
                }
            })
        })
        .collect()
}

/// Creates or refreshes the NIC of the private link service stored at `pls_key` after the PLS was written (or
/// rolled back), then hides the Dynamic NAT addresses from the PLS document. Leaves the NIC untouched (same etag)
/// when its addresses did not change.
pub(crate) fn sync_nic(store: &mut Store, pls_key: &str) {
    sync_nic_ipconfigs(store, pls_key);
    if let Some(e) = store.entries.get_mut(pls_key)
        && e.kind == KindId::PrivateLinkService
        && hide_dynamic_addresses(&mut e.doc)
    {
        e.rerender();
    }
}

fn sync_nic_ipconfigs(store: &mut Store, pls_key: &str) {
    let Some(pls) = store.entries.get(pls_key) else {
        return;
    };
    if pls.kind != KindId::PrivateLinkService {
        return;
    }
    let Some(nic_id) = nic_of(&pls.doc).map(String::from) else {
        return;
    };
    let nic_key = key_of(&nic_id);
    let ipconfigs = nic_ipconfigs(&with_nic_addresses(store, &pls.doc, &nic_key), &nic_id);
    let location = pls.location().to_string();
    let existing = store.entries.get(&nic_key);
    let unchanged = existing.is_some_and(|e| {
        let old: Vec<Value> = e
            .doc
            .pointer("/properties/ipConfigurations")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|c| {
                let mut c = c.clone();
                if let Some(o) = c.as_object_mut() {
                    o.remove("etag");
                }
                if let Some(p) = c.get_mut("properties").and_then(Value::as_object_mut) {
                    p.remove("provisioningState");
                }
                c
            })
            .collect();
        old == ipconfigs
    });
    if unchanged {
        return;
    }
    let guid = existing
        .and_then(|e| e.doc.pointer("/properties/resourceGuid").cloned())
        .unwrap_or_else(|| json!(uuid::Uuid::new_v4().to_string()));
    let mut doc = json!({
        "name": crate::id::last_name(&nic_id),
        "id": nic_id,
        "type": "Microsoft.Network/networkInterfaces",
        "location": location,
        "kind": "Regular",
        "properties": {
            "ipConfigurations": ipconfigs,
            "enableAcceleratedNetworking": false,
            "enableIPForwarding": false,
            "dnsSettings": { "dnsServers": [], "appliedDnsServers": [] },
            "resourceGuid": guid,
        }
    });
    super::stamp(&mut doc, KindId::Nic, Some(&etag::new_nrp()), "Succeeded");
    store.commit(&nic_key, KindId::Nic, doc, None);
}

/// Entries deleted together with `key`: a private link service takes its NIC with it.
pub(crate) fn dependents(store: &Store, key: &str) -> Vec<String> {
    store
        .entries
        .get(key)
        .filter(|e| e.kind == KindId::PrivateLinkService)
        .map(|e| {
            e.out_refs
                .iter()
                .filter(|r| r.kind == RefKind::PlsNic)
                .map(|r| key_of(&r.to))
                .filter(|k| store.entries.contains_key(k))
                .collect()
        })
        .unwrap_or_default()
}

/// The private link service owning the NIC stored at `nic_key`, if any.
pub(crate) fn owner_of_nic<'a>(store: &'a Store, nic_key: &str) -> Option<&'a str> {
    store
        .index
        .incoming(nic_key)
        .find(|(_, r)| r.kind == RefKind::PlsNic)
        .map(|(_, r)| r.from.as_str())
}

/// A client PUT on a private link service's NIC. [unverified] code and wording, modelled on the verified answer
/// for a private endpoint's NIC (CannotModifyNicAttachedToPrivateEndpoint, 400: "Network interface <nic> is linked to
/// a private endpoint <pe>. It can not be modified by user." — Azure/azure-sdk-for-python issue #18911). Tag updates
/// (PATCH) stay allowed, as they are for private endpoint NICs (terraform-provider-azurerm PR #29319).
pub(crate) fn nic_is_read_only(nic_id: &str, pls_id: &str) -> ArmError {
    ArmError::nrp(
        error_codes::CANNOT_MODIFY_NIC_ATTACHED_TO_PLS,
        format!(
            "Network interface {nic_id} is linked to a private link service {pls_id}. It can not be modified by user."
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nic_name_follows_the_pls_in_its_group() {
        let id = nic_id_for(
            "/subscriptions/s/resourceGroups/RG/providers/Microsoft.Network/privateLinkServices/myPls",
            "myPls",
        );
        let prefix = "/subscriptions/s/resourceGroups/RG/providers/Microsoft.Network/networkInterfaces/myPls.nic.";
        assert!(id.starts_with(prefix), "{id}");
        assert!(uuid::Uuid::parse_str(&id[prefix.len()..]).is_ok(), "{id}");
    }
}
