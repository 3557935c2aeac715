//! Zone and region of the local VM (upstream `GetZone` on the IMDS path): `<location>-<zone>`
//! for zonal VMs (zone parsed as an integer, so `01` reads 1), else the platform fault domain;
//! both values and the region lower-cased.

use ccm_cloud::Zone;

use super::ImdsError;
use super::document::Compute;

/// The failure domain and region.
pub fn zone(compute: &Compute) -> Result<Zone, ImdsError> {
    let failure_domain = if compute.zone.is_empty() {
        compute.platform_fault_domain.clone()
    } else {
        let id: i64 = compute.zone.parse().map_err(|_| ImdsError::InvalidZone {
            zone: compute.zone.clone(),
        })?;
        format!("{}-{id}", compute.location.to_lowercase())
    };
    Ok(Zone {
        failure_domain: failure_domain.to_lowercase(),
        region: region(compute),
    })
}

/// The region label value: the location, lower-cased.
pub fn region(compute: &Compute) -> String {
    compute.location.to_lowercase()
}
