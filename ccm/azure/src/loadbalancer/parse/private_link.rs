//! `azure-pls-*`: Private Link Service is not implemented yet, so `azure-pls-create=true` is
//! refused and the other values are only validated (so a typo is reported now, not later).

use std::net::IpAddr;

use ccm_names::service_annotations as sa;

use super::annotations::Annotations;
use super::error::ServiceConfigError;

/// Feature named in the `NotSupported` error.
const FEATURE: &str = "a Private Link Service";

/// Validates every `azure-pls-*` annotation; refuses `azure-pls-create=true`.
pub(super) fn check(a: &Annotations<'_>) -> Result<(), ServiceConfigError> {
    if let Some(slot) = a.get(sa::PLS_CREATE)
        && slot.bool()?
    {
        return Err(ServiceConfigError::NotSupported {
            key: slot.key.to_string(),
            value: slot.value.to_string(),
            feature: FEATURE,
        });
    }
    if let Some(slot) = a.get(sa::PLS_IP_CONFIGURATION_IP_ADDRESS_COUNT) {
        slot.integer()?;
    }
    if let Some(slot) = a.get(sa::PLS_IP_CONFIGURATION_IP_ADDRESS)
        && slot
            .space_items()
            .iter()
            .any(|ip| ip.parse::<IpAddr>().is_err())
    {
        return Err(slot.invalid());
    }
    a.flag(sa::PLS_PROXY_PROTOCOL)?;
    // Free text or lists of names: nothing to validate, read so the table stays honest.
    for key in [
        sa::PLS_NAME,
        sa::PLS_RESOURCE_GROUP,
        sa::PLS_IP_CONFIGURATION_SUBNET,
        sa::PLS_FQDNS,
        sa::PLS_VISIBILITY,
        sa::PLS_AUTO_APPROVAL,
    ] {
        a.get(key);
    }
    Ok(())
}
