//! Basic SKU, Dynamic allocation public IPs have no address until attached: a GET shows no `ipAddress` and no
//! `ddosSettings` until the address is associated with a running resource (issue 9 item 7, observed against real
//! NRP; the Azure public IP documentation says dynamic addresses are assigned on association and released on
//! dissociation or when the VM is stopped (deallocated)). Here "attached" means referenced by a load balancer
//! frontend, or by an ipconfig of a NIC used by a VM that is not deallocated; that the address appears when the
//! association is committed rather than when the writing operation ends is [infer]. Every address change stamps a new etag ([infer]).

use super::network::{allocate_public_ip, sku_name};
use crate::etag;
use crate::id::key_of;
use crate::kinds::KindId;
use crate::references::{RefKind, parent_key};
use crate::store::Store;
use serde_json::{Value, json};

/// The `ddosSettings` NRP reports on an allocated public IP.
pub(crate) fn default_ddos() -> Value {
    json!({ "protectionMode": "VirtualNetworkInherited" })
}

/// `true` for a public IP whose address waits for an association (Basic SKU, Dynamic allocation).
pub(crate) fn is_deferred(doc: &Value) -> bool {
    sku_name(doc) == "Basic"
        && doc
            .pointer("/properties/publicIPAllocationMethod")
            .and_then(Value::as_str)
            == Some("Dynamic")
}

/// `true` when the public IP stored at `pip_key` is used by an LB frontend or by a NIC attached to a VM.
pub(crate) fn is_attached(store: &Store, pip_key: &str) -> bool {
    store
        .index
        .incoming(pip_key)
        .filter(|(_, r)| r.kind == RefKind::PipUser)
        .any(|(owner, r)| {
            let from = key_of(&r.from);
            if from.contains("/frontendipconfigurations/") {
                return true;
            }
            let nic = parent_key(&r.from);
            let nic = if store.entries.contains_key(&nic) {
                nic
            } else {
                owner.clone()
            };
            store
                .entries
                .get(&nic)
                .and_then(|e| e.doc.pointer("/properties/virtualMachine/id"))
                .and_then(Value::as_str)
                .is_some_and(|vm| vm_holds_addresses(store, &key_of(vm)))
        })
}

/// `true` unless the VM stored at `vm_key` is deallocated (or deallocating): a stopped-deallocated VM releases its
/// dynamic public addresses (Azure public IP address documentation, "IP address assignment").
fn vm_holds_addresses(store: &Store, vm_key: &str) -> bool {
    let power = store
        .entries
        .get(vm_key)
        .and_then(|e| e.instance_view.as_ref())
        .and_then(|iv| iv.get("statuses"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|s| s.get("code").and_then(Value::as_str))
        .find(|c| c.starts_with("PowerState/"));
    !matches!(
        power,
        Some("PowerState/deallocated" | "PowerState/deallocating")
    )
}

/// After the instance view (power state) of the VM stored at `vm_key` changed: refreshes the public IPs of its NICs.
pub(crate) fn refresh_for_vm(store: &mut Store, vm_key: &str) {
    let nics: Vec<String> = store
        .entries
        .get(vm_key)
        .filter(|e| e.kind == KindId::Vm)
        .map(|e| {
            e.out_refs
                .iter()
                .filter(|r| r.kind == RefKind::VmOfNic)
                .map(|r| key_of(&r.to))
                .collect()
        })
        .unwrap_or_default();
    refresh_after_backrefs(store, &nics);
}

/// Brings the address of a deferred public IP in line with its associations.
pub(crate) fn refresh(store: &mut Store, pip_key: &str) {
    let Some(e) = store.entries.get(pip_key) else {
        return;
    };
    if e.kind != KindId::PublicIp || !is_deferred(&e.doc) {
        return;
    }
    let has = e.doc.pointer("/properties/ipAddress").is_some();
    let attached = is_attached(store, pip_key);
    if attached && !has {
        allocate_public_ip(store, pip_key);
        if let Some(e) = store.entries.get_mut(pip_key) {
            super::default(&mut e.doc["properties"], "ddosSettings", default_ddos());
            super::stamp_etag(&mut e.doc, KindId::PublicIp, &etag::new_nrp());
            e.rerender();
        }
    } else if !attached
        && has
        && let Some(e) = store.entries.get_mut(pip_key)
        && let Some(p) = e.doc.get_mut("properties").and_then(Value::as_object_mut)
    {
        p.remove("ipAddress");
        if p.get("ddosSettings") == Some(&default_ddos()) {
            p.remove("ddosSettings");
        }
        super::stamp_etag(&mut e.doc, KindId::PublicIp, &etag::new_nrp());
        e.rerender();
    }
}

/// After back-references of the entries `owners` changed: refreshes the public IPs among them and those their NICs
/// use (a NIC gaining or losing its VM attaches or detaches its public IPs).
pub(crate) fn refresh_after_backrefs(store: &mut Store, owners: &[String]) {
    let mut pips = Vec::new();
    for owner in owners {
        let Some(e) = store.entries.get(owner) else {
            continue;
        };
        match e.kind {
            KindId::PublicIp => pips.push(owner.clone()),
            KindId::Nic => pips.extend(
                e.out_refs
                    .iter()
                    .filter(|r| r.kind == RefKind::PipUser)
                    .map(|r| key_of(&r.to)),
            ),
            _ => {}
        }
    }
    for pip in pips {
        refresh(store, &pip);
    }
}
