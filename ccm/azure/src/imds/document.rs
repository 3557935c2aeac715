//! Typed IMDS documents: `/metadata/instance` (compute + network) and `/metadata/loadbalancer`.
//! Every IMDS primitive is a string and inapplicable values are `""`; absent fields read as empty.

use serde::{Deserialize, Serialize};

/// `/metadata/instance`: what the VM knows about itself.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct InstanceMetadata {
    /// The `compute` section (identity, placement, size, tags); `None` when IMDS omitted it.
    pub compute: Option<Compute>,
    /// The `network` section (interfaces and addresses); `None` when IMDS omitted it.
    pub network: Option<Network>,
}

/// `compute`: the fields the provider reads (others are ignored).
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Compute {
    /// VM name (for uniform scale sets `<vmss>_<instanceId>`).
    pub name: String,
    /// The VM's unique ID.
    pub vm_id: String,
    /// Full ARM ID of the VM or scale-set VM, the base of the providerID.
    pub resource_id: String,
    /// Resource group as ARM spells it.
    pub resource_group_name: String,
    /// Subscription ID.
    pub subscription_id: String,
    /// Region, e.g. `eastus`.
    pub location: String,
    /// Availability zone number, `""` when not zonal.
    pub zone: String,
    /// Fault domain, the zone label of non-zonal VMs.
    pub platform_fault_domain: String,
    /// Sub-fault domain (`topology.kubernetes.azure.com/sub-fault-domain`).
    pub platform_sub_fault_domain: String,
    /// Update domain.
    pub platform_update_domain: String,
    /// VM size, the instance type.
    pub vm_size: String,
    /// `Linux` or `Windows`.
    pub os_type: String,
    /// Cloud name (`AzurePublicCloud`, ...).
    pub az_environment: String,
    /// OS profile (computer name).
    pub os_profile: OsProfile,
    /// Uniform scale set name, `""` otherwise.
    pub vm_scale_set_name: String,
    /// Tags as `k1:v1;k2:v2`.
    pub tags: String,
    /// Tags as a list.
    pub tags_list: Vec<Tag>,
}

/// `compute.osProfile`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct OsProfile {
    /// Guest computer name (the node name of scale-set VMs).
    pub computer_name: String,
}

/// One entry of `compute.tagsList`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct Tag {
    /// Tag name.
    pub name: String,
    /// Tag value.
    pub value: String,
}

/// `network`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct Network {
    /// The VM's NICs; IMDS does not guarantee their order, upstream reads the first.
    pub interface: Vec<Interface>,
}

/// One NIC.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Interface {
    /// IPv4 addresses and subnets.
    pub ipv4: IpFamily,
    /// IPv6 addresses and subnets.
    pub ipv6: IpFamily,
    /// MAC address without separators.
    pub mac_address: String,
}

/// The addresses and subnets of one IP family on a NIC.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct IpFamily {
    /// Addresses, primary first.
    pub ip_address: Vec<IpAddress>,
    /// Subnets.
    pub subnet: Vec<Subnet>,
}

/// A private address and its instance-level public address (Basic PIPs only).
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct IpAddress {
    /// Private address.
    pub private_ip_address: String,
    /// Public address, `""` when none (Standard PIPs appear in `/metadata/loadbalancer`).
    pub public_ip_address: String,
}

/// A subnet as IMDS lists it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct Subnet {
    /// Network address.
    pub address: String,
    /// Prefix length.
    pub prefix: String,
}

/// `/metadata/loadbalancer`: the Standard LB frontends in front of the VM.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct LoadBalancerMetadata {
    /// The `loadbalancer` object; `None` when absent.
    pub loadbalancer: Option<LoadBalancerProfile>,
}

/// `loadbalancer`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LoadBalancerProfile {
    /// Public frontends and the private address each one maps to.
    pub public_ip_addresses: Vec<PublicIpAddress>,
}

/// One `publicIpAddresses` entry (IPv6 values may be bracketed).
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PublicIpAddress {
    /// The LB frontend's public address.
    pub frontend_ip_address: String,
    /// The VM's private address behind it.
    pub private_ip_address: String,
}
