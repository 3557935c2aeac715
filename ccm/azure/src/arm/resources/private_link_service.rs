//! `Microsoft.Network/privateLinkServices` (`azure-pls-*` annotations on internal services).

use serde::{Deserialize, Serialize};

use super::envelope::{Child, Extra, Reference, Resource};

/// A private-link-service document.
pub type PrivateLinkService = Resource<PrivateLinkServiceProperties>;

/// `properties` of a PLS.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PrivateLinkServiceProperties {
    /// The LB frontends it exposes (note ARM's `Ip`, not `IP`, in this name).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load_balancer_frontend_ip_configurations: Option<Vec<Reference>>,
    /// NAT IP configurations.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ip_configurations: Option<Vec<PlsIpConfiguration>>,
    /// Subscriptions that may see it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub visibility: Option<SubscriptionList>,
    /// Subscriptions auto-approved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_approval: Option<SubscriptionList>,
    /// FQDNs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fqdns: Option<Vec<String>>,
    /// TCP proxy protocol v2.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enable_proxy_protocol: Option<bool>,
    /// Alias (read-only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alias: Option<String>,
    /// Connections (read-only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub private_endpoint_connections: Option<Vec<Child<Extra>>>,
    /// `Succeeded`, ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisioning_state: Option<String>,
    /// Everything else (`networkInterfaces`, `destinationIPAddress`, `accessMode`).
    #[serde(flatten)]
    pub extra: Extra,
}

/// A PLS NAT IP configuration.
pub type PlsIpConfiguration = Child<PlsIpConfigurationProperties>;

/// `ipConfigurations[].properties` of a PLS.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlsIpConfigurationProperties {
    /// Primary flag.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub primary: Option<bool>,
    /// Static address.
    #[serde(rename = "privateIPAddress", skip_serializing_if = "Option::is_none")]
    pub private_ip_address: Option<String>,
    /// `Static` / `Dynamic`.
    #[serde(
        rename = "privateIPAllocationMethod",
        skip_serializing_if = "Option::is_none"
    )]
    pub private_ip_allocation_method: Option<String>,
    /// `IPv4` / `IPv6`.
    #[serde(
        rename = "privateIPAddressVersion",
        skip_serializing_if = "Option::is_none"
    )]
    pub private_ip_address_version: Option<String>,
    /// Subnet.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subnet: Option<Reference>,
    /// Everything else.
    #[serde(flatten)]
    pub extra: Extra,
}

/// `visibility` / `autoApproval`: `{subscriptions[]}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubscriptionList {
    /// Subscription ids.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subscriptions: Option<Vec<String>>,
    /// Everything else.
    #[serde(flatten)]
    pub extra: Extra,
}
