//! `Microsoft.Compute/virtualMachineScaleSets/virtualMachines`: uniform scale-set instances
//! (listed once per scale set with `$expand=instanceView`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::envelope::{Extra, Sku};
use super::instance_view::InstanceView;
use super::network_profile::NetworkProfile;
use super::scale_set_network::ScaleSetNetworkProfile;
use super::virtual_machine::{HardwareProfile, OsProfile};

/// A scale-set VM document: the tracked envelope plus the top-level `instanceId`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScaleSetVm {
    /// Full id, `.../virtualMachineScaleSets/{ss}/virtualMachines/{instanceId}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// `<scaleSet>_<instanceId>`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `Microsoft.Compute/virtualMachineScaleSets/virtualMachines`.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Region.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// Numeric instance id (string).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance_id: Option<String>,
    /// Tags.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tags: Option<BTreeMap<String, String>>,
    /// Entity tag.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub etag: Option<String>,
    /// VM size / tier.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sku: Option<Sku>,
    /// The instance's zone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zones: Option<Vec<String>>,
    /// Instance properties.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub properties: Option<ScaleSetVmProperties>,
    /// Everything else (`plan`, `resources`, `identity`).
    #[serde(flatten)]
    pub extra: Extra,
}

/// `properties` of a scale-set VM.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScaleSetVmProperties {
    /// Instance size.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hardware_profile: Option<HardwareProfile>,
    /// `computerName`: the node name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub os_profile: Option<OsProfile>,
    /// NIC references.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network_profile: Option<NetworkProfile>,
    /// The instance's own NIC model: what the CCM edits for backend pools.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network_profile_configuration: Option<ScaleSetNetworkProfile>,
    /// `Succeeded`, `Deleting`, ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisioning_state: Option<String>,
    /// Present with `$expand=instanceView`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance_view: Option<InstanceView>,
    /// Whether the latest scale-set model is applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latest_model_applied: Option<bool>,
    /// Unique VM id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vm_id: Option<String>,
    /// Everything else (`storageProfile`, `protectionPolicy`, `timeCreated`, ...).
    #[serde(flatten)]
    pub extra: Extra,
}

impl ScaleSetVm {
    /// `properties.osProfile.computerName`.
    pub fn computer_name(&self) -> Option<&str> {
        self.properties
            .as_ref()?
            .os_profile
            .as_ref()?
            .computer_name
            .as_deref()
    }

    /// The power state from the expanded instance view.
    pub fn power_state(&self) -> Option<&str> {
        self.properties
            .as_ref()?
            .instance_view
            .as_ref()?
            .power_state()
    }
}
