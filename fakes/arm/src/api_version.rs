//! api-version checking: every request must carry one, and it must be a version the provider registers
//! for the type, else ARM answers 400 before the RP sees the request.

use crate::error::ArmError;
use crate::error_codes;
use crate::kinds::{Kind, KindId, Provider};

/// Versions `Microsoft.Resources` accepts for resource groups.
const RESOURCES: &[&str] = &[
    "2014-04-01",
    "2015-01-01",
    "2015-11-01",
    "2016-02-01",
    "2016-07-01",
    "2016-09-01",
    "2017-05-10",
    "2018-02-01",
    "2018-05-01",
    "2019-03-01",
    "2019-05-01",
    "2019-05-10",
    "2019-07-01",
    "2019-08-01",
    "2019-10-01",
    "2020-06-01",
    "2020-08-01",
    "2020-10-01",
    "2021-01-01",
    "2021-04-01",
    "2022-09-01",
    "2023-07-01",
    "2024-03-01",
    "2024-07-01",
    "2024-11-01",
    "2025-03-01",
    "2025-04-01",
];

/// Versions NRP registers for the network types the CCM uses.
const NETWORK: &[&str] = &[
    "2015-06-15",
    "2016-03-30",
    "2016-06-01",
    "2016-09-01",
    "2016-12-01",
    "2017-03-01",
    "2017-06-01",
    "2017-08-01",
    "2017-09-01",
    "2017-10-01",
    "2017-11-01",
    "2018-01-01",
    "2018-02-01",
    "2018-04-01",
    "2018-06-01",
    "2018-07-01",
    "2018-08-01",
    "2018-10-01",
    "2018-11-01",
    "2018-12-01",
    "2019-02-01",
    "2019-04-01",
    "2019-06-01",
    "2019-07-01",
    "2019-08-01",
    "2019-09-01",
    "2019-11-01",
    "2019-12-01",
    "2020-03-01",
    "2020-04-01",
    "2020-05-01",
    "2020-06-01",
    "2020-07-01",
    "2020-08-01",
    "2020-11-01",
    "2021-02-01",
    "2021-03-01",
    "2021-05-01",
    "2021-08-01",
    "2022-01-01",
    "2022-05-01",
    "2022-07-01",
    "2022-09-01",
    "2022-11-01",
    "2023-02-01",
    "2023-04-01",
    "2023-05-01",
    "2023-06-01",
    "2023-09-01",
    "2023-11-01",
    "2024-01-01",
    "2024-03-01",
    "2024-05-01",
    "2024-07-01",
    "2024-10-01",
    "2025-01-01",
    "2025-03-01",
    "2025-05-01",
];

/// Versions CRP registers for VMs, scale sets, scale-set VMs and availability sets.
const COMPUTE: &[&str] = &[
    "2015-06-15",
    "2016-03-30",
    "2016-04-30-preview",
    "2017-03-30",
    "2017-12-01",
    "2018-04-01",
    "2018-06-01",
    "2018-10-01",
    "2019-03-01",
    "2019-07-01",
    "2019-12-01",
    "2020-06-01",
    "2020-12-01",
    "2021-03-01",
    "2021-04-01",
    "2021-07-01",
    "2021-11-01",
    "2022-03-01",
    "2022-08-01",
    "2022-11-01",
    "2023-03-01",
    "2023-07-01",
    "2023-09-01",
    "2024-03-01",
    "2024-07-01",
    "2024-11-01",
    "2025-04-01",
];

/// The VMSS-instance NIC/PIP views are only registered up to 2018-10-01 (the Go SDK pins that version).
const VMSS_NETWORK: &[&str] = &[
    "2015-06-15",
    "2016-03-30",
    "2017-03-30",
    "2017-12-01",
    "2018-04-01",
    "2018-06-01",
    "2018-10-01",
];

/// Regions named in `NoRegisteredProviderFound` messages.
const LOCATIONS: &str = "eastus, eastus2, westus, westus2, westus3, centralus, northcentralus, southcentralus, westcentralus, northeurope, westeurope, uksouth, southeastasia, eastasia, japaneast, australiaeast";

