//! `Microsoft.Network/networkInterfaces` (also the read-only NICs of uniform scale-set VMs, same
//! shape): node addresses and backend-pool membership of VMAS / flexible nodes.

use serde::{Deserialize, Serialize};

use super::envelope::{Child, Extra, Reference, Resource, is_ipv6_version, only_or_flagged};
use super::error::SelectionError;

/// A NIC document.
pub type NetworkInterface = Resource<NetworkInterfaceProperties>;

/// `properties` of a NIC.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NetworkInterfaceProperties {
    /// IP configurations.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ip_configurations: Option<Vec<NicIpConfiguration>>,
    /// Primary NIC of its VM (read-only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub primary: Option<bool>,
    /// The VM it is attached to (read-only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub virtual_machine: Option<Reference>,
    /// NIC-level NSG.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network_security_group: Option<Reference>,
    /// `Succeeded`, `Updating`, ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisioning_state: Option<String>,
    /// Everything else (`macAddress`, `dnsSettings`, `enableIPForwarding`, ...).
    #[serde(flatten)]
    pub extra: Extra,
}

/// One `ipConfigurations[]` entry.
pub type NicIpConfiguration = Child<NicIpConfigurationProperties>;

/// `ipConfigurations[].properties`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NicIpConfigurationProperties {
    /// Primary ipconfig flag.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub primary: Option<bool>,
    /// The node's InternalIP.
    #[serde(rename = "privateIPAddress", skip_serializing_if = "Option::is_none")]
    pub private_ip_address: Option<String>,
    /// `IPv4` / `IPv6`.
    #[serde(
        rename = "privateIPAddressVersion",
        skip_serializing_if = "Option::is_none"
    )]
    pub private_ip_address_version: Option<String>,
    /// `Static` / `Dynamic`.
    #[serde(
        rename = "privateIPAllocationMethod",
        skip_serializing_if = "Option::is_none"
    )]
    pub private_ip_allocation_method: Option<String>,
    /// Subnet.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subnet: Option<Reference>,
    /// Instance-level public IP (the node's ExternalIP).
    #[serde(rename = "publicIPAddress", skip_serializing_if = "Option::is_none")]
    pub public_ip_address: Option<Reference>,
    /// LB backend pools: joining a pool is a NIC PUT with the pool here.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load_balancer_backend_address_pools: Option<Vec<Reference>>,
    /// LB inbound NAT rules.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load_balancer_inbound_nat_rules: Option<Vec<Reference>>,
    /// `Succeeded`, ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisioning_state: Option<String>,
    /// Everything else (application gateway pools, ASGs, `privateIPAddressPrefixLength`).
    #[serde(flatten)]
    pub extra: Extra,
}

fn flagged_primary(c: &NicIpConfiguration) -> bool {
    c.properties
        .as_ref()
        .and_then(|p| p.primary)
        .unwrap_or(false)
}

impl NetworkInterface {
    fn nic_name(&self) -> String {
        self.name.clone().unwrap_or_default()
    }

    fn ip_configurations(&self) -> Result<&[NicIpConfiguration], SelectionError> {
        self.properties
            .as_ref()
            .and_then(|p| p.ip_configurations.as_deref())
            .ok_or_else(|| SelectionError::NoIpConfigurations {
                nic: self.nic_name(),
            })
    }

    /// The primary ipconfig as upstream's `getPrimaryIPConfig` picks it: the only one, else the
    /// first flagged `primary`.
    pub fn primary_ip_configuration(&self) -> Result<&NicIpConfiguration, SelectionError> {
        only_or_flagged(self.ip_configurations()?, flagged_primary).ok_or_else(|| {
            SelectionError::NoPrimaryIpConfig {
                nic: self.nic_name(),
            }
        })
    }

    /// The first ipconfig with a private address of the family (upstream
    /// `getIPConfigByIPFamily`; a missing version counts as IPv4).
    pub fn ip_configuration_of_family(
        &self,
        ipv6: bool,
    ) -> Result<&NicIpConfiguration, SelectionError> {
        self.ip_configurations()?
            .iter()
            .find(|c| {
                c.properties.as_ref().is_some_and(|p| {
                    p.private_ip_address.is_some()
                        && is_ipv6_version(p.private_ip_address_version.as_deref()) == ipv6
                })
            })
            .ok_or_else(|| SelectionError::NoIpConfigOfFamily {
                nic: self.nic_name(),
                ipv6,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn nic(ipconfigs: serde_json::Value) -> NetworkInterface {
        serde_json::from_value(json!({
            "name": "nic",
            "properties": { "ipConfigurations": ipconfigs }
        }))
        .unwrap()
    }

    #[test]
    fn single_ipconfig_is_primary_even_unflagged() {
        let n = nic(json!([{ "name": "a", "properties": { "primary": false } }]));
        assert_eq!(
            n.primary_ip_configuration().unwrap().name.as_deref(),
            Some("a")
        );
    }

    #[test]
    fn flagged_ipconfig_wins_and_none_flagged_is_an_error() {
        let n = nic(json!([
            { "name": "a", "properties": {} },
            { "name": "b", "properties": { "primary": true } }
        ]));
        assert_eq!(
            n.primary_ip_configuration().unwrap().name.as_deref(),
            Some("b")
        );
        let n = nic(json!([{ "name": "a" }, { "name": "b" }]));
        assert_eq!(
            n.primary_ip_configuration().unwrap_err().to_string(),
            "failed to determine the primary ipconfig. nicname=\"nic\""
        );
        let bare: NetworkInterface = serde_json::from_value(json!({ "name": "nic" })).unwrap();
        assert_eq!(
            bare.primary_ip_configuration(),
            Err(SelectionError::NoIpConfigurations { nic: "nic".into() })
        );
    }

    #[test]
    fn ipconfig_by_family_needs_an_address() {
        let n = nic(json!([
            { "name": "v6-empty", "properties": { "privateIPAddressVersion": "IPv6" } },
            { "name": "v4", "properties": { "privateIPAddress": "10.0.0.4" } },
            { "name": "v6", "properties": { "privateIPAddressVersion": "IPv6", "privateIPAddress": "fd00::4" } }
        ]));
        assert_eq!(
            n.ip_configuration_of_family(false).unwrap().name.as_deref(),
            Some("v4")
        );
        assert_eq!(
            n.ip_configuration_of_family(true).unwrap().name.as_deref(),
            Some("v6")
        );
        let only_v4 =
            nic(json!([{ "name": "v4", "properties": { "privateIPAddress": "10.0.0.4" } }]));
        assert!(only_v4.ip_configuration_of_family(true).is_err());
    }
}
