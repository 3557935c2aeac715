//! The pieces every ARM document shares: the tracked-resource envelope, child (sub-)resources,
//! `{"id": ...}` references and SKUs, each with a catch-all so a GET → PUT drops nothing.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Unknown JSON members kept verbatim at one object level, so PUT sends back what GET returned.
pub type Extra = Map<String, Value>;

/// A top-level ARM resource (`id`, `name`, `type`, `location`, `tags`, `etag`, `sku`, `zones`,
/// `properties`): one generic envelope so each resource module only models its `properties`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resource<P> {
    /// Full ARM id, ARM casing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Resource name (last id segment).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// ARM type, e.g. `Microsoft.Network/loadBalancers`.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Region, ARM spelling (`eastus2`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// Resource tags; the CCM reads and reconciles them on LBs, PIPs, NSGs and route tables.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tags: Option<BTreeMap<String, String>>,
    /// Opaque entity tag sent back as `If-Match` on PUT.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub etag: Option<String>,
    /// SKU (LB/PIP Basic|Standard, VM size of a scale set, availability-set Aligned|Classic).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sku: Option<Sku>,
    /// Availability zones (`"1"`, `"2"`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zones: Option<Vec<String>>,
    /// Edge zone the resource lives in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extended_location: Option<ExtendedLocation>,
    /// The resource-type specific body.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub properties: Option<P>,
    /// Everything else (`identity`, `plan`, `systemData`, `kind`, ...).
    #[serde(flatten)]
    pub extra: Extra,
}

/// A child resource embedded in its parent (LB frontend, pool, rule, probe, NIC ipconfig, NSG
/// rule, route, subnet): `id`, `name`, `type`, `etag`, `properties` and, for frontends, `zones`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Child<P> {
    /// Full ARM id of the child.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Child name (unique within its collection).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// ARM child type, e.g. `Microsoft.Network/loadBalancers/probes`.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Entity tag (the parent's on NRP children).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub etag: Option<String>,
    /// Zones (LB frontends only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zones: Option<Vec<String>>,
    /// The child-type specific body.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub properties: Option<P>,
    /// Everything else.
    #[serde(flatten)]
    pub extra: Extra,
}

/// `{"id": "<full ARM id>"}`: how ARM documents point at another resource (SubResource).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reference {
    /// The referenced resource's full id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Anything else sent with the reference (e.g. an embedded PIP's `properties`).
    #[serde(flatten)]
    pub extra: Extra,
}

impl Reference {
    /// A reference to `id`, as the CCM writes it into pools, frontends and ipconfigs.
    pub fn to(id: impl Into<String>) -> Self {
        Reference {
            id: Some(id.into()),
            extra: Extra::new(),
        }
    }
}

/// `sku{name, tier, capacity}`: one shape serves every type the CCM reads.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Sku {
    /// `Basic`/`Standard` (LB, PIP), VM size (scale set), `Aligned`/`Classic` (availability set).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `Regional`/`Global` (NRP) or `Standard` (Compute).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tier: Option<String>,
    /// Instance count of a scale set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capacity: Option<i64>,
    /// Everything else.
    #[serde(flatten)]
    pub extra: Extra,
}

/// `extendedLocation{name, type}`: the edge zone a resource is created in.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExtendedLocation {
    /// Edge zone name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `EdgeZone`.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Everything else.
    #[serde(flatten)]
    pub extra: Extra,
}

/// One page of a list call: `value[]` and the `nextLink` to follow (absent on the last page).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", bound(deserialize = "T: Deserialize<'de>"))]
pub struct Page<T> {
    /// The items of this page.
    #[serde(default)]
    pub value: Vec<T>,
    /// Absolute URL of the next page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_link: Option<String>,
    /// Everything else.
    #[serde(flatten)]
    pub extra: Extra,
}

/// Upstream's primary choice among NICs or ipconfigs (`getPrimaryInterfaceID`,
/// `getPrimaryIPConfig`): the only item, else the first `flagged` one. Whole documents and the
/// compact cached projections choose through this one rule.
pub fn only_or_flagged<T>(items: &[T], flagged: impl Fn(&T) -> bool) -> Option<&T> {
    if items.len() == 1 {
        items.first()
    } else {
        items.iter().find(|i| flagged(i))
    }
}

/// `ipv4`/`ipv6` family by ARM's `privateIPAddressVersion`/`publicIPAddressVersion` values.
pub fn is_ipv6_version(version: Option<&str>) -> bool {
    version.is_some_and(|v| v.eq_ignore_ascii_case("IPv6"))
}
