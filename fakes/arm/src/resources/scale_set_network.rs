//! Network resources of uniform scale-set instances: NRP derives one NIC per `networkInterfaceConfigurations`
//! entry of the instance model (`.../virtualMachines/{i}/networkInterfaces/{nic}`) and one public IP per
//! ipconfig `publicIPAddressConfiguration`
//! (`.../networkInterfaces/{nic}/ipConfigurations/{ipc}/publicIPAddresses/{pip}`). Both are read-only views served
//! under the `Microsoft.Compute` path with api-version 2018-10-01, rebuilt whenever the instance model changes.

use super::network::{prepare_ipconfigs, sku_name};
use crate::id::key_of;
use crate::kinds::KindId;
use crate::store::Store;
use serde_json::{Value, json};

/// Builds the public IP document an ipconfig's `publicIPAddressConfiguration` describes (Basic/Dynamic unless the
/// configuration names a Standard SKU, which is always Static).
fn instance_public_ip(
    ipc_id: &str,
    location: &Value,
    cfg: &Value,
    previous: Option<&Value>,
) -> (String, Value) {
    let name = cfg["name"].as_str().unwrap_or_default();
    let id = format!("{ipc_id}/publicIPAddresses/{name}");
    let sku = cfg
        .get("sku")
        .filter(|s| s.is_object())
        .cloned()
        .unwrap_or_else(|| json!({ "name": "Basic", "tier": "Regional" }));
    let mut doc = json!({ "name": name, "id": id, "type": "Microsoft.Network/publicIPAddresses", "location": location, "sku": sku });
    let standard = sku_name(&doc).starts_with("Standard");
    let p = cfg.get("properties").cloned().unwrap_or(json!({}));
    doc["properties"] = json!({
        "publicIPAllocationMethod": if standard { "Static" } else { "Dynamic" },
        "publicIPAddressVersion": p.get("publicIPAddressVersion").cloned().unwrap_or(json!("IPv4")),
        "idleTimeoutInMinutes": p.get("idleTimeoutInMinutes").cloned().unwrap_or(json!(4)),
        "ipTags": p.get("ipTags").cloned().unwrap_or(json!([])),
        "resourceGuid": previous
            .and_then(|d| d.pointer("/properties/resourceGuid").cloned())
            .unwrap_or_else(|| json!(uuid::Uuid::new_v4().to_string())),
    });
    if let Some(dns) = p.get("dnsSettings") {
        doc["properties"]["dnsSettings"] = dns.clone();
    }
    if let Some(addr) = previous.and_then(|d| d.pointer("/properties/ipAddress")) {
        doc["properties"]["ipAddress"] = addr.clone();
    }
    (id, doc)
}

