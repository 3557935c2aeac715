//! `Microsoft.Network/networkSecurityGroups` and security rules (`k8s-azure-lb_*` allow / deny
//! rules the service controller consolidates).

use serde::{Deserialize, Serialize};

use super::envelope::{Child, Extra, Reference, Resource};

/// An NSG document.
pub type NetworkSecurityGroup = Resource<NetworkSecurityGroupProperties>;

/// `properties` of an NSG.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NetworkSecurityGroupProperties {
    /// User rules (the CCM's live here).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub security_rules: Option<Vec<SecurityRule>>,
    /// Azure's default rules (read-only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_security_rules: Option<Vec<SecurityRule>>,
    /// Subnets using the NSG (read-only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subnets: Option<Vec<Reference>>,
    /// NICs using the NSG (read-only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network_interfaces: Option<Vec<Reference>>,
    /// `Succeeded`, ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisioning_state: Option<String>,
    /// Everything else (`resourceGuid`, `flowLogs`, `flushConnection`).
    #[serde(flatten)]
    pub extra: Extra,
}

/// A security rule.
pub type SecurityRule = Child<SecurityRuleProperties>;

/// `securityRules[].properties`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SecurityRuleProperties {
    /// 100-4096 for user rules (CCM: 500-4096).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<i64>,
    /// `Inbound` / `Outbound`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub direction: Option<String>,
    /// `Allow` / `Deny`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub access: Option<String>,
    /// `Tcp`, `Udp`, `*`, ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    /// Single source prefix (CIDR, IP, service tag or `*`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_address_prefix: Option<String>,
    /// Several source prefixes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_address_prefixes: Option<Vec<String>>,
    /// Single source port range.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_port_range: Option<String>,
    /// Several source port ranges.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_port_ranges: Option<Vec<String>>,
    /// Single destination prefix.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destination_address_prefix: Option<String>,
    /// Several destination prefixes (LB frontend IPs merged here).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destination_address_prefixes: Option<Vec<String>>,
    /// Single destination port range.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destination_port_range: Option<String>,
    /// Several destination port ranges.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destination_port_ranges: Option<Vec<String>>,
    /// Free text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `Succeeded`, ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisioning_state: Option<String>,
    /// Everything else (application security groups).
    #[serde(flatten)]
    pub extra: Extra,
}
