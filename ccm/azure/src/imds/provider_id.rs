//! The providerID of the local VM, as upstream's cloud-node-manager writes it: `azure://` + the
//! IMDS `resourceId` with every occurrence of the subscription ID and of the resource-group name
//! replaced by its lower-case form (`getLocalInstanceProviderID` uses `strings.ReplaceAll`, so a
//! VM name containing the resource-group name is lower-cased there too).

use super::ImdsError;
use super::document::Compute;

/// Prefix of every Azure providerID.
pub const PROVIDER_ID_PREFIX: &str = "azure://";

/// `azure://<resourceId>` with subscription and resource group lower-cased.
pub fn provider_id(compute: &Compute) -> Result<String, ImdsError> {
    if compute.resource_id.is_empty() {
        return Err(ImdsError::Missing("compute.resourceId"));
    }
    let mut id = compute.resource_id.clone();
    for part in [&compute.subscription_id, &compute.resource_group_name] {
        if !part.is_empty() {
            id = id.replace(part.as_str(), &part.to_lowercase());
        }
    }
    Ok(format!("{PROVIDER_ID_PREFIX}{id}"))
}
