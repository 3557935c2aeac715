//! [`CachedVm`]: an availability-set, standalone or flexible-member VM as the VM cache keeps it
//! (VMs are never written by the CCM, so nothing is kept for a PUT).

use serde::Deserialize;

use crate::arm::resources::VirtualMachine;
use crate::arm::resources::instance_view::is_powered_off_state;

use super::parts::{ComputerNameOnly, IdOnly, PrimaryNic, ViewFacts, VmSizeOnly};

/// A VM reduced to what node resolution and pool membership read.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(from = "Listed")]
pub struct CachedVm {
    /// Full id.
    pub id: Option<String>,
    /// VM name: the node name of availability-set and standalone nodes.
    pub name: Option<String>,
    /// Region, ARM spelling.
    pub location: Option<String>,
    /// Zones.
    pub zones: Option<Vec<String>>,
    /// `hardwareProfile.vmSize`.
    pub vm_size: Option<String>,
    /// `osProfile.computerName`: the node name of flexible members.
    pub computer_name: Option<String>,
    /// Id of the primary NIC of `networkProfile`.
    pub primary_nic: Option<String>,
    /// `virtualMachineScaleSet.id`: the flexible scale set the VM belongs to.
    pub scale_set_id: Option<String>,
    /// The instance view's fault domain, else `properties.platformFaultDomain` (flex members).
    pub fault_domain: Option<i64>,
    /// `properties.provisioningState`.
    pub provisioning_state: Option<String>,
    /// The instance view's power state without its `PowerState/` prefix.
    pub power_state: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Listed {
    id: Option<String>,
    name: Option<String>,
    location: Option<String>,
    zones: Option<Vec<String>>,
    properties: Option<ListedProperties>,
}

#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ListedProperties {
    hardware_profile: Option<VmSizeOnly>,
    os_profile: Option<ComputerNameOnly>,
    network_profile: Option<PrimaryNic>,
    virtual_machine_scale_set: Option<IdOnly>,
    platform_fault_domain: Option<i64>,
    provisioning_state: Option<String>,
    instance_view: Option<ViewFacts>,
}

impl From<Listed> for CachedVm {
    fn from(l: Listed) -> CachedVm {
        let p = l.properties.unwrap_or_default();
        let view = p.instance_view.unwrap_or_default();
        CachedVm {
            id: l.id,
            name: l.name,
            location: l.location,
            zones: l.zones,
            vm_size: p.hardware_profile.and_then(|h| h.vm_size),
            computer_name: p.os_profile.and_then(|o| o.computer_name),
            primary_nic: p.network_profile.and_then(|n| n.0),
            scale_set_id: p.virtual_machine_scale_set.and_then(|s| s.id),
            fault_domain: view.fault_domain.or(p.platform_fault_domain),
            provisioning_state: p.provisioning_state,
            power_state: view.power_state,
        }
    }
}

impl From<&VirtualMachine> for CachedVm {
    /// The projection of a whole document.
    fn from(vm: &VirtualMachine) -> CachedVm {
        let p = vm.properties.as_ref();
        CachedVm {
            id: vm.id.clone(),
            name: vm.name.clone(),
            location: vm.location.clone(),
            zones: vm.zones.clone(),
            vm_size: vm.vm_size().map(str::to_string),
            computer_name: vm.computer_name().map(str::to_string),
            primary_nic: p
                .and_then(|p| p.network_profile.as_ref())
                .and_then(|n| n.primary_nic_id("").ok())
                .map(str::to_string),
            scale_set_id: vm.scale_set_id().map(str::to_string),
            fault_domain: p
                .and_then(|p| p.instance_view.as_ref())
                .and_then(|v| v.platform_fault_domain)
                .or_else(|| p.and_then(|p| p.platform_fault_domain)),
            provisioning_state: p.and_then(|p| p.provisioning_state.clone()),
            power_state: vm.power_state().map(str::to_string),
        }
    }
}

impl CachedVm {
    /// True when powered off for good (`stopped`, `deallocated`, `deallocating`).
    pub fn is_powered_off(&self) -> bool {
        is_powered_off_state(self.power_state.as_deref())
    }
}
