//! Zones (`cloudprovider.Zones`) over ARM, and the region's zone list from the Compute provider
//! metadata (`resourceTypes[virtualMachines].zoneMappings`), refreshed every 30 minutes and
//! disabled (empty) on Azure Stack, as upstream does (anchor-ccm.md §3.7).
//!
//! Deliberate: upstream refreshes the list from a background ticker; we re-read it lazily on the
//! first request after 30 minutes (a cached read with that TTL), so an idle provider costs nothing.
//!
//! [infer] `get_zone` (the local machine) needs IMDS, which the CCM's ARM-only provider does not
//! hold: it answers `NotImplemented`; the node-local path is [`crate::imds`].

use ccm_cloud::{CloudError, Zone, Zones};

use crate::arm::api_versions::CloudFlavor;
use crate::arm::resource_id::ProviderId;
use crate::cache::ReadMode;
use crate::instances::{AzureInstances, InstanceError};
use crate::provider::AzureError;

/// Zone lookups for nodes, sharing the instances' cached reads.
#[derive(Debug, Clone)]
pub struct AzureZones {
    instances: AzureInstances,
    location: String,
}

impl AzureZones {
    /// Over `instances`' reads, in `location` (the config's region).
    pub fn new(instances: AzureInstances, location: &str) -> AzureZones {
        AzureZones {
            instances,
            location: location.to_lowercase(),
        }
    }

    /// Zones of the cluster's region (`["1","2","3"]`, empty when the region has none).
    pub async fn region_zones(&self) -> Result<Vec<String>, InstanceError> {
        if self.instances.reads().flavor() == CloudFlavor::AzureStack {
            return Ok(Vec::new());
        }
        let provider = self.instances.reads().compute_provider().await?;
        Ok(provider.vm_zones(&self.location))
    }
}

impl Zones for AzureZones {
    type Error = AzureError;

    async fn get_zone(&self) -> Result<Zone, CloudError<AzureError>> {
        Err(CloudError::NotImplemented {
            operation: "Zones::get_zone",
        })
    }

    async fn get_zone_by_provider_id(
        &self,
        provider_id: &str,
    ) -> Result<Zone, CloudError<AzureError>> {
        let result = async {
            let id: ProviderId = provider_id.parse()?;
            self.instances
                .by_provider_id(&id, provider_id, ReadMode::Default)
                .await
        };
        let machine = result.await.map_err(InstanceError::into_cloud)?;
        Ok(Zone {
            failure_domain: machine.zone,
            region: machine.region,
        })
    }

    async fn get_zone_by_node_name(&self, node_name: &str) -> Result<Zone, CloudError<AzureError>> {
        let machine = self
            .instances
            .resolve(&self.instances.named(node_name), ReadMode::Default)
            .await
            .map_err(InstanceError::into_cloud)?;
        Ok(Zone {
            failure_domain: machine.zone,
            region: machine.region,
        })
    }
}
