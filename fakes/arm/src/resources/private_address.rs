//! Private address allocation in a subnet, for NIC ipconfigs, scale-set instance NICs, internal LB frontends and
//! private link service NAT ipconfigs. IPv4 addresses come from the subnet's IPv4 prefix; ipconfigs with
//! `privateIPAddressVersion: IPv6` get theirs from the IPv6 entry of `addressPrefixes` of a dual-stack subnet.
//! Addresses in use come from the store's address index, so allocation never visits the other users' documents.

use crate::error::ArmError;
use crate::error_codes;
use crate::id::key_of;
use crate::store::{Store, find_child};
use ipnet::IpNet;
use serde_json::{Value, json};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// One address to allocate or validate.
pub(crate) struct AddressRequest<'a> {
    /// Subnet id as the ipconfig references it.
    pub subnet_id: &'a str,
    /// Entry keys whose current addresses the write may reuse (the entry being written, plus a private link
    /// service's NIC).
    pub owners: &'a [&'a str],
    /// Address asked for (a static address, or the one the ipconfig holds already).
    pub want: Option<&'a str>,
    /// `privateIPAllocationMethod: Static`.
    pub is_static: bool,
    /// Display id of the ipconfig / frontend the address is for.
    pub user: &'a str,
    /// `privateIPAddressVersion: IPv6`.
    pub v6: bool,
}

/// A subnet prefix of one address family, as integers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Prefix {
    v6: bool,
    net: u128,
    /// Last address of the prefix.
    last: u128,
}

impl Prefix {
    fn parse(cidr: &str) -> Option<Self> {
        let (v6, net, last) = match cidr.parse::<IpNet>().ok()? {
            IpNet::V4(n) => (
                false,
                u128::from(u32::from(n.network())),
                u128::from(u32::from(n.broadcast())),
            ),
            IpNet::V6(n) => (true, u128::from(n.network()), u128::from(n.broadcast())),
        };
        Some(Self { v6, net, last })
    }

    /// Last address a NIC may hold: Azure reserves the IPv4 broadcast address, and no tail address of an
    /// IPv6 prefix.
    fn last_usable(&self) -> u128 {
        if self.v6 {
            self.last
        } else {
            self.last.saturating_sub(1)
        }
    }

    fn ip(&self, n: u128) -> IpAddr {
        if self.v6 {
            IpAddr::V6(Ipv6Addr::from(n))
        } else {
            IpAddr::V4(Ipv4Addr::from(n as u32))
        }
    }

    fn number(ip: IpAddr) -> u128 {
        match ip {
            IpAddr::V4(v4) => u128::from(u32::from(v4)),
            IpAddr::V6(v6) => u128::from(v6),
        }
    }
}

/// Every prefix of a subnet (`addressPrefix` and `addressPrefixes`), as written.
pub(crate) fn subnet_prefixes(subnet: &Value) -> Vec<String> {
    let p = &subnet["properties"];
    let mut v: Vec<String> = p
        .get("addressPrefix")
        .and_then(Value::as_str)
        .map(String::from)
        .into_iter()
        .collect();
    v.extend(
        p.get("addressPrefixes")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|x| x.as_str().map(String::from)),
    );
    v
}

fn invalid_reference(subnet_id: &str, user: &str) -> ArmError {
    ArmError::nrp(
        error_codes::INVALID_RESOURCE_REFERENCE,
        format!(
            "Resource {subnet_id} referenced by resource {user} was not found. Please make sure that the referenced resource exists, and that both resources are in the same region."
        ),
    )
}

