//! The scale-set network model (`networkInterfaceConfigurations[]`), shared by the scale set's
//! `virtualMachineProfile.networkProfile` and a uniform instance's `networkProfileConfiguration`:
//! what the CCM edits to add or remove backend-pool membership.

use serde::{Deserialize, Serialize};

use super::envelope::{Child, Extra, Reference};
use super::error::SelectionError;

/// `networkProfile` of a scale set model / `networkProfileConfiguration` of an instance.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScaleSetNetworkProfile {
    /// NIC configurations.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network_interface_configurations: Option<Vec<ScaleSetNicConfiguration>>,
    /// Everything else (`healthProbe`, `networkApiVersion`).
    #[serde(flatten)]
    pub extra: Extra,
}

/// One `networkInterfaceConfigurations[]` entry (`name`, `properties`).
pub type ScaleSetNicConfiguration = Child<ScaleSetNicConfigurationProperties>;

/// `networkInterfaceConfigurations[].properties`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScaleSetNicConfigurationProperties {
    /// Primary NIC flag.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub primary: Option<bool>,
    /// The NIC's IP configurations.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ip_configurations: Option<Vec<ScaleSetIpConfiguration>>,
    /// Everything else (`enableAcceleratedNetworking`, `enableIPForwarding`, NSG, DNS).
    #[serde(flatten)]
    pub extra: Extra,
}

/// One `ipConfigurations[]` entry of a scale-set NIC configuration.
pub type ScaleSetIpConfiguration = Child<ScaleSetIpConfigurationProperties>;

/// `ipConfigurations[].properties` of a scale-set NIC configuration.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScaleSetIpConfigurationProperties {
    /// Primary ipconfig flag.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub primary: Option<bool>,
    /// Subnet.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subnet: Option<Reference>,
    /// `IPv4` / `IPv6`.
    #[serde(
        rename = "privateIPAddressVersion",
        skip_serializing_if = "Option::is_none"
    )]
    pub private_ip_address_version: Option<String>,
    /// LB backend pools this ipconfig joins.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load_balancer_backend_address_pools: Option<Vec<Reference>>,
    /// LB inbound NAT pools.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load_balancer_inbound_nat_pools: Option<Vec<Reference>>,
    /// Everything else (`publicIPAddressConfiguration`, application gateway pools, ASGs).
    #[serde(flatten)]
    pub extra: Extra,
}

fn pick_primary<T>(items: &[T], primary: impl Fn(&T) -> bool) -> Option<&T> {
    if items.len() == 1 {
        items.first()
    } else {
        items.iter().find(|i| primary(i))
    }
}

impl ScaleSetNetworkProfile {
    /// The primary NIC configuration as upstream's `getPrimaryNetworkInterfaceConfiguration`
    /// picks it: the only one, else the first flagged `primary`.
    pub fn primary_nic_configuration(
        &self,
        vm_name: &str,
    ) -> Result<&ScaleSetNicConfiguration, SelectionError> {
        let configs = self
            .network_interface_configurations
            .as_deref()
            .unwrap_or_default();
        pick_primary(configs, |c| {
            c.properties
                .as_ref()
                .and_then(|p| p.primary)
                .unwrap_or(false)
        })
        .ok_or_else(|| SelectionError::NoPrimaryNic {
            vm: vm_name.to_string(),
        })
    }
}

impl ScaleSetNicConfigurationProperties {
    /// The primary ipconfig: the only one, else the first flagged `primary`.
    pub fn primary_ip_configuration(
        &self,
        nic_name: &str,
    ) -> Result<&ScaleSetIpConfiguration, SelectionError> {
        let configs = self.ip_configurations.as_deref().ok_or_else(|| {
            SelectionError::NoIpConfigurations {
                nic: nic_name.to_string(),
            }
        })?;
        pick_primary(configs, |c| {
            c.properties
                .as_ref()
                .and_then(|p| p.primary)
                .unwrap_or(false)
        })
        .ok_or_else(|| SelectionError::NoPrimaryIpConfig {
            nic: nic_name.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn primary_configuration_and_ipconfig() {
        let profile: ScaleSetNetworkProfile = serde_json::from_value(json!({
            "networkInterfaceConfigurations": [
                { "name": "second", "properties": { "primary": false } },
                { "name": "main", "properties": { "primary": true, "ipConfigurations": [
                    { "name": "v6", "properties": { "privateIPAddressVersion": "IPv6" } },
                    { "name": "v4", "properties": { "primary": true } }
                ] } }
            ]
        }))
        .unwrap();
        let nic = profile.primary_nic_configuration("vm").unwrap();
        assert_eq!(nic.name.as_deref(), Some("main"));
        let props = nic.properties.as_ref().unwrap();
        let ip = props.primary_ip_configuration("main").unwrap();
        assert_eq!(ip.name.as_deref(), Some("v4"));
        let none = ScaleSetNicConfigurationProperties::default();
        assert_eq!(
            none.primary_ip_configuration("n"),
            Err(SelectionError::NoIpConfigurations { nic: "n".into() })
        );
        assert!(
            ScaleSetNetworkProfile::default()
                .primary_nic_configuration("vm")
                .is_err()
        );
    }
}