/// Versions accepted for a kind.
pub fn supported(kind: &Kind) -> &'static [&'static str] {
    if kind.types[0] == "virtualMachineScaleSets" && kind.provider == Provider::Network {
        return VMSS_NETWORK;
    }
    match kind.provider {
        Provider::Resources => RESOURCES,
        Provider::Network => NETWORK,
        Provider::Compute => COMPUTE,
    }
}

/// Versions accepted by an operation-status URL of a provider.
pub fn supported_for_provider(provider: Provider) -> &'static [&'static str] {
    match provider {
        Provider::Resources => RESOURCES,
        Provider::Network => NETWORK,
        Provider::Compute => COMPUTE,
    }
}

fn well_formed(v: &str) -> bool {
    let date = v.strip_suffix("-preview").unwrap_or(v);
    let b = date.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

/// Validates the `api-version` of a request for `kind` (with the resource's location for the message).
pub fn check(api_version: Option<&str>, kind: &Kind, location: &str) -> Result<(), ArmError> {
    let versions = supported(kind);
    let Some(v) = api_version.filter(|v| !v.is_empty()) else {
        return Err(missing());
    };
    if versions.contains(&v) {
        return Ok(());
    }
    if !well_formed(v) || kind.id == KindId::ResourceGroup {
        return Err(invalid(v, versions));
    }
    let type_name = kind.types.join("/");
    Err(ArmError::new(
        error_codes::NO_REGISTERED_PROVIDER_FOUND,
        format!(
            "No registered resource provider found for location '{location}' and API version '{v}' for type '{type_name}'. The supported api-versions are '{}'. The supported locations are '{LOCATIONS}'.",
            versions.join(", ")
        ),
    ))
}

/// Validates the `api-version` of an operation-status poll.
pub fn check_provider(api_version: Option<&str>, provider: Provider) -> Result<(), ArmError> {
    let versions = supported_for_provider(provider);
    match api_version.filter(|v| !v.is_empty()) {
        None => Err(missing()),
        Some(v) if versions.contains(&v) || VMSS_NETWORK.contains(&v) => Ok(()),
        Some(v) => Err(invalid(v, versions)),
    }
}

/// 400 `MissingApiVersionParameter`.
pub fn missing() -> ArmError {
    ArmError::new(
        error_codes::MISSING_API_VERSION_PARAMETER,
        "The api-version query parameter (?api-version=) is required for all requests.",
    )
}

fn invalid(v: &str, versions: &[&str]) -> ArmError {
    ArmError::new(
        error_codes::INVALID_API_VERSION_PARAMETER,
        format!(
            "The api-version '{v}' is invalid. The supported versions are '{}'. Please use one of the supported versions.",
            versions.join(",")
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinds::{KindId, by_id};

    #[test]
    fn ccm_versions_are_accepted() {
        assert!(check(Some("2025-05-01"), by_id(KindId::LoadBalancer), "eastus").is_ok());
        assert!(check(Some("2025-04-01"), by_id(KindId::Vm), "eastus").is_ok());
        assert!(check(Some("2021-04-01"), by_id(KindId::ResourceGroup), "eastus").is_ok());
        assert!(check(Some("2018-10-01"), by_id(KindId::VmssNic), "eastus").is_ok());
    }

    #[test]
    fn bad_versions_get_the_arm_codes() {
        assert_eq!(
            check(None, by_id(KindId::Nic), "eastus")
                .unwrap_err()
                .code(),
            "MissingApiVersionParameter"
        );
        assert_eq!(
            check(Some("2099-01-01"), by_id(KindId::Nic), "eastus")
                .unwrap_err()
                .code(),
            "NoRegisteredProviderFound"
        );
        assert_eq!(
            check(Some("banana"), by_id(KindId::Nic), "eastus")
                .unwrap_err()
                .code(),
            "InvalidApiVersionParameter"
        );
        assert_eq!(
            check(Some("2025-05-01"), by_id(KindId::VmssNic), "eastus")
                .unwrap_err()
                .code(),
            "NoRegisteredProviderFound"
        );
    }
}
