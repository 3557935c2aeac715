//! The ARM calls of a Service reconcile: one list of the LB resource group's load balancers, one
//! list of the PIP resource group's public IPs, the NSG read, and the writes with `If-Match`.
//! No caching here on purpose: every reconcile plans from fresh documents and their ETags.

use crate::arm::api_versions::{CloudFlavor, ResourceType};
use crate::arm::calls::Target;
use crate::arm::client_kind::ClientKind;
use crate::arm::resources::load_balancer::LoadBalancer;
use crate::arm::resources::public_ip_address::PublicIpAddress;
use crate::arm::resources::security_group::NetworkSecurityGroup;
use crate::arm::{ArmClient, ArmError};

use super::settings::LbSettings;

/// ARM reads and writes of LBs, PIPs and the NSG.
#[derive(Clone)]
pub struct NetworkIo {
    arm: ArmClient,
    flavor: CloudFlavor,
}

impl std::fmt::Debug for NetworkIo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NetworkIo")
            .field("flavor", &self.flavor)
            .finish_non_exhaustive()
    }
}

impl NetworkIo {
    /// Over `arm`, with the api-versions of `flavor`.
    pub fn new(arm: ArmClient, flavor: CloudFlavor) -> NetworkIo {
        NetworkIo { arm, flavor }
    }

    fn version(&self, kind: ResourceType) -> &'static str {
        kind.api_version(self.flavor)
    }

    /// Every load balancer of the LB resource group (both the public and the internal one).
    pub async fn list_load_balancers(
        &self,
        settings: &LbSettings,
    ) -> Result<Vec<LoadBalancer>, ArmError> {
        let path = settings.collection_path(&settings.lb_resource_group, "loadBalancers");
        self.arm
            .list(Target::new(
                ClientKind::LoadBalancer,
                &path,
                self.version(ResourceType::LoadBalancers),
            ))
            .await
    }

    /// PUT a load balancer (If-Match its read ETag when it existed).
    pub async fn put_load_balancer(
        &self,
        settings: &LbSettings,
        lb: &LoadBalancer,
    ) -> Result<LoadBalancer, ArmError> {
        let path = settings.lb_id(lb.name.as_deref().unwrap_or_default());
        self.arm
            .put(
                Target::new(
                    ClientKind::LoadBalancer,
                    &path,
                    self.version(ResourceType::LoadBalancers),
                ),
                lb,
                lb.etag.as_deref(),
            )
            .await
    }

    /// DELETE a load balancer (gone already is success).
    pub async fn delete_load_balancer(
        &self,
        settings: &LbSettings,
        lb: &LoadBalancer,
    ) -> Result<(), ArmError> {
        let path = settings.lb_id(lb.name.as_deref().unwrap_or_default());
        self.arm
            .delete(
                Target::new(
                    ClientKind::LoadBalancer,
                    &path,
                    self.version(ResourceType::LoadBalancers),
                ),
                lb.etag.as_deref(),
            )
            .await
    }

    /// Every public IP of `resource_group`.
    pub async fn list_public_ips(
        &self,
        settings: &LbSettings,
        resource_group: &str,
    ) -> Result<Vec<PublicIpAddress>, ArmError> {
        let path = settings.collection_path(resource_group, "publicIPAddresses");
        self.arm
            .list(Target::new(
                ClientKind::PublicIpAddress,
                &path,
                self.version(ResourceType::PublicIpAddresses),
            ))
            .await
    }

    /// PUT a public IP into `resource_group`.
    pub async fn put_public_ip(
        &self,
        settings: &LbSettings,
        resource_group: &str,
        pip: &PublicIpAddress,
    ) -> Result<PublicIpAddress, ArmError> {
        let path = settings.network_id(
            resource_group,
            "publicIPAddresses",
            pip.name.as_deref().unwrap_or_default(),
        );
        self.arm
            .put(
                Target::new(
                    ClientKind::PublicIpAddress,
                    &path,
                    self.version(ResourceType::PublicIpAddresses),
                ),
                pip,
                pip.etag.as_deref(),
            )
            .await
    }

    /// DELETE a public IP of `resource_group`.
    pub async fn delete_public_ip(
        &self,
        settings: &LbSettings,
        resource_group: &str,
        pip: &PublicIpAddress,
    ) -> Result<(), ArmError> {
        let path = settings.network_id(
            resource_group,
            "publicIPAddresses",
            pip.name.as_deref().unwrap_or_default(),
        );
        self.arm
            .delete(
                Target::new(
                    ClientKind::PublicIpAddress,
                    &path,
                    self.version(ResourceType::PublicIpAddresses),
                ),
                None,
            )
            .await
    }

    /// The cluster NSG; `None` when it does not exist or none is configured (nothing to secure).
    pub async fn get_security_group(
        &self,
        settings: &LbSettings,
    ) -> Result<Option<NetworkSecurityGroup>, ArmError> {
        if settings.security_group.is_empty() {
            tracing::warn!(
                "securityGroupName is not configured: Service NSG rules are not managed"
            );
            return Ok(None);
        }
        let path = settings.nsg_path();
        match self
            .arm
            .get(Target::new(
                ClientKind::SecurityGroup,
                &path,
                self.version(ResourceType::NetworkSecurityGroups),
            ))
            .await
        {
            Ok(nsg) => Ok(Some(nsg)),
            Err(e) if e.is_not_found() => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// PUT the cluster NSG with If-Match.
    pub async fn put_security_group(
        &self,
        settings: &LbSettings,
        nsg: &NetworkSecurityGroup,
    ) -> Result<NetworkSecurityGroup, ArmError> {
        let path = settings.nsg_path();
        self.arm
            .put(
                Target::new(
                    ClientKind::SecurityGroup,
                    &path,
                    self.version(ResourceType::NetworkSecurityGroups),
                ),
                nsg,
                nsg.etag.as_deref(),
            )
            .await
    }
}
