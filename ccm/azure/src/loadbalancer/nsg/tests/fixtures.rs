//! Builders for Services, destinations and NSGs used by the NSG plan tests.

use std::net::IpAddr;

use ipnet::IpNet;
use serde_json::json;

use crate::arm::resources::security_group::{NetworkSecurityGroup, SecurityRule};
use crate::loadbalancer::nsg::Destinations;
use crate::loadbalancer::service::{LbPort, LbService, Protocol};

/// A Service port with a NodePort.
pub fn port(protocol: Protocol, port: u16, node_port: u16) -> LbPort {
    LbPort::new(protocol, port, Some(node_port))
}

/// A public IPv4 Service `default/<name>` with TCP 80 and no restriction.
pub fn service(name: &str, uid: &str) -> LbService {
    LbService {
        ports: vec![port(Protocol::Tcp, 80, 30080)],
        ..LbService::minimal("default", name, uid)
    }
}

/// Parses CIDRs.
pub fn nets(cidrs: &[&str]) -> Vec<IpNet> {
    cidrs
        .iter()
        .map(|c| c.parse().expect("test CIDR"))
        .collect()
}

/// Parses addresses.
pub fn ips(addrs: &[&str]) -> Vec<IpAddr> {
    addrs.iter().map(|a| a.parse().expect("test IP")).collect()
}

/// Destinations with frontend IPs only.
pub fn frontends(addrs: &[&str]) -> Destinations {
    Destinations {
        frontend_ips: ips(addrs),
        backend_ips: vec![],
        stale: vec![],
    }
}

/// An NSG as ARM returns it, with the given rules (JSON) and Azure's default rules.
pub fn nsg(rules: serde_json::Value) -> NetworkSecurityGroup {
    serde_json::from_value(json!({
        "id": "/subscriptions/sub/resourceGroups/rg/providers/Microsoft.Network/networkSecurityGroups/k8s-nsg",
        "name": "k8s-nsg",
        "type": "Microsoft.Network/networkSecurityGroups",
        "location": "eastus",
        "etag": "W/\"1\"",
        "properties": {
            "provisioningState": "Succeeded",
            "resourceGuid": "00000000-0000-0000-0000-000000000001",
            "securityRules": rules,
            "defaultSecurityRules": [{
                "name": "AllowVnetInBound",
                "properties": {
                    "priority": 65000, "direction": "Inbound", "access": "Allow", "protocol": "*",
                    "sourceAddressPrefix": "VirtualNetwork", "sourcePortRange": "*",
                    "destinationAddressPrefix": "VirtualNetwork", "destinationPortRange": "*"
                }
            }]
        }
    }))
    .expect("test NSG")
}

/// The NSG's security rules (empty when absent).
pub fn rules(nsg: &NetworkSecurityGroup) -> Vec<SecurityRule> {
    nsg.properties
        .as_ref()
        .and_then(|p| p.security_rules.clone())
        .unwrap_or_default()
}

/// A rule by name.
pub fn rule<'a>(nsg: &'a NetworkSecurityGroup, name: &str) -> Option<&'a SecurityRule> {
    nsg.properties
        .as_ref()?
        .security_rules
        .as_ref()?
        .iter()
        .find(|r| r.name.as_deref() == Some(name))
}

/// All destination addresses of a rule.
pub fn rule_destinations(rule: &SecurityRule) -> Vec<String> {
    let Some(p) = rule.properties.as_ref() else {
        return vec![];
    };
    p.destination_address_prefix
        .iter()
        .cloned()
        .chain(p.destination_address_prefixes.iter().flatten().cloned())
        .collect()
}

/// Applies `plan` output (a `None` keeps the NSG as it was).
pub fn apply(
    current: NetworkSecurityGroup,
    planned: Option<NetworkSecurityGroup>,
) -> NetworkSecurityGroup {
    planned.unwrap_or(current)
}
