//! `GET /subscriptions/{sub}/providers/Microsoft.Compute`: resource-provider metadata, read for
//! the zones of the cluster's region (`resourceTypes[virtualMachines].zoneMappings`).

use serde::{Deserialize, Serialize};

use super::envelope::Extra;

/// A resource provider document.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceProvider {
    /// `/subscriptions/{sub}/providers/Microsoft.Compute`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// `Microsoft.Compute`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// `Registered`, ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub registration_state: Option<String>,
    /// Per-type metadata.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_types: Option<Vec<ProviderResourceType>>,
    /// Everything else (`registrationPolicy`, ...).
    #[serde(flatten)]
    pub extra: Extra,
}

/// `resourceTypes[]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderResourceType {
    /// e.g. `virtualMachines`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_type: Option<String>,
    /// Display names of the regions (`East US 2`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub locations: Option<Vec<String>>,
    /// Zones per region.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zone_mappings: Option<Vec<ZoneMapping>>,
    /// Everything else (`apiVersions`, `capabilities`, ...).
    #[serde(flatten)]
    pub extra: Extra,
}

/// `zoneMappings[]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ZoneMapping {
    /// Display name of the region.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// Zone numbers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zones: Option<Vec<String>>,
    /// Everything else.
    #[serde(flatten)]
    pub extra: Extra,
}

/// Key of a zone mapping: the display name (`East US 2`) lower-cased with spaces removed, as
/// upstream's zone client keys its region map (`eastus2`).
fn location_key(display: &str) -> String {
    display.replace(' ', "").to_lowercase()
}

impl ResourceProvider {
    /// Zones of `location` (ARM name, compared lower-cased) for `virtualMachines`; empty when the
    /// region has none. Like upstream's region map, a later mapping for the same region replaces
    /// an earlier one.
    pub fn vm_zones(&self, location: &str) -> Vec<String> {
        let wanted = location.to_lowercase();
        self.resource_types
            .iter()
            .flatten()
            .filter(|t| {
                t.resource_type
                    .as_deref()
                    .is_some_and(|r| r.eq_ignore_ascii_case("virtualMachines"))
            })
            .flat_map(|t| t.zone_mappings.iter().flatten())
            .rfind(|m| {
                m.location
                    .as_deref()
                    .is_some_and(|l| location_key(l) == wanted)
            })
            .and_then(|m| m.zones.clone())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn zones_of_a_region_by_its_arm_name() {
        let p: ResourceProvider = serde_json::from_value(json!({
            "namespace": "Microsoft.Compute",
            "resourceTypes": [
                { "resourceType": "availabilitySets", "zoneMappings": [{ "location": "East US 2", "zones": ["9"] }] },
                { "resourceType": "virtualMachines", "zoneMappings": [
                    { "location": "East US", "zones": ["1"] },
                    { "location": "East US 2", "zones": ["5"] },
                    { "location": "East US 2", "zones": ["2", "1", "3"] }
                ] }
            ]
        }))
        .unwrap();
        assert_eq!(p.vm_zones("eastus2"), ["2", "1", "3"]);
        assert_eq!(p.vm_zones("EastUS"), ["1"]);
        assert!(p.vm_zones("westus").is_empty());
    }
}
