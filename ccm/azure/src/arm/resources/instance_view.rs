//! The Compute instance view (`$expand=instanceView` on VMs and scale-set VMs) and the power and
//! provisioning states the CCM derives from its `statuses[]`.

use serde::{Deserialize, Serialize};

use super::envelope::Extra;

/// `properties.instanceView` of a VM or scale-set VM.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InstanceView {
    /// Guest computer name (the node name of VMSS nodes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub computer_name: Option<String>,
    /// Fault domain: the zone of non-zonal nodes is derived from it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub platform_fault_domain: Option<i64>,
    /// Update domain.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub platform_update_domain: Option<i64>,
    /// `ProvisioningState/*` and `PowerState/*` statuses.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub statuses: Option<Vec<InstanceViewStatus>>,
    /// Everything else (`vmAgent`, `disks`, `osName`, ...).
    #[serde(flatten)]
    pub extra: Extra,
}

/// One `statuses[]` entry.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InstanceViewStatus {
    /// `PowerState/running`, `ProvisioningState/succeeded`, ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// `Info`/`Warning`/`Error`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<String>,
    /// Human text (`VM running`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub display_status: Option<String>,
    /// Everything else (`message`, `time`).
    #[serde(flatten)]
    pub extra: Extra,
}

/// Prefix of the power-state status code.
const POWER_STATE_PREFIX: &str = "PowerState/";

/// The power state among status `codes`: the part after `PowerState/` of the first code carrying
/// one (upstream `vmPowerStateFromStatusesV2`), e.g. `running`, `stopped`, `deallocated`; `None`
/// when absent (upstream reports `unknown`). Whole documents and the cached projections share it.
pub fn power_state_of<'a>(codes: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    codes
        .into_iter()
        .find_map(|code| code.strip_prefix(POWER_STATE_PREFIX))
}

/// True when `power_state` means the machine is not running for good: `stopped`, `deallocated`
/// or `deallocating` (what upstream's `InstanceShutdown` checks, together with a `Succeeded`
/// provisioning state).
pub fn is_powered_off_state(power_state: Option<&str>) -> bool {
    matches!(
        power_state,
        Some("stopped" | "deallocated" | "deallocating")
    )
}

impl InstanceView {
    /// The power state of [`power_state_of`] over the statuses.
    pub fn power_state(&self) -> Option<&str> {
        power_state_of(
            self.statuses
                .iter()
                .flatten()
                .filter_map(|s| s.code.as_deref()),
        )
    }

    /// [`is_powered_off_state`] of the power state.
    pub fn is_powered_off(&self) -> bool {
        is_powered_off_state(self.power_state())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn view(codes: &[&str]) -> InstanceView {
        let statuses: Vec<_> = codes.iter().map(|c| json!({ "code": c })).collect();
        serde_json::from_value(json!({ "statuses": statuses })).unwrap()
    }

    #[test]
    fn power_state_is_the_first_powerstate_status() {
        let v = view(&["ProvisioningState/succeeded", "PowerState/deallocated"]);
        assert_eq!(v.power_state(), Some("deallocated"));
        assert!(v.is_powered_off());
        let v = view(&["PowerState/running"]);
        assert_eq!(v.power_state(), Some("running"));
        assert!(!v.is_powered_off());
        assert!(view(&["PowerState/stopped"]).is_powered_off());
        assert!(view(&["PowerState/deallocating"]).is_powered_off());
        assert!(!view(&["PowerState/stopping"]).is_powered_off());
    }

    #[test]
    fn no_power_status_is_none() {
        assert_eq!(view(&["ProvisioningState/updating"]).power_state(), None);
        assert_eq!(InstanceView::default().power_state(), None);
        assert!(!InstanceView::default().is_powered_off());
    }
}
