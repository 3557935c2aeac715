//! Node addresses on the IMDS path, in upstream's order (`getLocalInstanceNodeAddresses`):
//! Hostname, IPv4 InternalIP, IPv4 ExternalIP, IPv6 InternalIP, IPv6 ExternalIP, all from the
//! first NIC's first address of each family.

use k8s_openapi::api::core::v1::NodeAddress;

use super::ImdsError;
use super::document::{IpAddress, Network};

fn address(kind: &str, address: &str) -> NodeAddress {
    NodeAddress {
        type_: kind.to_string(),
        address: address.to_string(),
    }
}

/// The node's addresses from the (public-IP-filled) network document; an error when there is no
/// NIC or no private address at all.
pub fn node_addresses(network: &Network, node_name: &str) -> Result<Vec<NodeAddress>, ImdsError> {
    let nic = network
        .interface
        .first()
        .ok_or(ImdsError::Missing("network interface"))?;
    let mut out = vec![address("Hostname", node_name)];
    for family in [&nic.ipv4.ip_address, &nic.ipv6.ip_address] {
        if let Some(IpAddress {
            private_ip_address,
            public_ip_address,
        }) = family.first()
            && !private_ip_address.is_empty()
        {
            out.push(address("InternalIP", private_ip_address));
            if !public_ip_address.is_empty() {
                out.push(address("ExternalIP", public_ip_address));
            }
        }
    }
    if out.len() == 1 {
        return Err(ImdsError::Missing("IP address"));
    }
    Ok(out)
}
