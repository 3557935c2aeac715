//! `GET /subscriptions/{sub}/providers[/{namespace}]`: the resource-provider registration documents. The CCM reads
//! `Microsoft.Compute`'s `resourceTypes[].zoneMappings` (logical zones per location) through this endpoint
//! (api-version 2021-04-01), so the fake serves the namespaces it implements, registered, with their types,
//! api-versions and locations.

use crate::api_version;
use crate::error::ArmError;
use crate::error_codes;
use crate::kinds::{self, Provider};
use serde_json::{Value, json};

/// Regions the fake advertises: normalised name, display name, whether it has availability zones.
const REGIONS: &[(&str, &str, bool)] = &[
    ("eastus", "East US", true),
    ("eastus2", "East US 2", true),
    ("westus", "West US", false),
    ("westus2", "West US 2", true),
    ("westus3", "West US 3", true),
    ("centralus", "Central US", true),
    ("northcentralus", "North Central US", false),
    ("southcentralus", "South Central US", true),
    ("westcentralus", "West Central US", false),
    ("northeurope", "North Europe", true),
    ("westeurope", "West Europe", true),
    ("uksouth", "UK South", true),
    ("southeastasia", "Southeast Asia", true),
    ("eastasia", "East Asia", true),
    ("japaneast", "Japan East", true),
    ("australiaeast", "Australia East", true),
];

/// Top-level resource types per served namespace (child types are registered under their parent in ARM too,
/// but the CCM only reads top-level entries).
fn resource_types(provider: Provider) -> Vec<&'static str> {
    kinds::KINDS
        .iter()
        .filter(|k| k.provider == provider && k.types.len() == 1)
        .map(|k| k.types[0])
        .collect()
}

/// The registration document of one namespace.
fn namespace_doc(sub: &str, provider: Provider) -> Value {
    let ns = provider.namespace();
    let locations: Vec<&str> = REGIONS.iter().map(|(_, d, _)| *d).collect();
    let versions = api_version::supported_for_provider(provider);
    let zone_mappings: Vec<Value> = REGIONS
        .iter()
        .filter(|(_, _, zoned)| *zoned)
        .map(|(_, display, _)| json!({ "location": display, "zones": ["1", "2", "3"] }))
        .collect();
    let types: Vec<Value> = resource_types(provider)
        .into_iter()
        .map(|t| {
            let mut v =
                json!({ "resourceType": t, "locations": locations, "apiVersions": versions });
            if provider == Provider::Compute && t == "virtualMachines" {
                v["zoneMappings"] = json!(zone_mappings);
            }
            v
        })
        .collect();
    json!({
        "id": format!("/subscriptions/{sub}/providers/{ns}"),
        "namespace": ns,
        "registrationState": "Registered",
        "registrationPolicy": "RegistrationRequired",
        "resourceTypes": types,
    })
}

/// Serves `/subscriptions/{sub}/providers` (list) or `/subscriptions/{sub}/providers/{ns}` (one), GET only.
/// Returns `None` when `path` is not a provider-registration path.
pub(crate) fn serve(path: &str, api: Option<&str>) -> Option<Result<Value, ArmError>> {
    let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let (sub, ns) = match segs.as_slice() {
        [s, sub, p]
            if s.eq_ignore_ascii_case("subscriptions") && p.eq_ignore_ascii_case("providers") =>
        {
            (*sub, None)
        }
        [s, sub, p, ns]
            if s.eq_ignore_ascii_case("subscriptions") && p.eq_ignore_ascii_case("providers") =>
        {
            (*sub, Some(*ns))
        }
        _ => return None,
    };
    Some(respond(sub, ns, api))
}

fn respond(sub: &str, ns: Option<&str>, api: Option<&str>) -> Result<Value, ArmError> {
    api_version::check_provider(api, Provider::Resources)?;
    let all = [Provider::Resources, Provider::Network, Provider::Compute];
    match ns {
        None => {
            Ok(json!({ "value": all.iter().map(|p| namespace_doc(sub, *p)).collect::<Vec<_>>() }))
        }
        Some(ns) => all
            .iter()
            .find(|p| p.namespace().eq_ignore_ascii_case(ns))
            .map(|p| namespace_doc(sub, *p))
            .ok_or_else(|| {
                // [unverified] wording; ARM's code for an unknown namespace.
                ArmError::new(
                    error_codes::INVALID_RESOURCE_NAMESPACE,
                    format!("The resource namespace '{ns}' is invalid."),
                )
            }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compute_registration_carries_zone_mappings() {
        let doc = serve(
            "/subscriptions/s/providers/microsoft.compute",
            Some("2021-04-01"),
        )
        .unwrap()
        .unwrap();
        assert_eq!(doc["namespace"], "Microsoft.Compute");
        let vm = doc["resourceTypes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["resourceType"] == "virtualMachines")
            .unwrap();
        let east = vm["zoneMappings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["location"] == "East US")
            .unwrap();
        assert_eq!(east["zones"], json!(["1", "2", "3"]));
        let list = serve("/subscriptions/s/providers", Some("2021-04-01"))
            .unwrap()
            .unwrap();
        assert_eq!(list["value"].as_array().unwrap().len(), 3);
        assert!(
            serve(
                "/subscriptions/s/providers/Microsoft.Nope",
                Some("2021-04-01")
            )
            .unwrap()
            .is_err()
        );
        assert!(serve("/subscriptions/s/providers", None).unwrap().is_err());
        assert!(serve("/subscriptions/s/resourceGroups", None).is_none());
    }
}