/// Allocates (or validates a static) private address in a subnet. Azure reserves the first four addresses of
/// each prefix and the IPv4 broadcast address, so dynamic allocation starts at `.4` (`::4` for IPv6: that the
/// IPv6 head reservation matches IPv4's, and that IPv6 reserves no tail, is [infer]); it takes the lowest free address, at the cost of one step per address of the run of taken
/// addresses before it. `local` carries the `(address, ipconfig id)` pairs already taken by the document being
/// written.
///
/// Codes and wording verified against live-Azure failure notes (an AZ-700 lab log of NRP answers) and the
/// private-endpoint DNS article: `PrivateIPAddressNotInSubnet`, `PrivateIPAddressInReservedRange`,
/// `PrivateIPAddressIsAllocated` (all 400). `SubnetIsFull` (400, wording quoted in cloud-provider-azure unit tests
/// and a live AKS SyncLoadBalancerFailed event). `InvalidPrivateIPAddress` and `SubnetMissingIPv6AddressPrefix`
/// (an IPv6 ipconfig in a subnet without an IPv6 prefix) are [unverified].
pub(crate) fn allocate_private_ip(
    store: &Store,
    req: &AddressRequest,
    local: &mut Vec<(String, String)>,
) -> Result<String, ArmError> {
    let AddressRequest {
        subnet_id,
        owners,
        want,
        is_static,
        user,
        v6,
    } = *req;
    let subnet_key = key_of(subnet_id);
    let subnet = store
        .object(&subnet_key)
        .ok_or_else(|| invalid_reference(subnet_id, user))?;
    let all = subnet_prefixes(subnet);
    let Some((cidr, prefix)) = all
        .iter()
        .find_map(|c| Prefix::parse(c).filter(|p| p.v6 == v6).map(|p| (c, p)))
    else {
        if v6 {
            return Err(ArmError::nrp(
                error_codes::SUBNET_MISSING_IPV6_PREFIX,
                format!(
                    "IP configuration {user} requests an IPv6 private address, but subnet {subnet_id} has no IPv6 address prefix ({}).",
                    all.join(",")
                ),
            ));
        }
        return Ok(want.unwrap_or("10.0.0.4").to_string());
    };
    let in_use = store.addresses.in_subnet(&subnet_key);
    let local_ips: Vec<(IpAddr, &str)> = local
        .iter()
        .filter_map(|(a, by)| a.parse::<IpAddr>().ok().map(|ip| (ip, by.as_str())))
        .collect();
    // The holder of an address: the document being written first, then other entries (the writer's own
    // current addresses are free to reuse).
    let taken = |ip: IpAddr| {
        local_ips
            .iter()
            .find(|(l, _)| *l == ip)
            .map(|(_, by)| by.to_string())
            .or_else(|| {
                in_use?
                    .get(&ip)?
                    .iter()
                    .find(|h| !owners.contains(&h.owner.as_str()))
                    .map(|h| h.from.clone())
            })
    };
    if let Some(w) = want {
        let family = if v6 { "IPv6" } else { "IPv4" };
        let Some(addr) = w.parse::<IpAddr>().ok().filter(|a| a.is_ipv6() == v6) else {
            return Err(ArmError::nrp(
                error_codes::INVALID_PRIVATE_IP_ADDRESS,
                format!("Private IP address {w} of {user} is not a valid {family} address."),
            ));
        };
        let n = Prefix::number(addr);
        let in_prefix = n >= prefix.net && n <= prefix.last;
        let reserved = in_prefix && (n < prefix.net.saturating_add(4) || n > prefix.last_usable());
        if is_static && !in_prefix {
            return Err(ArmError::nrp(
                error_codes::PRIVATE_IP_ADDRESS_NOT_IN_SUBNET,
                format!(
                    "Private static IP address {w} does not belong to the range of subnet prefix {cidr}."
                ),
            ));
        }
        if is_static && reserved {
            return Err(ArmError::nrp(
                error_codes::PRIVATE_IP_ADDRESS_IN_RESERVED_RANGE,
                format!(
                    "Private static IP address {w} falls within reserved IP range of subnet prefix {cidr}."
                ),
            ));
        }
        match taken(addr) {
            None if in_prefix && !reserved => {
                let s = addr.to_string();
                local.push((s.clone(), user.to_string()));
                return Ok(s);
            }
            Some(by) if is_static => {
                return Err(ArmError::nrp(
                    error_codes::PRIVATE_IP_ADDRESS_IS_ALLOCATED,
                    format!(
                        "IP configuration {user} is using the private IP address {w} which is already allocated to resource {by}."
                    ),
                ));
            }
            _ => {}
        }
    }
    // One pass over the subnet's addresses in order, alongside the candidate.
    let first = prefix.ip(prefix.net.saturating_add(4));
    let mut n = prefix.net.saturating_add(4);
    let mut held = in_use.into_iter().flat_map(|m| m.range(first..)).peekable();
    while n <= prefix.last_usable() {
        let ip = prefix.ip(n);
        while held.next_if(|(h, _)| **h < ip).is_some() {}
        let by_other = held.peek().is_some_and(|(h, holders)| {
            **h == ip && holders.iter().any(|x| !owners.contains(&x.owner.as_str()))
        });
        if !by_other && !local_ips.iter().any(|(l, _)| *l == ip) {
            let s = ip.to_string();
            local.push((s.clone(), user.to_string()));
            return Ok(s);
        }
        n = match n.checked_add(1) {
            Some(next) => next,
            None => break,
        };
    }
    Err(ArmError::nrp(
        error_codes::SUBNET_IS_FULL,
        format!(
            "Subnet {subnet_id} with address prefix {} does not have enough capacity for 1 IP addresses.",
            all.join(",")
        ),
    ))
}

