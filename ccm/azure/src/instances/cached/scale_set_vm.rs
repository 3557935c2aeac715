//! [`CachedScaleSetVm`]: a uniform scale-set instance as the instance cache keeps it.

use serde::Deserialize;

use crate::arm::resources::ScaleSetVm;
use crate::arm::resources::instance_view::is_powered_off_state;
use crate::arm::resources::scale_set_network::ScaleSetNetworkProfile;
use crate::arm::resources::virtual_machine::HardwareProfile;

use super::packed::Packed;
use super::parts::{ComputerNameOnly, NameOnly, PrimaryNic, ViewFacts};

/// A uniform scale-set instance reduced to what node resolution and backend-pool membership read,
/// plus the two members the sparse instance PUT sends back whole (`hardwareProfile` and
/// `networkProfileConfiguration`).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(from = "Listed")]
pub struct CachedScaleSetVm {
    /// Full id, `.../virtualMachineScaleSets/{ss}/virtualMachines/{instanceId}`.
    pub id: Option<String>,
    /// `<scaleSet>_<instanceId>`.
    pub name: Option<String>,
    /// Region, ARM spelling.
    pub location: Option<String>,
    /// Numeric instance id (string).
    pub instance_id: Option<String>,
    /// Entity tag, sent back as `If-Match`.
    pub etag: Option<String>,
    /// The instance's zones.
    pub zones: Option<Vec<String>>,
    /// `sku.name`: the VM size.
    pub sku_name: Option<String>,
    /// `properties.hardwareProfile`, whole: the instance PUT sends it back.
    pub hardware_profile: Option<HardwareProfile>,
    /// `properties.osProfile.computerName`: the node name.
    pub computer_name: Option<String>,
    /// Id of the primary NIC of `properties.networkProfile`.
    pub primary_nic: Option<String>,
    /// `properties.networkProfileConfiguration`, whole (packed): what the pool membership
    /// unpacks, edits and PUTs.
    pub network_profile_configuration: Option<Packed<ScaleSetNetworkProfile>>,
    /// `properties.provisioningState`.
    pub provisioning_state: Option<String>,
    /// `instanceView.platformFaultDomain`.
    pub fault_domain: Option<i64>,
    /// The instance view's power state without its `PowerState/` prefix.
    pub power_state: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Listed {
    id: Option<String>,
    name: Option<String>,
    location: Option<String>,
    instance_id: Option<String>,
    etag: Option<String>,
    zones: Option<Vec<String>>,
    sku: Option<NameOnly>,
    properties: Option<ListedProperties>,
}

#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ListedProperties {
    hardware_profile: Option<HardwareProfile>,
    os_profile: Option<ComputerNameOnly>,
    network_profile: Option<PrimaryNic>,
    network_profile_configuration: Option<Packed<ScaleSetNetworkProfile>>,
    provisioning_state: Option<String>,
    instance_view: Option<ViewFacts>,
}

impl From<Listed> for CachedScaleSetVm {
    fn from(l: Listed) -> CachedScaleSetVm {
        let p = l.properties.unwrap_or_default();
        let view = p.instance_view.unwrap_or_default();
        CachedScaleSetVm {
            id: l.id,
            name: l.name,
            location: l.location,
            instance_id: l.instance_id,
            etag: l.etag,
            zones: l.zones,
            sku_name: l.sku.and_then(|s| s.name),
            hardware_profile: p.hardware_profile,
            computer_name: p.os_profile.and_then(|o| o.computer_name),
            primary_nic: p.network_profile.and_then(|n| n.0),
            network_profile_configuration: p.network_profile_configuration,
            provisioning_state: p.provisioning_state,
            fault_domain: view.fault_domain,
            power_state: view.power_state,
        }
    }
}

impl TryFrom<&ScaleSetVm> for CachedScaleSetVm {
    type Error = serde_json::Error;

    /// The projection of a whole document (e.g. one a PUT answered).
    fn try_from(vm: &ScaleSetVm) -> Result<CachedScaleSetVm, serde_json::Error> {
        let p = vm.properties.as_ref();
        let view = p.and_then(|p| p.instance_view.as_ref());
        let network_profile_configuration = p
            .and_then(|p| p.network_profile_configuration.as_ref())
            .map(Packed::pack)
            .transpose()?;
        Ok(CachedScaleSetVm {
            id: vm.id.clone(),
            name: vm.name.clone(),
            location: vm.location.clone(),
            instance_id: vm.instance_id.clone(),
            etag: vm.etag.clone(),
            zones: vm.zones.clone(),
            sku_name: vm.sku.as_ref().and_then(|s| s.name.clone()),
            hardware_profile: p.and_then(|p| p.hardware_profile.clone()),
            computer_name: vm.computer_name().map(str::to_string),
            primary_nic: p
                .and_then(|p| p.network_profile.as_ref())
                .and_then(|n| n.primary_nic_id("").ok())
                .map(str::to_string),
            network_profile_configuration,
            provisioning_state: p.and_then(|p| p.provisioning_state.clone()),
            fault_domain: view.and_then(|v| v.platform_fault_domain),
            power_state: vm.power_state().map(str::to_string),
        })
    }
}

impl CachedScaleSetVm {
    /// True when powered off for good (`stopped`, `deallocated`, `deallocating`).
    pub fn is_powered_off(&self) -> bool {
        is_powered_off_state(self.power_state.as_deref())
    }
}
