//! `Microsoft.Compute/virtualMachineScaleSets`: uniform and flexible scale sets (node-set
//! detection by computer-name prefix, model-level backend pools).

use serde::{Deserialize, Serialize};

use super::envelope::{Extra, Resource};
use super::scale_set_network::ScaleSetNetworkProfile;

/// A scale-set document.
pub type VirtualMachineScaleSet = Resource<ScaleSetProperties>;

/// `properties` of a scale set.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScaleSetProperties {
    /// `Uniform` or `Flexible`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub orchestration_mode: Option<String>,
    /// The instance model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub virtual_machine_profile: Option<ScaleSetVmProfile>,
    /// `Succeeded`, `Deleting`, ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisioning_state: Option<String>,
    /// Fault-domain count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub platform_fault_domain_count: Option<i64>,
    /// Everything else (`upgradePolicy`, `overprovision`, `uniqueId`, ...).
    #[serde(flatten)]
    pub extra: Extra,
}

/// `virtualMachineProfile` of a scale set.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScaleSetVmProfile {
    /// Guest profile (`computerNamePrefix`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub os_profile: Option<ScaleSetOsProfile>,
    /// The NIC model, holding backend-pool membership.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network_profile: Option<ScaleSetNetworkProfile>,
    /// Everything else (`storageProfile`, `extensionProfile`, ...).
    #[serde(flatten)]
    pub extra: Extra,
}

/// `virtualMachineProfile.osProfile`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScaleSetOsProfile {
    /// Prefix of every instance's computer name (uniform: + 6 base-36 chars).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub computer_name_prefix: Option<String>,
    /// Everything else.
    #[serde(flatten)]
    pub extra: Extra,
}

impl VirtualMachineScaleSet {
    /// True for `orchestrationMode: Flexible` (compared case-insensitively).
    pub fn is_flexible(&self) -> bool {
        self.properties
            .as_ref()
            .and_then(|p| p.orchestration_mode.as_deref())
            .is_some_and(|m| m.eq_ignore_ascii_case("Flexible"))
    }

    /// `virtualMachineProfile.osProfile.computerNamePrefix`.
    pub fn computer_name_prefix(&self) -> Option<&str> {
        self.properties
            .as_ref()?
            .virtual_machine_profile
            .as_ref()?
            .os_profile
            .as_ref()?
            .computer_name_prefix
            .as_deref()
    }
}
