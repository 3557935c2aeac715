//! Finds the ARM VM behind a Kubernetes node name the way the CCM does (VM name or computer name for
//! standalone and flexible VMs; `<computerNamePrefix><6 base-36 digits>` for uniform instances), so IMDS
//! and the admin API always answer from current ARM state.

use super::naming::provider_id;
use super::seeded::{NodeKind, SeededNode};
use fake_arm::{ArmError, ArmState};
use parking_lot::RwLock;
use serde_json::Value;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;

/// A node's VM as ARM currently stores it.
#[derive(Debug, Clone)]
pub struct NodeVm {
    /// Full id of the VM or scale-set VM.
    pub id: String,
    /// The VM document.
    pub doc: Value,
    /// Modelling.
    pub kind: NodeKind,
    /// Owning scale set document (uniform and flexible).
    pub scale_set: Option<Value>,
}

impl NodeVm {
    /// `osProfile.computerName` (VM name when absent).
    pub fn computer_name(&self) -> &str {
        self.doc
            .pointer("/properties/osProfile/computerName")
            .and_then(Value::as_str)
            .or(self.doc["name"].as_str())
            .unwrap_or_default()
    }

    /// Resource group segment of the id, in ARM casing.
    pub fn resource_group(&self) -> &str {
        segment_after(&self.id, "resourceGroups").unwrap_or_default()
    }

    /// Subscription segment of the id.
    pub fn subscription(&self) -> &str {
        segment_after(&self.id, "subscriptions").unwrap_or_default()
    }

    /// VM size (`sku.name` for uniform instances).
    pub fn vm_size(&self) -> &str {
        self.doc
            .pointer("/properties/hardwareProfile/vmSize")
            .and_then(Value::as_str)
            .or(self.doc.pointer("/sku/name").and_then(Value::as_str))
            .unwrap_or_default()
    }

    /// Zone number, when zonal.
    pub fn zone(&self) -> Option<&str> {
        self.doc.pointer("/zones/0").and_then(Value::as_str)
    }

    /// Ids of the VM's NICs, primary first.
    pub fn nic_ids(&self) -> Vec<String> {
        let mut nics: Vec<(bool, String)> = self
            .doc
            .pointer("/properties/networkProfile/networkInterfaces")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|n| {
                Some((
                    n.pointer("/properties/primary")
                        .and_then(Value::as_bool)
                        .unwrap_or(true),
                    n["id"].as_str()?.to_string(),
                ))
            })
            .collect();
        nics.sort_by_key(|(primary, _)| !primary);
        nics.into_iter().map(|(_, id)| id).collect()
    }
}

/// The `name` segment following `key` in an ARM id (case-insensitive key).
pub fn segment_after<'a>(id: &'a str, key: &str) -> Option<&'a str> {
    let mut parts = id.split('/');
    while let Some(p) = parts.next() {
        if p.eq_ignore_ascii_case(key) {
            return parts.next();
        }
    }
    None
}

/// Node-name resolver with a cache that is re-checked against ARM on every hit.
#[derive(Clone, Default)]
pub struct NodeLookup {
    cache: Arc<RwLock<HashMap<String, String>>>,
}

impl NodeLookup {
    /// Current VM of `node` in `subscription`, or `None` when no VM has that node name (deleted or never created).
    pub fn find(
        &self,
        arm: &ArmState,
        subscription: &str,
        node: &str,
    ) -> Result<Option<NodeVm>, ArmError> {
        let key = node.to_ascii_lowercase();
        let cached = self.cache.read().get(&key).cloned();
        if let Some(id) = cached {
            if let Some(vm) = load(arm, &id)?.filter(|vm| {
                vm.computer_name().eq_ignore_ascii_case(node)
                    || vm.doc["name"]
                        .as_str()
                        .is_some_and(|n| n.eq_ignore_ascii_case(node))
            }) {
                return Ok(Some(vm));
            }
            self.cache.write().remove(&key);
        }
        let found = scan(arm, subscription, node)?;
        if let Some(vm) = &found {
            self.cache.write().insert(key, vm.id.clone());
        }
        Ok(found)
    }
}

fn is_not_found(e: &ArmError) -> bool {
    e.status() == http::StatusCode::NOT_FOUND
}

