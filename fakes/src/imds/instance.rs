//! `/metadata/instance`: the compute and network document of one VM, built from its ARM VM (or scale-set
//! VM and scale set), instance view, NICs, subnets and public IPs; deeper paths select a sub-tree, and
//! leaves need `format=text`. Every primitive is a string, inapplicable values are `""`.

use super::guards::Query;
use super::{ImdsState, Vm, responses};
use crate::topology::NodeKind;
use crate::topology::lookup::segment_after;
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Map, Value, json};

/// Answers `/metadata/instance[/path...]`.
pub(super) fn answer(state: &ImdsState, vm: &Vm, path: &[&str], query: &Query) -> Response {
    let text = match query.get("format") {
        None | Some("json") => false,
        Some("text") => true,
        Some(other) => {
            return responses::error(
                StatusCode::BAD_REQUEST,
                "invalid_request",
                &format!(
                    "Bad request. Unsupported format '{other}'; accepted values are json and text"
                ),
                false,
            );
        }
    };
    let doc = json!({ "compute": compute(state, vm), "network": network(state, vm) });
    let mut node = &doc;
    for seg in path {
        let next = match node {
            Value::Object(m) => m.get(*seg),
            Value::Array(a) => seg.parse::<usize>().ok().and_then(|i| a.get(i)),
            _ => None,
        };
        match next {
            Some(n) => node = n,
            None => return responses::not_found(),
        }
    }
    match (node, text) {
        (Value::String(s), true) => responses::text(s.clone()),
        (Value::String(_), false) => responses::error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "Bad request. Leaf nodes must be requested with format=text",
            false,
        ),
        (Value::Object(m), true) => responses::text(
            m.iter()
                .map(|(k, v)| {
                    if v.is_string() {
                        k.clone()
                    } else {
                        format!("{k}/")
                    }
                })
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        (Value::Array(a), true) => responses::text(
            (0..a.len())
                .map(|i| format!("{i}/"))
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        (other, _) => responses::json(StatusCode::OK, other),
    }
}

fn s(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(x)) => x.clone(),
        Some(Value::Bool(b)) => b.to_string(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    }
}

/// The model the VM was built from: the VM itself, or the scale set's `virtualMachineProfile` for uniform instances.
fn profile<'a>(vm: &'a Vm, field: &str) -> Option<&'a Value> {
    vm.doc.pointer(&format!("/properties/{field}")).or_else(|| {
        if vm.kind == NodeKind::VmssUniform {
            vm.scale_set
                .as_ref()?
                .pointer(&format!("/properties/virtualMachineProfile/{field}"))
        } else {
            None
        }
    })
}

fn compute(state: &ImdsState, vm: &Vm) -> Value {
    let iv = state.arm().instance_view(&vm.id).unwrap_or(Value::Null);
    let tags: Map<String, Value> = vm
        .doc
        .get("tags")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let mut tag_pairs: Vec<(&String, String)> = tags.iter().map(|(k, v)| (k, s(Some(v)))).collect();
    tag_pairs.sort();
    let image = profile(vm, "storageProfile/imageReference")
        .cloned()
        .unwrap_or(Value::Null);
    let os_disk = profile(vm, "storageProfile/osDisk")
        .cloned()
        .unwrap_or(Value::Null);
    let linux = profile(vm, "osProfile/linuxConfiguration");
    let os_type = s(os_disk.get("osType")).chars().next().map_or_else(
        || {
            if linux.is_some() {
                "Linux".to_string()
            } else {
                "Windows".to_string()
            }
        },
        |_| s(os_disk.get("osType")),
    );
    let set_name = vm
        .scale_set
        .as_ref()
        .map(|v| s(v.get("name")))
        .unwrap_or_default();
    let storage = json!({
        "dataDisks": [],
        "imageReference": { "id": s(image.get("id")), "offer": s(image.get("offer")), "publisher": s(image.get("publisher")), "sku": s(image.get("sku")), "version": s(image.get("version")) },
        "osDisk": {
            "caching": s(os_disk.get("caching")),
            "createOption": s(os_disk.get("createOption")),
            "diffDiskSettings": { "option": "" },
            "diskSizeGB": s(os_disk.get("diskSizeGB")),
            "encryptionSettings": { "enabled": "false" },
            "image": { "uri": "" },
            "managedDisk": { "id": "", "storageAccountType": s(os_disk.pointer("/managedDisk/storageAccountType")) },
            "name": s(os_disk.get("name")),
            "osType": s(os_disk.get("osType")),
            "vhd": { "uri": "" },
            "writeAcceleratorEnabled": "false"
        },
        "resourceDisk": { "size": "" }
    });
    json!({
        "azEnvironment": state.cloud().as_str(),
        "additionalCapabilities": { "hibernationEnabled": "false" },
        "evictionPolicy": s(vm.doc.pointer("/properties/evictionPolicy")),
        "extendedLocation": { "type": "", "name": "" },
        "host": { "id": "" },
        "hostGroup": { "id": "" },
        "isHostCompatibilityLayerVm": "false",
        "licenseType": s(vm.doc.pointer("/properties/licenseType")),
        "location": s(vm.doc.get("location")),
        "name": s(vm.doc.get("name")),
        "offer": s(image.get("offer")),
        "osProfile": {
            "adminUsername": s(profile(vm, "osProfile/adminUsername")),
            "computerName": vm.computer_name(),
            "disablePasswordAuthentication": linux.map_or_else(|| "false".to_string(), |l| s(l.get("disablePasswordAuthentication")))
        },
        "osType": os_type,
        "placementGroupId": "",
        "plan": { "name": "", "product": "", "publisher": "" },
        "platformFaultDomain": s(iv.get("platformFaultDomain")),
        "platformSubFaultDomain": "",
        "platformUpdateDomain": s(iv.get("platformUpdateDomain")),
        "priority": s(vm.doc.pointer("/properties/priority")),
        "provider": "Microsoft.Compute",
        "publicKeys": [],
        "publisher": s(image.get("publisher")),
        "resourceGroupName": segment_after(&vm.id, "resourceGroups").unwrap_or_default(),
        "resourceId": vm.id,
        "securityProfile": { "secureBootEnabled": "false", "virtualTpmEnabled": "false", "encryptionAtHost": "false", "securityType": "" },
        "sku": s(image.get("sku")),
        "storageProfile": storage,
        "subscriptionId": vm.subscription(),
        "tags": tag_pairs.iter().map(|(k, v)| format!("{k}:{v}")).collect::<Vec<_>>().join(";"),
        "tagsList": tag_pairs.iter().map(|(k, v)| json!({ "name": k, "value": v })).collect::<Vec<_>>(),
        "userData": "",
        "version": s(image.get("version")),
        "virtualMachineScaleSet": { "id": if vm.kind == NodeKind::VmssFlex { s(vm.doc.pointer("/properties/virtualMachineScaleSet/id")) } else { String::new() } },
        "vmId": s(vm.doc.pointer("/properties/vmId")),
        "vmScaleSetName": if vm.kind == NodeKind::VmssUniform { set_name } else { String::new() },
        "vmSize": vm.vm_size(),
        "zone": vm.zone().unwrap_or_default()
    })
}

