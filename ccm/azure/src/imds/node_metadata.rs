//! Everything the node controllers need about the local VM, derived from one instance document:
//! providerID, instance type (`vmSize`), addresses, zone and region.

use ccm_cloud::InstanceMetadata as CloudInstanceMetadata;

use super::ImdsError;
use super::addresses::node_addresses;
use super::document::InstanceMetadata;
use super::provider_id::provider_id;
use super::zone::zone;

/// The local node's metadata from a (public-IP-filled) instance document.
pub fn local_node_metadata(
    doc: &InstanceMetadata,
    node_name: &str,
) -> Result<CloudInstanceMetadata, ImdsError> {
    let compute = doc
        .compute
        .as_ref()
        .ok_or(ImdsError::Missing("compute section"))?;
    let network = doc
        .network
        .as_ref()
        .ok_or(ImdsError::Missing("network section"))?;
    if compute.vm_size.is_empty() {
        return Err(ImdsError::Missing("compute.vmSize"));
    }
    let zone = zone(compute)?;
    Ok(CloudInstanceMetadata {
        provider_id: provider_id(compute)?,
        instance_type: compute.vm_size.clone(),
        node_addresses: node_addresses(network, node_name)?,
        zone: zone.failure_domain,
        region: zone.region,
        additional_labels: Default::default(),
    })
}