fn get_opt(arm: &ArmState, id: &str) -> Result<Option<Value>, ArmError> {
    match arm.get(id) {
        Ok(v) => Ok(Some(v)),
        Err(e) if is_not_found(&e) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Loads a VM or scale-set VM by id with its owning scale set.
pub fn load(arm: &ArmState, id: &str) -> Result<Option<NodeVm>, ArmError> {
    let Some(doc) = get_opt(arm, id)? else {
        return Ok(None);
    };
    let lower = id.to_ascii_lowercase();
    if let Some((vmss_id, _)) = lower
        .rsplit_once("/virtualmachines/")
        .filter(|(head, _)| head.contains("/virtualmachinescalesets/"))
    {
        let vmss = get_opt(arm, &id[..vmss_id.len()])?;
        return Ok(Some(NodeVm {
            id: doc["id"].as_str().unwrap_or(id).to_string(),
            doc,
            kind: NodeKind::VmssUniform,
            scale_set: vmss,
        }));
    }
    let flex = match doc
        .pointer("/properties/virtualMachineScaleSet/id")
        .and_then(Value::as_str)
    {
        Some(ss) => get_opt(arm, ss)?,
        None => None,
    };
    let kind = if doc
        .pointer("/properties/virtualMachineScaleSet/id")
        .is_some()
    {
        NodeKind::VmssFlex
    } else {
        NodeKind::Standalone
    };
    Ok(Some(NodeVm {
        id: doc["id"].as_str().unwrap_or(id).to_string(),
        doc,
        kind,
        scale_set: flex,
    }))
}

fn scan(arm: &ArmState, subscription: &str, node: &str) -> Result<Option<NodeVm>, ArmError> {
    let vms = arm.list(&format!(
        "/subscriptions/{subscription}/providers/Microsoft.Compute/virtualMachines"
    ))?;
    let hit = vms.iter().find(|v| {
        let cn = v
            .pointer("/properties/osProfile/computerName")
            .and_then(Value::as_str);
        cn.is_some_and(|c| c.eq_ignore_ascii_case(node))
            || v["name"]
                .as_str()
                .is_some_and(|n| n.eq_ignore_ascii_case(node))
    });
    if let Some(id) = hit.and_then(|v| v["id"].as_str()) {
        return load(arm, id);
    }
    let sets = arm.list(&format!(
        "/subscriptions/{subscription}/providers/Microsoft.Compute/virtualMachineScaleSets"
    ))?;
    for set in sets.iter().filter(|s| {
        s.pointer("/properties/orchestrationMode")
            .and_then(Value::as_str)
            == Some("Uniform")
    }) {
        let Some(set_id) = set["id"].as_str() else {
            continue;
        };
        let prefix = set
            .pointer("/properties/virtualMachineProfile/osProfile/computerNamePrefix")
            .and_then(Value::as_str)
            .or(set["name"].as_str())
            .unwrap_or_default()
            .to_ascii_lowercase();
        let lower = node.to_ascii_lowercase();
        let Some(rest) = lower.strip_prefix(&prefix).filter(|r| r.len() == 6) else {
            continue;
        };
        let Ok(instance) = u64::from_str_radix(rest, 36) else {
            continue;
        };
        if let Some(vm) = load(arm, &format!("{set_id}/virtualMachines/{instance}"))?
            .filter(|vm| vm.computer_name().eq_ignore_ascii_case(node))
        {
            return Ok(Some(vm));
        }
    }
    Ok(None)
}

/// Power state code of a VM (`running`, `deallocated`, ...; `unknown` without an instance view).
pub fn power_state(arm: &ArmState, id: &str) -> String {
    arm.instance_view(id)
        .ok()
        .and_then(|iv| {
            iv["statuses"].as_array().and_then(|s| {
                s.iter().find_map(|st| {
                    st["code"]
                        .as_str()?
                        .strip_prefix("PowerState/")
                        .map(str::to_string)
                })
            })
        })
        .unwrap_or_else(|| "unknown".to_string())
}

/// Private addresses (ipconfig order, so the primary's first) of a NIC document and the ids of the public
/// IPs its ipconfigs reference: seeding and the admin API both describe a node's addresses from ARM.
pub(crate) fn nic_addresses(nic: &Value) -> (Vec<IpAddr>, Vec<&str>) {
    let mut private = Vec::new();
    let mut public_ids = Vec::new();
    for ipc in nic
        .pointer("/properties/ipConfigurations")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(ip) = ipc
            .pointer("/properties/privateIPAddress")
            .and_then(Value::as_str)
            .and_then(|s| s.parse::<IpAddr>().ok())
        {
            private.push(ip);
        }
        if let Some(pip) = ipc
            .pointer("/properties/publicIPAddress/id")
            .and_then(Value::as_str)
        {
            public_ids.push(pip);
        }
    }
    (private, public_ids)
}

/// The address a public IP document holds (none until allocated).
pub(crate) fn public_ip_address(pip: &Value) -> Option<IpAddr> {
    pip.pointer("/properties/ipAddress")
        .and_then(Value::as_str)
        .and_then(|s| s.parse().ok())
}

/// Describes a node from current ARM state (admin API answers).
pub fn describe(arm: &ArmState, vm: &NodeVm) -> SeededNode {
    let iv = arm.instance_view(&vm.id).ok();
    let mut private_ips = Vec::new();
    let mut public_ip = None;
    if let Some(doc) = vm.nic_ids().first().and_then(|nic| arm.get(nic).ok()) {
        let (ips, pips) = nic_addresses(&doc);
        private_ips = ips;
        for pip in pips {
            public_ip = public_ip.or(arm.get(pip).ok().as_ref().and_then(public_ip_address));
        }
    }
    let computer_name = vm.computer_name().to_string();
    SeededNode {
        node_name: computer_name.to_ascii_lowercase(),
        computer_name,
        vm_name: vm.doc["name"].as_str().unwrap_or_default().to_string(),
        resource_id: vm.id.clone(),
        provider_id: provider_id(&vm.id),
        kind: vm.kind,
        scale_set: vm
            .scale_set
            .as_ref()
            .and_then(|s| s["name"].as_str())
            .map(str::to_string),
        availability_set: vm
            .doc
            .pointer("/properties/availabilitySet/id")
            .and_then(Value::as_str)
            .and_then(|id| id.rsplit('/').next())
            .map(str::to_string),
        zone: vm.zone().and_then(|z| z.parse().ok()),
        fault_domain: iv
            .as_ref()
            .and_then(|v| v["platformFaultDomain"].as_u64())
            .unwrap_or(0) as u32,
        vm_size: vm.vm_size().to_string(),
        private_ips,
        public_ip,
        power_state: power_state(arm, &vm.id),
    }
}
