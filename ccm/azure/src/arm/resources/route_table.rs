//! `Microsoft.Network/routeTables` and routes (`<node>____<cidr>` pod-CIDR routes).

use serde::{Deserialize, Serialize};

use super::envelope::{Child, Extra, Reference, Resource};

/// A route-table document.
pub type RouteTable = Resource<RouteTableProperties>;

/// `properties` of a route table.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RouteTableProperties {
    /// The routes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub routes: Option<Vec<Route>>,
    /// Subnets using the table (read-only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subnets: Option<Vec<Reference>>,
    /// BGP propagation switch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disable_bgp_route_propagation: Option<bool>,
    /// `Succeeded`, ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisioning_state: Option<String>,
    /// Everything else (`resourceGuid`).
    #[serde(flatten)]
    pub extra: Extra,
}

/// A route.
pub type Route = Child<RouteProperties>;

/// `routes[].properties`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RouteProperties {
    /// Destination CIDR (the pod CIDR).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address_prefix: Option<String>,
    /// `VirtualAppliance` for node routes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_hop_type: Option<String>,
    /// The node's IP.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_hop_ip_address: Option<String>,
    /// `Succeeded`, ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisioning_state: Option<String>,
    /// Everything else (`hasBgpOverride`).
    #[serde(flatten)]
    pub extra: Extra,
}
