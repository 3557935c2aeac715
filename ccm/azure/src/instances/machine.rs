//! A node's instance as resolved from the cached lists: a VM (availability set, standalone or
//! flexible scale set) or a uniform scale-set instance, and the facts read off its document.

use crate::arm::resource_id::{ProviderId, ResourceId};
use crate::arm::resources::SelectionError;

use super::cached::{CachedScaleSetVm, CachedVm};
use super::error::InstanceError;

/// Where the instance's NIC is listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placement {
    /// A VM: its NICs are in their own resource groups' NIC lists.
    Vm,
    /// A uniform scale-set instance: its NICs and PIPs are in the scale set's lists.
    ScaleSet {
        /// Resource group of the scale set.
        resource_group: String,
        /// Scale set name.
        scale_set: String,
    },
}

/// What the provider knows about a node's instance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Machine {
    /// providerID, resource group lower-cased.
    pub provider_id: String,
    /// VM size (uniform instances: their `sku.name`).
    pub instance_type: String,
    /// Region, lower-cased.
    pub region: String,
    /// `<region>-<zone>` for zonal instances, else the fault domain (`"0"` when unknown).
    pub zone: String,
    /// `provisioningState` as ARM reports it.
    pub provisioning_state: Option<String>,
    /// Power state is `stopped`, `deallocated` or `deallocating`.
    pub powered_off: bool,
    /// Primary NIC id.
    pub primary_nic: String,
    /// Where the NIC is listed.
    pub placement: Placement,
}

impl Machine {
    /// Deleting (or already gone) instances count as gone (upstream's `InstanceExists`).
    pub fn is_deleting(&self) -> bool {
        self.provisioning_state
            .as_deref()
            .is_some_and(|s| s.eq_ignore_ascii_case("Deleting"))
    }

    /// Shut down: provisioning `Succeeded` and powered off (upstream's `InstanceShutdown`).
    pub fn is_shutdown(&self) -> bool {
        self.powered_off
            && self
                .provisioning_state
                .as_deref()
                .is_some_and(|s| s.eq_ignore_ascii_case("Succeeded"))
    }

    /// From a VM of a resource group's `$expand=instanceView` list.
    pub fn from_vm(vm: &CachedVm, node: &str) -> Result<Machine, InstanceError> {
        let id: ResourceId = vm.id.as_deref().unwrap_or_default().parse()?;
        let region = vm.location.as_deref().unwrap_or_default().to_lowercase();
        Ok(Machine {
            provider_id: ProviderId::from_resource_id(&id)?.to_string(),
            instance_type: vm.vm_size.clone().unwrap_or_default(),
            zone: zone_label(&region, vm.zones.as_deref(), vm.fault_domain),
            region,
            provisioning_state: vm.provisioning_state.clone(),
            powered_off: vm.is_powered_off(),
            primary_nic: primary_nic(vm.primary_nic.as_deref(), node)?,
            placement: Placement::Vm,
        })
    }

    /// From an instance of a uniform scale set's `$expand=instanceView` list.
    pub fn from_scale_set_vm(vm: &CachedScaleSetVm, node: &str) -> Result<Machine, InstanceError> {
        let id: ResourceId = vm.id.as_deref().unwrap_or_default().parse()?;
        let scale_set = id
            .parent()
            .map(|p| p.name().to_string())
            .unwrap_or_default();
        let resource_group = id.resource_group().unwrap_or_default().to_string();
        let region = vm.location.as_deref().unwrap_or_default().to_lowercase();
        let instance_type = vm
            .sku_name
            .clone()
            .or_else(|| vm.hardware_profile.as_ref()?.vm_size.clone())
            .unwrap_or_default();
        Ok(Machine {
            provider_id: ProviderId::from_resource_id(&id)?.to_string(),
            instance_type,
            zone: zone_label(&region, vm.zones.as_deref(), vm.fault_domain),
            region,
            provisioning_state: vm.provisioning_state.clone(),
            powered_off: vm.is_powered_off(),
            primary_nic: primary_nic(vm.primary_nic.as_deref(), node)?,
            placement: Placement::ScaleSet {
                resource_group,
                scale_set,
            },
        })
    }
}

/// The primary NIC id, or upstream's "no primary nic" error naming the node.
fn primary_nic(id: Option<&str>, node: &str) -> Result<String, InstanceError> {
    id.map(str::to_string).ok_or_else(|| {
        SelectionError::NoPrimaryNic {
            vm: node.to_string(),
        }
        .into()
    })
}

/// `topology.kubernetes.io/zone`: `<region>-<zone>` for a zonal instance, else the fault domain
/// as a decimal string, `"0"` when the instance view does not say.
pub fn zone_label(region: &str, zones: Option<&[String]>, fault_domain: Option<i64>) -> String {
    match zones.and_then(|z| z.first()).filter(|z| !z.is_empty()) {
        Some(zone) => format!("{region}-{zone}").to_lowercase(),
        None => fault_domain.unwrap_or(0).to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn zones_and_fault_domains() {
        assert_eq!(
            zone_label("eastus", Some(&["2".into()]), Some(1)),
            "eastus-2"
        );
        assert_eq!(zone_label("eastus", Some(&[]), Some(1)), "1");
        assert_eq!(zone_label("eastus", None, None), "0");
    }

    #[test]
    fn vm_facts_and_lower_cased_group_in_the_provider_id() {
        let vm: CachedVm = serde_json::from_value(json!({
            "id": "/subscriptions/S/resourceGroups/My-RG/providers/Microsoft.Compute/virtualMachines/Node-1",
            "location": "EastUS",
            "properties": {
                "hardwareProfile": { "vmSize": "Standard_D2s_v3" },
                "networkProfile": { "networkInterfaces": [{ "id": "/nic/1" }] },
                "provisioningState": "Succeeded",
                "instanceView": { "platformFaultDomain": 1, "statuses": [{ "code": "PowerState/deallocated" }] }
            }
        }))
        .unwrap();
        let m = Machine::from_vm(&vm, "node-1").unwrap();
        assert_eq!(
            m.provider_id,
            "azure:///subscriptions/S/resourceGroups/my-rg/providers/Microsoft.Compute/virtualMachines/Node-1"
        );
        assert_eq!((m.zone.as_str(), m.region.as_str()), ("1", "eastus"));
        assert!(m.is_shutdown() && !m.is_deleting());
    }

    #[test]
    fn scale_set_instance_uses_its_sku_and_group() {
        let vm: CachedScaleSetVm = serde_json::from_value(json!({
            "id": "/subscriptions/S/resourceGroups/RG/providers/Microsoft.Compute/virtualMachineScaleSets/ss/virtualMachines/7",
            "location": "westeurope", "zones": ["3"], "sku": { "name": "Standard_D4ds_v5" },
            "properties": { "provisioningState": "Deleting",
                "networkProfile": { "networkInterfaces": [{ "id": "/nic/7" }] } }
        }))
        .unwrap();
        let m = Machine::from_scale_set_vm(&vm, "ss000007").unwrap();
        assert_eq!(m.instance_type, "Standard_D4ds_v5");
        assert_eq!(m.zone, "westeurope-3");
        assert!(m.is_deleting() && !m.is_shutdown());
        assert_eq!(
            m.placement,
            Placement::ScaleSet {
                resource_group: "RG".into(),
                scale_set: "ss".into()
            }
        );
    }
}
