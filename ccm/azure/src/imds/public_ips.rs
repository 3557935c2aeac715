//! Standard-SKU public IPs are not in the instance document; upstream copies them from
//! `/metadata/loadbalancer` onto the first NIC, matching by private address.

use super::document::{Interface, PublicIpAddress};

/// Whether the NIC already has a public address on its first IPv4 or IPv6 address (then upstream
/// does not ask for the load-balancer document).
pub fn has_public_ip(nic: &Interface) -> bool {
    let first_public = |addrs: &[super::document::IpAddress]| {
        addrs
            .first()
            .is_some_and(|a| !a.public_ip_address.is_empty())
    };
    first_public(&nic.ipv4.ip_address) || first_public(&nic.ipv6.ip_address)
}

/// Copies the frontend address of the entry whose private address equals the NIC's first IPv4
/// (exact match) and first IPv6 (brackets stripped on both sides) private address.
pub fn fill_public_ips(nic: &mut Interface, public_ips: &[PublicIpAddress]) {
    let unbracket = |ip: &str| ip.trim_matches('[').trim_matches(']').to_string();
    if let Some(v4) = nic.ipv4.ip_address.first_mut()
        && !v4.private_ip_address.is_empty()
        && let Some(pip) = public_ips
            .iter()
            .find(|p| p.private_ip_address == v4.private_ip_address)
    {
        v4.public_ip_address = pip.frontend_ip_address.clone();
    }
    if let Some(v6) = nic.ipv6.ip_address.first_mut()
        && !v6.private_ip_address.is_empty()
        && let Some(pip) = public_ips
            .iter()
            .find(|p| unbracket(&p.private_ip_address) == v6.private_ip_address)
    {
        v6.public_ip_address = unbracket(&pip.frontend_ip_address);
    }
}
