//! The decode-only shapes several cached projections share: `{"id"}` references, the primary NIC
//! of a `networkProfile`, the instance view's fault domain and power state, the SKU name and the
//! computer name. Members they do not name are skipped while decoding (serde's `IgnoredAny`), so
//! nothing of them is allocated.

use serde::Deserialize;

use crate::arm::resources::envelope::only_or_flagged;
use crate::arm::resources::instance_view::power_state_of;

/// `{"id": ...}` with only the id.
#[derive(Debug, Default, Deserialize)]
pub(super) struct IdOnly {
    pub id: Option<String>,
}

/// `{"name": ...}` with only the name (`sku`).
#[derive(Debug, Default, Deserialize)]
pub(super) struct NameOnly {
    pub name: Option<String>,
}

/// `osProfile` with only `computerName`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ComputerNameOnly {
    pub computer_name: Option<String>,
}

/// `hardwareProfile` with only `vmSize`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct VmSizeOnly {
    pub vm_size: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct PrimaryFlag {
    primary: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
struct NicReference {
    id: Option<String>,
    properties: Option<PrimaryFlag>,
}

/// `networkProfile` reduced to the id of its primary NIC, chosen like
/// [`crate::arm::resources::network_profile::NetworkProfile::primary_nic_id`].
#[derive(Debug, Default, Deserialize)]
#[serde(from = "NicReferences")]
pub(super) struct PrimaryNic(pub Option<String>);

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct NicReferences {
    network_interfaces: Option<Vec<NicReference>>,
}

impl From<NicReferences> for PrimaryNic {
    fn from(refs: NicReferences) -> PrimaryNic {
        let nics = refs.network_interfaces.unwrap_or_default();
        let flagged =
            |n: &NicReference| n.properties.as_ref().and_then(|p| p.primary) == Some(true);
        PrimaryNic(only_or_flagged(&nics, flagged).and_then(|n| n.id.clone()))
    }
}

#[derive(Debug, Deserialize)]
struct StatusCode {
    code: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ListedInstanceView {
    platform_fault_domain: Option<i64>,
    statuses: Option<Vec<StatusCode>>,
}

/// `instanceView` reduced to what the readers use: the fault domain and the power state
/// ([`power_state_of`] its statuses, without the `PowerState/` prefix).
#[derive(Debug, Default, Deserialize)]
#[serde(from = "ListedInstanceView")]
pub(super) struct ViewFacts {
    pub fault_domain: Option<i64>,
    pub power_state: Option<String>,
}

impl From<ListedInstanceView> for ViewFacts {
    fn from(view: ListedInstanceView) -> ViewFacts {
        let statuses = view.statuses.unwrap_or_default();
        let codes = statuses.iter().filter_map(|s| s.code.as_deref());
        ViewFacts {
            fault_domain: view.platform_fault_domain,
            power_state: power_state_of(codes).map(str::to_string),
        }
    }
}