/// Rebuilds the NICs (and their public IPs) of one uniform instance from its `networkProfileConfiguration`.
pub(crate) fn sync_instance_nics(store: &mut Store, instance_key: &str) {
    let Some(inst) = store.entries.get(instance_key).map(|e| e.doc.clone()) else {
        return;
    };
    let inst_id = inst["id"].as_str().unwrap_or_default().to_string();
    let configs = inst
        .pointer("/properties/networkProfileConfiguration/networkInterfaceConfigurations")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let prefix = format!("{instance_key}/networkinterfaces/");
    let old: Vec<String> = store
        .entries
        .range(prefix.clone()..)
        .take_while(|(k, _)| k.starts_with(&prefix))
        .map(|(k, _)| k.clone())
        .collect();
    let mut keep = Vec::new();
    let mut nic_refs = Vec::new();
    for cfg in &configs {
        let name = cfg["name"].as_str().unwrap_or_default();
        let nic_id = format!("{inst_id}/networkInterfaces/{name}");
        let key = key_of(&nic_id);
        let previous = store.entries.get(&key).map(|e| e.doc.clone());
        let mut pips = Vec::new();
        let mut ipcs = Vec::new();
        for ipc in cfg
            .pointer("/properties/ipConfigurations")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let ipc_name = ipc["name"].as_str().unwrap_or_default();
            let ipc_id = format!("{nic_id}/ipConfigurations/{ipc_name}");
            let mut p = ipc.get("properties").cloned().unwrap_or(json!({}));
            let pip_cfg = p.get("publicIPAddressConfiguration").cloned();
            if let Some(o) = p.as_object_mut() {
                for ro in [
                    "publicIPAddressConfiguration",
                    "loadBalancerInboundNatPools",
                    "applicationGatewayBackendAddressPools",
                ] {
                    o.remove(ro);
                }
            }
            if let Some(pip_cfg) = pip_cfg.filter(|c| c.get("name").is_some_and(Value::is_string)) {
                let pip_key_prefix = key_of(&format!("{ipc_id}/publicIPAddresses/"));
                let prev_pip = store
                    .entries
                    .range(pip_key_prefix.clone()..)
                    .take_while(|(k, _)| k.starts_with(&pip_key_prefix))
                    .map(|(_, e)| e.doc.clone())
                    .next();
                let (pip_id, pip_doc) =
                    instance_public_ip(&ipc_id, &inst["location"], &pip_cfg, prev_pip.as_ref());
                p["publicIPAddress"] = json!({ "id": pip_id });
                pips.push((pip_id, pip_doc));
            }
            ipcs.push(json!({ "name": ipc_name, "id": ipc_id, "type": "Microsoft.Network/networkInterfaces/ipConfigurations", "properties": p }));
        }
        let keep_prev = |field: &str| previous.as_ref().and_then(|d| d.pointer(field).cloned());
        let mac = keep_prev("/properties/macAddress")
            .unwrap_or_else(|| json!(format!("00-0D-3A-{:06X}", store.alloc.next_mac)));
        let guid = keep_prev("/properties/resourceGuid")
            .unwrap_or_else(|| json!(uuid::Uuid::new_v4().to_string()));
        let mut doc = json!({
            "name": name, "id": nic_id, "type": "Microsoft.Network/networkInterfaces", "location": inst["location"],
            "properties": {
                "ipConfigurations": ipcs,
                "primary": cfg.pointer("/properties/primary").cloned().unwrap_or(json!(true)),
                "enableAcceleratedNetworking": cfg.pointer("/properties/enableAcceleratedNetworking").cloned().unwrap_or(json!(false)),
                "enableIPForwarding": cfg.pointer("/properties/enableIPForwarding").cloned().unwrap_or(json!(false)),
                "virtualMachine": { "id": inst_id },
                "macAddress": mac,
                "resourceGuid": guid,
            }
        });
        store.alloc.next_mac += 1;
        if let Some(nsg) = cfg.pointer("/properties/networkSecurityGroup/id") {
            doc["properties"]["networkSecurityGroup"] = json!({ "id": nsg });
        }
        if prepare_ipconfigs(store, &mut doc, previous.as_ref()).is_err() {
            continue;
        }
        let tag = crate::etag::new_nrp();
        super::stamp(&mut doc, KindId::VmssNic, Some(&tag), "Succeeded");
        store.commit(&key, KindId::VmssNic, doc, None);
        keep.push(key);
        for (pip_id, mut pip_doc) in pips {
            let pip_key = key_of(&pip_id);
            super::stamp(&mut pip_doc, KindId::VmssPip, Some(&tag), "Succeeded");
            store.commit(&pip_key, KindId::VmssPip, pip_doc, None);
            super::network::allocate_public_ip(store, &pip_key);
            keep.push(pip_key);
        }
        nic_refs.push(json!({ "id": nic_id }));
    }
    let stale: Vec<String> = old.into_iter().filter(|k| !keep.contains(k)).collect();
    store.remove_entries(&stale);
    if let Some(e) = store.entries.get_mut(instance_key) {
        e.doc["properties"]["networkProfile"] = json!({ "networkInterfaces": nic_refs });
        e.rerender();
    }
}