/// The address a write asks for on an ipconfig or frontend (`props` is its `properties`): a static one exactly
/// as written; a dynamic one keeps the address it held before the write (`previous_child`), else the one
/// written. NIC, load balancer and private link service writes share this rule.
pub(crate) fn wanted_address(
    props: &Value,
    is_static: bool,
    previous_child: Option<&Value>,
) -> Option<String> {
    let requested = props
        .get("privateIPAddress")
        .and_then(Value::as_str)
        .map(String::from);
    if is_static {
        return requested;
    }
    previous_child
        .and_then(|c| c.pointer("/properties/privateIPAddress"))
        .and_then(Value::as_str)
        .map(String::from)
        .or(requested)
}

/// Sets `properties.privateIPAddress` of one `ipConfigurations` entry (a NIC's or a private link service's NAT
/// ipconfig, defaults already applied): the subnet is required, and the address follows [`wanted_address`]
/// against the same-named ipconfig of `previous_doc`.
pub(crate) fn assign_ipconfig_address(
    store: &Store,
    ipc: &mut Value,
    previous_doc: Option<&Value>,
    owners: &[&str],
    v6: bool,
    local: &mut Vec<(String, String)>,
) -> Result<(), ArmError> {
    let user = ipc["id"].as_str().unwrap_or_default().to_string();
    let name = ipc["name"].as_str().unwrap_or_default();
    let previous_child = previous_doc.and_then(|d| find_child(d, "ipConfigurations", name));
    let p = &mut ipc["properties"];
    let Some(subnet) = p
        .pointer("/subnet/id")
        .and_then(Value::as_str)
        .map(String::from)
    else {
        return Err(ArmError::nrp(
            error_codes::IP_CONFIGURATION_SUBNET_MISSING,
            format!("Subnet is missing on IP configuration {user}."),
        ));
    };
    let is_static = p["privateIPAllocationMethod"] == "Static";
    let want = wanted_address(p, is_static, previous_child);
    let request = AddressRequest {
        subnet_id: &subnet,
        owners,
        want: want.as_deref(),
        is_static,
        user: &user,
        v6,
    };
    let ip = allocate_private_ip(store, &request, local)?;
    p["privateIPAddress"] = json!(ip);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_of_both_families() {
        let p = Prefix::parse("10.0.0.0/24").unwrap();
        assert_eq!((p.v6, p.net, p.last), (false, 0x0a00_0000, 0x0a00_00ff));
        let p = Prefix::parse("fd00:db8:0:1::/64").unwrap();
        assert!(p.v6);
        assert_eq!(p.ip(p.net + 4).to_string(), "fd00:db8:0:1::4");
        assert_eq!(p.ip(p.last).to_string(), "fd00:db8:0:1:ffff:ffff:ffff:ffff");
        assert_eq!(Prefix::parse("10.0.0.7/0").map(|p| p.net), Some(0));
        assert!(Prefix::parse("10.0.0.0/33").is_none());
        assert!(Prefix::parse("fd00::/129").is_none());
        assert!(Prefix::parse("x/8").is_none());
    }
}