/// `00-0D-3A-F8-06-EC` → `000D3AF806EC`.
fn imds_mac(mac: &str) -> String {
    mac.chars()
        .filter(|c| c.is_ascii_hexdigit())
        .collect::<String>()
        .to_ascii_uppercase()
}

fn subnet_entries(state: &ImdsState, subnet_id: &str, v6: bool) -> Vec<Value> {
    let Ok(subnet) = state.arm().get(subnet_id) else {
        return Vec::new();
    };
    let mut prefixes: Vec<String> = subnet
        .pointer("/properties/addressPrefix")
        .and_then(Value::as_str)
        .map(str::to_string)
        .into_iter()
        .collect();
    prefixes.extend(
        subnet
            .pointer("/properties/addressPrefixes")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|p| p.as_str().map(str::to_string)),
    );
    prefixes
        .iter()
        .filter_map(|p| p.parse::<ipnet::IpNet>().ok())
        .filter(|net| matches!(net, ipnet::IpNet::V6(_)) == v6)
        .map(|net| json!({ "address": net.network().to_string(), "prefix": net.prefix_len().to_string() }))
        .collect()
}

/// Public address shown on the instance document: only Basic SKU instance-level IPs (Standard ones are
/// reported through `/metadata/loadbalancer`, as the IMDS documentation states).
fn instance_public_ip(state: &ImdsState, ipc: &Value) -> String {
    let Some(id) = ipc
        .pointer("/properties/publicIPAddress/id")
        .and_then(Value::as_str)
    else {
        return String::new();
    };
    match state.arm().get(id) {
        Ok(pip)
            if pip
                .pointer("/sku/name")
                .and_then(Value::as_str)
                .unwrap_or("Basic")
                == "Basic" =>
        {
            s(pip.pointer("/properties/ipAddress"))
        }
        _ => String::new(),
    }
}

fn network(state: &ImdsState, vm: &Vm) -> Value {
    let mut interfaces = Vec::new();
    for nic_id in vm.nic_ids() {
        let Ok(nic) = state.arm().get(&nic_id) else {
            continue;
        };
        let mut ipcs: Vec<&Value> = nic
            .pointer("/properties/ipConfigurations")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .collect();
        ipcs.sort_by_key(|c| {
            !c.pointer("/properties/primary")
                .and_then(Value::as_bool)
                .unwrap_or(false)
        });
        let mut families = [(Vec::new(), Vec::new()), (Vec::new(), Vec::new())];
        for ipc in ipcs {
            let v6 = ipc
                .pointer("/properties/privateIPAddressVersion")
                .and_then(Value::as_str)
                == Some("IPv6");
            let (addrs, subnets) = &mut families[usize::from(v6)];
            addrs.push(json!({ "privateIpAddress": s(ipc.pointer("/properties/privateIPAddress")), "publicIpAddress": instance_public_ip(state, ipc) }));
            if subnets.is_empty()
                && let Some(sid) = ipc.pointer("/properties/subnet/id").and_then(Value::as_str)
            {
                *subnets = subnet_entries(state, sid, v6);
            }
        }
        let [(v4, v4_subnets), (v6, v6_subnets)] = families;
        let mut iface = json!({ "ipv4": { "ipAddress": v4, "subnet": v4_subnets }, "ipv6": { "ipAddress": v6 }, "macAddress": imds_mac(&s(nic.pointer("/properties/macAddress"))) });
        if !v6_subnets.is_empty() {
            iface["ipv6"]["subnet"] = json!(v6_subnets);
        }
        interfaces.push(iface);
    }
    json!({ "interface": interfaces })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn macs_use_the_imds_spelling() {
        assert_eq!(imds_mac("00-0D-3A-f8-06-EC"), "000D3AF806EC");
    }
}
