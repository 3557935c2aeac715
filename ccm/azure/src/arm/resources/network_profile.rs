//! `properties.networkProfile` of a VM or scale-set VM: its NIC references, and upstream's
//! primary-NIC choice.

use serde::{Deserialize, Serialize};

use super::envelope::{Extra, only_or_flagged};
use super::error::SelectionError;

/// `networkProfile` of a VM / scale-set VM.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NetworkProfile {
    /// The attached NICs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network_interfaces: Option<Vec<NetworkInterfaceReference>>,
    /// Everything else (`networkInterfaceConfigurations`, `networkApiVersion`).
    #[serde(flatten)]
    pub extra: Extra,
}

/// `networkInterfaces[]`: `{id, properties{primary, deleteOption}}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NetworkInterfaceReference {
    /// NIC id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// `primary` flag.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub properties: Option<NetworkInterfaceReferenceProperties>,
    /// Everything else.
    #[serde(flatten)]
    pub extra: Extra,
}

/// `networkInterfaces[].properties`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NetworkInterfaceReferenceProperties {
    /// Whether this is the VM's primary NIC.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub primary: Option<bool>,
    /// Everything else (`deleteOption`).
    #[serde(flatten)]
    pub extra: Extra,
}

impl NetworkInterfaceReference {
    /// The `primary` flag (absent counts as false).
    pub fn is_primary(&self) -> bool {
        self.properties
            .as_ref()
            .and_then(|p| p.primary)
            .unwrap_or(false)
    }
}

impl NetworkProfile {
    /// The primary NIC id as upstream's `getPrimaryInterfaceID` picks it: the only NIC if there is
    /// one, else the first marked `primary`.
    pub fn primary_nic_id(&self, vm_name: &str) -> Result<&str, SelectionError> {
        let nics = self.network_interfaces.as_deref().unwrap_or_default();
        only_or_flagged(nics, NetworkInterfaceReference::is_primary)
            .and_then(|n| n.id.as_deref())
            .ok_or_else(|| SelectionError::NoPrimaryNic {
                vm: vm_name.to_string(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn profile(v: serde_json::Value) -> NetworkProfile {
        serde_json::from_value(json!({ "networkInterfaces": v })).unwrap()
    }

    #[test]
    fn single_nic_is_primary_even_unflagged() {
        let p = profile(json!([{ "id": "/nic/a" }]));
        assert_eq!(p.primary_nic_id("vm"), Ok("/nic/a"));
    }

    #[test]
    fn several_nics_take_the_flagged_one() {
        let p = profile(json!([
            { "id": "/nic/a", "properties": { "primary": false } },
            { "id": "/nic/b", "properties": { "primary": true } }
        ]));
        assert_eq!(p.primary_nic_id("vm"), Ok("/nic/b"));
    }

    #[test]
    fn several_unflagged_nics_or_none_is_an_error() {
        let p = profile(json!([{ "id": "/nic/a" }, { "id": "/nic/b" }]));
        let err = p.primary_nic_id("vm-1").unwrap_err();
        assert_eq!(
            err.to_string(),
            "failed to find a primary nic for the vm. vmname=\"vm-1\""
        );
        assert!(NetworkProfile::default().primary_nic_id("vm").is_err());
    }
}
