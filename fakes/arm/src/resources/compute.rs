//! Compute resources: VMs (instance view, NIC ownership), scale sets (uniform instances materialised from
//! `sku.capacity`, their NICs built by `scale_set_network`; flexible members are ordinary VMs), scale-set VM
//! updates (PUT is a merge) and availability sets.
//!
//! A PUT on an existing VM or scale set is an update (`crp_update`): the sent document merges into the stored one,
//! so the CCM's sparse backend-pool PUT keeps `sku.capacity` and every instance. Defaults CRP computes are in
//! `compute_defaults`, write-only secrets in `write_only`. A scale-set VM PUT merges `properties`, `zones` and
//! `plan` and ignores `tags` (the instance shows the tags it was materialised with, the scale set's, [infer]).

use super::crp_update::{merge_update, normalise_identity};
use super::write_only::strip_write_only;
use super::{compute_defaults, default};
use crate::error::ArmError;
use crate::error_codes;
use crate::id::{ArmPath, key_of};
use crate::kinds::KindId;
use crate::lro::now_rfc3339;
use crate::references::{Ref, RefKind};
use crate::store::{Entry, Store};
use crate::write::{WriteCtx, merge};
use serde_json::{Value, json};

/// Builds (or keeps) the instance view of a VM / scale-set VM; `None` for other kinds.
pub(crate) fn initial_instance_view(
    kind: KindId,
    doc: &Value,
    existing: Option<Value>,
) -> Option<Value> {
    if !matches!(kind, KindId::Vm | KindId::VmssVm) {
        return None;
    }
    if existing.is_some() {
        return existing;
    }
    let computer = doc
        .pointer("/properties/osProfile/computerName")
        .and_then(Value::as_str)
        .or(doc["name"].as_str())
        .unwrap_or_default();
    Some(json!({
        "computerName": computer,
        "platformUpdateDomain": 0,
        "platformFaultDomain": 0,
        "statuses": [
            { "code": "ProvisioningState/succeeded", "level": "Info", "displayStatus": "Provisioning succeeded", "time": now_rfc3339() },
            { "code": "PowerState/running", "level": "Info", "displayStatus": "VM running" }
        ]
    }))
}

/// Replaces the `PowerState/*` status of an instance view.
pub(crate) fn set_power_state_in(iv: &mut Value, code: &str, display: &str) {
    let status =
        json!({ "code": format!("PowerState/{code}"), "level": "Info", "displayStatus": display });
    match iv.get_mut("statuses").and_then(Value::as_array_mut) {
        Some(arr) => {
            arr.retain(|s| {
                !s["code"]
                    .as_str()
                    .unwrap_or_default()
                    .starts_with("PowerState/")
            });
            arr.push(status);
        }
        None => iv["statuses"] = json!([status]),
    }
}

