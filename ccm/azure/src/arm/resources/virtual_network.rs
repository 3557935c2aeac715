//! `Microsoft.Network/virtualNetworks` and their subnets (internal-LB and PLS subnets).

use serde::{Deserialize, Serialize};

use super::envelope::{Child, Extra, Reference, Resource};

/// A VNet document.
pub type VirtualNetwork = Resource<VirtualNetworkProperties>;

/// `properties` of a VNet.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VirtualNetworkProperties {
    /// Address space.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address_space: Option<AddressSpace>,
    /// Subnets.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subnets: Option<Vec<Subnet>>,
    /// `Succeeded`, ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisioning_state: Option<String>,
    /// Everything else (peerings, DHCP options, DDoS).
    #[serde(flatten)]
    pub extra: Extra,
}

/// `addressSpace`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AddressSpace {
    /// CIDRs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address_prefixes: Option<Vec<String>>,
    /// Everything else.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A subnet (embedded in its VNet, or GET on its own).
pub type Subnet = Child<SubnetProperties>;

/// `subnets[].properties`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubnetProperties {
    /// Single CIDR.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address_prefix: Option<String>,
    /// Several CIDRs (dual-stack).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address_prefixes: Option<Vec<String>>,
    /// Subnet NSG.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network_security_group: Option<Reference>,
    /// Subnet route table.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub route_table: Option<Reference>,
    /// Must be `Disabled` for a PLS frontend subnet (the CCM sets it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub private_link_service_network_policies: Option<String>,
    /// Private-endpoint policies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub private_endpoint_network_policies: Option<String>,
    /// `Succeeded`, ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisioning_state: Option<String>,
    /// Everything else (`ipConfigurations`, `delegations`, `natGateway`, ...).
    #[serde(flatten)]
    pub extra: Extra,
}
