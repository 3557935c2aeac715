//! `Microsoft.Compute/availabilitySets`: listed for VMAS node-set detection.

use serde::{Deserialize, Serialize};

use super::envelope::{Extra, Reference, Resource};

/// An availability-set document.
pub type AvailabilitySet = Resource<AvailabilitySetProperties>;

/// `properties` of an availability set.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AvailabilitySetProperties {
    /// Fault-domain count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub platform_fault_domain_count: Option<i64>,
    /// Update-domain count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub platform_update_domain_count: Option<i64>,
    /// Member VMs (read-only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub virtual_machines: Option<Vec<Reference>>,
    /// Everything else (`proximityPlacementGroup`, `statuses`).
    #[serde(flatten)]
    pub extra: Extra,
}
