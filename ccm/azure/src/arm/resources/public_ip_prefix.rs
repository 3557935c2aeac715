//! `Microsoft.Network/publicIPPrefixes`: read for `azure-pip-prefix-id` (IP version check).

use serde::{Deserialize, Serialize};

use super::envelope::{Extra, Reference, Resource};

/// A public-IP-prefix document.
pub type PublicIpPrefix = Resource<PublicIpPrefixProperties>;

/// `properties` of a public IP prefix.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PublicIpPrefixProperties {
    /// `IPv4` / `IPv6`.
    #[serde(
        rename = "publicIPAddressVersion",
        skip_serializing_if = "Option::is_none"
    )]
    pub public_ip_address_version: Option<String>,
    /// Prefix length.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefix_length: Option<i64>,
    /// The allocated CIDR (read-only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ip_prefix: Option<String>,
    /// Public IPs drawn from it (read-only).
    #[serde(rename = "publicIPAddresses", skip_serializing_if = "Option::is_none")]
    pub public_ip_addresses: Option<Vec<Reference>>,
    /// `Succeeded`, ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisioning_state: Option<String>,
    /// Everything else.
    #[serde(flatten)]
    pub extra: Extra,
}