/// Prepares VM, VMSS, VMSS VM and availability-set documents.
pub(crate) fn prepare(
    _store: &Store,
    kind: KindId,
    doc: &mut Value,
    existing: Option<&Entry>,
    path: &ArmPath,
    _cx: &WriteCtx,
) -> Result<(), ArmError> {
    let keep = |field: &str| existing.and_then(|e| e.doc.pointer(field).cloned());
    if let (KindId::Vm | KindId::Vmss, Some(e)) = (kind, existing) {
        // CRP update semantics: what the PUT omits keeps its stored value.
        let mut merged = e.doc.clone();
        merge_update(&mut merged, doc);
        *doc = merged;
    }
    normalise_identity(doc);
    strip_write_only(kind, doc);
    match kind {
        KindId::Vm => {
            let vm_id =
                keep("/properties/vmId").unwrap_or_else(|| json!(uuid::Uuid::new_v4().to_string()));
            let created = keep("/properties/timeCreated").unwrap_or_else(|| json!(now_rfc3339()));
            let p = &mut doc["properties"];
            p["vmId"] = vm_id;
            p["timeCreated"] = created;
            p.as_object_mut().map(|o| o.remove("instanceView"));
            for field in ["availabilitySet", "virtualMachineScaleSet"] {
                if let Some(id) = p.get(field).and_then(|v| v.get("id")).cloned() {
                    p[field] = json!({ "id": id });
                }
            }
        }
        KindId::Vmss => {
            let unique = keep("/properties/uniqueId")
                .unwrap_or_else(|| json!(uuid::Uuid::new_v4().to_string()));
            let created = keep("/properties/timeCreated").unwrap_or_else(|| json!(now_rfc3339()));
            let p = &mut doc["properties"];
            p["uniqueId"] = unique;
            p["timeCreated"] = created;
            default(p, "orchestrationMode", json!("Uniform"));
            let mode = p["orchestrationMode"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            if !matches!(mode.as_str(), "Uniform" | "Flexible") {
                return Err(ArmError::invalid_parameter(
                    format!(
                        "The value '{mode}' of parameter 'orchestrationMode' is not allowed. Allowed values are 'Uniform', 'Flexible'."
                    ),
                    "orchestrationMode",
                ));
            }
            if let Some(prev) = existing.and_then(|e| {
                e.doc
                    .pointer("/properties/orchestrationMode")
                    .and_then(Value::as_str)
            }) && prev != mode
            {
                return Err(ArmError::new(
                    error_codes::PROPERTY_CHANGE_NOT_ALLOWED,
                    "Changing property 'orchestrationMode' is not allowed.",
                )
                .with_target("orchestrationMode"));
            }
            if mode == "Uniform" {
                default(p, "upgradePolicy", json!({ "mode": "Manual" }));
            }
            compute_defaults::scale_set(doc, &mode);
            let capacity = doc
                .pointer("/sku/capacity")
                .and_then(Value::as_i64)
                .unwrap_or(0);
            if capacity < 0 {
                return Err(ArmError::invalid_parameter(
                    "The value of parameter 'sku.capacity' is out of range. It must be between 0 and 1000.",
                    "sku.capacity",
                ));
            }
        }
        KindId::VmssVm => {
            let Some(e) = existing else {
                let name = path.names.last().cloned().unwrap_or_default();
                return Err(ArmError::new(
                    error_codes::NOT_FOUND,
                    format!(
                        "The entity was not found in this Azure location. Resource '{name}' not found."
                    ),
                ));
            };
            // CRP merges a scale-set VM PUT into the stored model; the instance takes no tags of its own
            // (they follow the scale set, [infer]).
            let mut merged = e.doc.clone();
            for field in ["properties", "zones", "plan"] {
                if let Some(v) = doc.get(field) {
                    if field == "properties" {
                        let mut v = v.clone();
                        for ro in [
                            "vmId",
                            "latestModelApplied",
                            "instanceView",
                            "networkProfile",
                            "provisioningState",
                        ] {
                            v.as_object_mut().map(|o| o.remove(ro));
                        }
                        merge(&mut merged[field], &v);
                    } else {
                        merged[field] = v.clone();
                    }
                }
            }
            if let Some(configs) = merged.pointer_mut(
                "/properties/networkProfileConfiguration/networkInterfaceConfigurations",
            ) {
                compute_defaults::ipconfig_versions(configs);
            }
            strip_write_only(kind, &mut merged);
            *doc = merged;
        }
        KindId::AvailabilitySet => {
            if doc.get("sku").is_none_or(Value::is_null) {
                doc["sku"] = json!({ "name": "Classic" });
            }
            let p = &mut doc["properties"];
            default(p, "platformFaultDomainCount", json!(2));
            default(p, "platformUpdateDomainCount", json!(5));
        }
        _ => {}
    }
    Ok(())
}

/// VM checks: NICs not owned by another VM; flexible scale set reference must be a Flexible scale set.
pub(crate) fn validate_vm_references(
    store: &Store,
    key: &str,
    doc: &Value,
    refs: &[Ref],
) -> Result<(), ArmError> {
    for r in refs {
        match r.kind {
            RefKind::VmOfNic => {
                if let Some((_, other)) = store
                    .index
                    .incoming(&key_of(&r.to))
                    .find(|(o, rr)| o != key && rr.kind == RefKind::VmOfNic)
                {
                    return Err(ArmError::nrp(
                        error_codes::NIC_IN_USE,
                        format!(
                            "Network Interface {} is used by existing resource {}. In order to delete the network interface, it must be dissociated from the resource. To learn more, see aka.ms/deletenic.",
                            r.to, other.from
                        ),
                    ));
                }
            }
            RefKind::VmOfScaleSet => {
                let mode = store
                    .object(&key_of(&r.to))
                    .and_then(|v| v.pointer("/properties/orchestrationMode"))
                    .and_then(Value::as_str)
                    .unwrap_or("Uniform");
                if mode != "Flexible" {
                    return Err(ArmError::invalid_parameter(
                        format!(
                            "Virtual Machine Scale Set {} is not in Flexible orchestration mode; only Flexible scale sets can reference standalone virtual machines.",
                            r.to
                        ),
                        "properties.virtualMachineScaleSet.id",
                    ));
                }
            }
            _ => {}
        }
    }
    let nics: Vec<String> = refs
        .iter()
        .filter(|r| r.kind == RefKind::VmOfNic)
        .map(|r| key_of(&r.to))
        .collect();
    let vm_id = doc["id"].as_str().unwrap_or(key);
    super::nic_load_balancers::check_vm_nics(store, vm_id, &nics, None)
}

fn instance_keys(store: &Store, vmss_key: &str) -> Vec<(u64, String)> {
    let prefix = format!("{vmss_key}/virtualmachines/");
    let mut out: Vec<(u64, String)> = store
        .entries
        .range(prefix.clone()..)
        .take_while(|(k, _)| k.starts_with(&prefix))
        .filter(|(k, e)| e.kind == KindId::VmssVm && !k[prefix.len()..].contains('/'))
        .filter_map(|(k, _)| {
            k[prefix.len()..]
                .parse::<u64>()
                .ok()
                .map(|i| (i, k.clone()))
        })
        .collect();
    out.sort();
    out
}

fn computer_name(prefix: &str, i: u64) -> String {
    let mut digits = String::new();
    let mut n = i;
    for _ in 0..6 {
        let d = (n % 36) as u32;
        digits.insert(0, char::from_digit(d, 36).unwrap_or('0'));
        n /= 36;
    }
    format!("{prefix}{digits}")
}

/// Brings a uniform scale set's instances in line with `sku.capacity` (adds the next instance ids, removes
/// the highest ones) and marks instances whose network model differs from the scale set's as not latest.
pub(crate) fn sync_instances(
    store: &mut Store,
    vmss_key: &str,
    _cx: &WriteCtx,
) -> Result<(), ArmError> {
    let Some(vmss) = store.entries.get(vmss_key).map(|e| e.doc.clone()) else {
        return Ok(());
    };
    if vmss
        .pointer("/properties/orchestrationMode")
        .and_then(Value::as_str)
        != Some("Uniform")
    {
        return Ok(());
    }
    let capacity = vmss
        .pointer("/sku/capacity")
        .and_then(Value::as_u64)
        .unwrap_or(0) as usize;
    let model_net = vmss
        .pointer("/properties/virtualMachineProfile/networkProfile/networkInterfaceConfigurations")
        .cloned()
        .unwrap_or(json!([]));
    let automatic = vmss
        .pointer("/properties/upgradePolicy/mode")
        .and_then(Value::as_str)
        .is_some_and(|m| m != "Manual");
    let existing = instance_keys(store, vmss_key);
    if existing.len() > capacity {
        let remove: Vec<String> = existing[capacity..]
            .iter()
            .flat_map(|(_, k)| {
                let prefix = format!("{k}/");
                let mut ks: Vec<String> = store
                    .entries
                    .range(prefix.clone()..)
                    .take_while(|(kk, _)| kk.starts_with(&prefix))
                    .map(|(kk, _)| kk.clone())
                    .collect();
                ks.push(k.clone());
                ks
            })
            .collect();
        store.remove_entries(&remove);
    }
    for (_, k) in instance_keys(store, vmss_key) {
        let Some(e) = store.entries.get(&k) else {
            continue;
        };
        let mut doc = e.doc.clone();
        if automatic {
            doc["properties"]["networkProfileConfiguration"] =
                json!({ "networkInterfaceConfigurations": model_net });
        }
        let latest = doc
            .pointer("/properties/networkProfileConfiguration/networkInterfaceConfigurations")
            == Some(&model_net);
        doc["properties"]["latestModelApplied"] = json!(latest);
        let kind = e.kind;
        if doc != e.doc {
            store.commit(&k, kind, doc, None);
            super::scale_set_network::sync_instance_nics(store, &k);
        }
    }
    let vmss_id = vmss["id"].as_str().unwrap_or_default().to_string();
    let vmss_name = vmss["name"].as_str().unwrap_or_default().to_string();
    let prefix = vmss
        .pointer("/properties/virtualMachineProfile/osProfile/computerNamePrefix")
        .and_then(Value::as_str)
        .unwrap_or(&vmss_name)
        .to_string();
    let current = instance_keys(store, vmss_key);
    let first = current.last().map_or(0, |(i, _)| i + 1);
    let missing = capacity.saturating_sub(current.len()) as u64;
    for next in first..first + missing {
        let id = format!("{vmss_id}/virtualMachines/{next}");
        let mut sku = vmss.get("sku").cloned().unwrap_or(json!({}));
        sku.as_object_mut().map(|o| o.remove("capacity"));
        let mut doc = json!({
            "name": format!("{vmss_name}_{next}"),
            "id": id,
            "type": "Microsoft.Compute/virtualMachineScaleSets/virtualMachines",
            "location": vmss["location"],
            "instanceId": next.to_string(),
            "sku": sku,
            "etag": "\"1\"",
            "properties": {
                "latestModelApplied": true,
                "vmId": uuid::Uuid::new_v4().to_string(),
                "hardwareProfile": { "vmSize": vmss.pointer("/sku/name").cloned().unwrap_or(Value::Null) },
                "osProfile": { "computerName": computer_name(&prefix, next) },
                "storageProfile": compute_defaults::instance_storage_profile(&vmss, &format!("{vmss_name}_{next}")),
                "networkProfile": { "networkInterfaces": [] },
                "networkProfileConfiguration": { "networkInterfaceConfigurations": model_net },
                "provisioningState": "Succeeded",
                "timeCreated": now_rfc3339()
            }
        });
        if let Some(z) = vmss
            .get("zones")
            .and_then(Value::as_array)
            .filter(|z| !z.is_empty())
        {
            doc["zones"] = json!([z[(next as usize) % z.len()]]);
        }
        if let Some(tags) = vmss.get("tags") {
            doc["tags"] = tags.clone();
        }
        let key = key_of(&id);
        let iv = initial_instance_view(KindId::VmssVm, &doc, None);
        store.commit(&key, KindId::VmssVm, doc, iv);
        if let Some(e) = store.entries.get_mut(&key) {
            e.version = 1;
        }
        super::scale_set_network::sync_instance_nics(store, &key);
    }
    Ok(())
}

/// When uniform instances are deleted on their own, their scale set's capacity shrinks.
pub(crate) fn on_instances_removed(store: &mut Store, keys: &[String]) {
    for k in keys {
        let Some(e) = store.entries.get(k) else {
            continue;
        };
        if e.kind != KindId::VmssVm {
            continue;
        }
        let Some(vmss_key) = k
            .rsplit_once("/virtualmachines/")
            .map(|(v, _)| v.to_string())
        else {
            continue;
        };
        if keys.contains(&vmss_key) {
            continue;
        }
        if let Some(v) = store.entries.get_mut(&vmss_key) {
            let cap = v
                .doc
                .pointer("/sku/capacity")
                .and_then(Value::as_u64)
                .unwrap_or(0);
            v.doc["sku"]["capacity"] = json!(cap.saturating_sub(1));
            v.rerender();
        }
    }
}
