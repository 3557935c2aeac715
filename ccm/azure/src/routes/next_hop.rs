//! The next hop of a node's route: the first private address of the pod CIDR's family among the
//! ipconfigs of the node's primary NIC, read from the cached NIC lists (no per-node GET).

use std::net::IpAddr;

use crate::cache::ReadMode;
use crate::instances::cached::CachedNic;
use crate::instances::{AzureInstances, InstanceError, NodeRef, addresses};

use super::error::RouteError;

/// The first private address of `nic`'s ipconfigs, in their order, whose family is IPv6 when
/// `ipv6` (the family is read from the address itself).
pub fn first_private_ip(nic: &CachedNic, ipv6: bool) -> Option<String> {
    nic.ip_configurations
        .as_deref()?
        .iter()
        .filter_map(|c| c.private_ip_address.as_deref())
        .find(|ip| ip.parse::<IpAddr>().is_ok_and(|a| a.is_ipv6() == ipv6))
        .map(str::to_string)
}

/// The address `node`'s route for `cidr` points at.
pub async fn next_hop(
    instances: &AzureInstances,
    node: &NodeRef,
    cidr: &ipnet::IpNet,
) -> Result<String, InstanceError> {
    let ipv6 = matches!(cidr, ipnet::IpNet::V6(_));
    let machine = instances.resolve(node, ReadMode::Default).await?;
    let nic =
        addresses::primary_nic(instances.reads(), &machine, &node.name, ReadMode::Default).await?;
    first_private_ip(&nic, ipv6).ok_or_else(|| {
        InstanceError::Route(RouteError::NoAddressOfFamily {
            node: node.name.clone(),
            family: if ipv6 { "IPv6" } else { "IPv4" },
            cidr: cidr.to_string(),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_first_address_of_the_family_wins_in_ipconfig_order() {
        let nic: CachedNic = serde_json::from_value(json!({
            "properties": {"ipConfigurations": [
                {"name": "v6", "properties": {"privateIPAddress": "fd00::5",
                                               "privateIPAddressVersion": "IPv6"}},
                {"name": "primary", "properties": {"primary": true, "privateIPAddress": "10.0.0.5"}},
                {"name": "second", "properties": {"privateIPAddress": "10.0.0.6"}}
            ]}
        }))
        .unwrap();
        assert_eq!(first_private_ip(&nic, false).as_deref(), Some("10.0.0.5"));
        assert_eq!(first_private_ip(&nic, true).as_deref(), Some("fd00::5"));
        let v4_only: CachedNic = serde_json::from_value(json!({
            "properties": {"ipConfigurations": [{"properties": {"privateIPAddress": "10.0.0.7"}}]}
        }))
        .unwrap();
        assert_eq!(first_private_ip(&v4_only, true), None);
    }
}
