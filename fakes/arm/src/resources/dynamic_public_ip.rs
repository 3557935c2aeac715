//! Basic SKU, Dynamic allocation public IPs have no address until attached: a GET shows no `ipAddress` and no
//! `ddosSettings` until the address is associated with a running resource (issue 9 item 7, observed against real
//! NRP; the Azure public IP documentation says dynamic addresses are assigned on association and released on
//! dissociation). Here "attached" means referenced by a load balancer frontend or by an ipconfig of a NIC a VM uses;
//! that the VM's power state is not consulted, and that the address appears when the association is committed rather
//! than when the writing operation ends, are [infer]. Every address change stamps a new etag ([infer]).

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
                .is_some_and(|e| e.doc.pointer("/properties/virtualMachine").is_some())
        })
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
