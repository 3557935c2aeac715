//! `Microsoft.Compute/virtualMachines`: availability-set, standalone and flexible-scale-set
//! nodes.

use serde::{Deserialize, Serialize};

use super::envelope::{Extra, Reference, Resource};
use super::instance_view::InstanceView;
use super::network_profile::NetworkProfile;

/// A VM document.
pub type VirtualMachine = Resource<VirtualMachineProperties>;

/// `properties` of a VM.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VirtualMachineProperties {
    /// VM size: the node's instance type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hardware_profile: Option<HardwareProfile>,
    /// Guest OS profile (`computerName`: flexible-scale-set node names).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub os_profile: Option<OsProfile>,
    /// The NICs: addresses come from the primary one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network_profile: Option<NetworkProfile>,
    /// Owning availability set (VMAS nodes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub availability_set: Option<Reference>,
    /// Owning flexible scale set (VMSS flex nodes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub virtual_machine_scale_set: Option<Reference>,
    /// Fault domain (flexible members report it here).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub platform_fault_domain: Option<i64>,
    /// `Succeeded`, `Deleting`, ...: Deleting VMs count as gone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisioning_state: Option<String>,
    /// Present with `$expand=instanceView`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance_view: Option<InstanceView>,
    /// Unique VM id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vm_id: Option<String>,
    /// Everything else (`storageProfile`, `priority`, `timeCreated`, ...).
    #[serde(flatten)]
    pub extra: Extra,
}

/// `hardwareProfile`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HardwareProfile {
    /// e.g. `Standard_D2s_v3`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vm_size: Option<String>,
    /// Everything else.
    #[serde(flatten)]
    pub extra: Extra,
}

/// `osProfile` of a VM or scale-set VM.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OsProfile {
    /// Guest host name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub computer_name: Option<String>,
    /// Everything else (`adminUsername`, `linuxConfiguration`, `secrets`, ...).
    #[serde(flatten)]
    pub extra: Extra,
}

impl VirtualMachine {
    /// The VM's properties, or defaults when the document has none.
    fn props(&self) -> Option<&VirtualMachineProperties> {
        self.properties.as_ref()
    }

    /// `properties.osProfile.computerName`.
    pub fn computer_name(&self) -> Option<&str> {
        self.props()?.os_profile.as_ref()?.computer_name.as_deref()
    }

    /// `properties.hardwareProfile.vmSize`.
    pub fn vm_size(&self) -> Option<&str> {
        self.props()?.hardware_profile.as_ref()?.vm_size.as_deref()
    }

    /// The power state from the expanded instance view (`None` without `$expand=instanceView`).
    pub fn power_state(&self) -> Option<&str> {
        self.props()?.instance_view.as_ref()?.power_state()
    }

    /// Id of the flexible scale set the VM belongs to, if any.
    pub fn scale_set_id(&self) -> Option<&str> {
        self.props()?
            .virtual_machine_scale_set
            .as_ref()?
            .id
            .as_deref()
    }

    /// Id of the availability set the VM belongs to, if any.
    pub fn availability_set_id(&self) -> Option<&str> {
        self.props()?.availability_set.as_ref()?.id.as_deref()
    }
}
