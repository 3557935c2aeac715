//! `Microsoft.Network/publicIPAddresses`: service frontends' and nodes' public addresses.

use serde::{Deserialize, Serialize};

use super::envelope::{Extra, Reference, Resource};

/// A public-IP document.
pub type PublicIpAddress = Resource<PublicIpAddressProperties>;

/// `properties` of a public IP.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PublicIpAddressProperties {
    /// `Static` / `Dynamic`.
    #[serde(
        rename = "publicIPAllocationMethod",
        skip_serializing_if = "Option::is_none"
    )]
    pub public_ip_allocation_method: Option<String>,
    /// `IPv4` / `IPv6`.
    #[serde(
        rename = "publicIPAddressVersion",
        skip_serializing_if = "Option::is_none"
    )]
    pub public_ip_address_version: Option<String>,
    /// The assigned address (read-only; absent until allocated).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ip_address: Option<String>,
    /// Idle timeout (default 4).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idle_timeout_in_minutes: Option<i64>,
    /// IP tags (`azure-pip-ip-tags`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ip_tags: Option<Vec<IpTag>>,
    /// DNS label (`azure-dns-label-name`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dns_settings: Option<PublicIpDnsSettings>,
    /// Prefix the address comes from (`azure-pip-prefix-id`).
    #[serde(rename = "publicIPPrefix", skip_serializing_if = "Option::is_none")]
    pub public_ip_prefix: Option<Reference>,
    /// Who uses it: LB frontend or NIC ipconfig (read-only; blocks deletion).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ip_configuration: Option<Reference>,
    /// `Succeeded`, `Updating`, ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisioning_state: Option<String>,
    /// Everything else (`ddosSettings`, `resourceGuid`, `natGateway`, ...).
    #[serde(flatten)]
    pub extra: Extra,
}

/// `ipTags[]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IpTag {
    /// e.g. `RoutingPreference`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ip_tag_type: Option<String>,
    /// e.g. `Internet`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    /// Everything else.
    #[serde(flatten)]
    pub extra: Extra,
}

/// `dnsSettings` of a public IP.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PublicIpDnsSettings {
    /// The label.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub domain_name_label: Option<String>,
    /// Resulting FQDN (read-only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fqdn: Option<String>,
    /// Everything else (`domainNameLabelScope`, `reverseFqdn`).
    #[serde(flatten)]
    pub extra: Extra,
}
