//! [`AzureProvider`]: azure.json → cloud endpoints + credential + ARM client + caches, exposed
//! through `ccm_cloud::Provider` with node metadata ([`crate::instances`]), zones
//! ([`crate::zones`]), Service load balancers ([`crate::loadbalancer`]) and pod CIDR routes
//! ([`crate::routes`]).

mod error;

use std::sync::Arc;

use ccm_cloud::Provider;

pub use error::AzureError;

use crate::arm::api_versions::CloudFlavor;
use crate::arm::{ArmClient, ArmClientOptions, ArmError};
use crate::cloud::CloudError as CloudSetupError;
use crate::config::{Cloud, Config};
use crate::credential::{CredentialError, CredentialOptions, Credentials};
use crate::instances::{AzureInstances, NodeReads};
use crate::loadbalancer::network_io::NetworkIo;
use crate::loadbalancer::pools::PoolMembership;
use crate::loadbalancer::{AzureLoadBalancer, LbReconciler};
use crate::metrics::ArmMetrics;
use crate::routes::AzureRoutes;
use crate::zones::AzureZones;

/// What the binaries decide besides azure.json.
#[derive(Clone)]
pub struct ProviderOptions {
    /// Credential options (HTTPS client with the trust roots, IMDS override).
    pub credentials: CredentialOptions,
    /// Metrics the ARM client feeds (registered by the binary).
    pub metrics: ArmMetrics,
}

impl std::fmt::Debug for ProviderOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderOptions")
            .field("credentials", &self.credentials)
            .finish_non_exhaustive()
    }
}

/// Why the provider could not be built.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// Cloud endpoints or credential.
    #[error(transparent)]
    Credential(#[from] CredentialError),
    /// The ARM client options.
    #[error(transparent)]
    Arm(#[from] ArmError),
    /// Cloud endpoint resolution.
    #[error(transparent)]
    Cloud(#[from] CloudSetupError),
}

/// The Azure provider of the CCM.
#[derive(Debug, Clone)]
pub struct AzureProvider {
    instances: AzureInstances,
    zones: AzureZones,
    load_balancer: AzureLoadBalancer,
    routes: AzureRoutes,
}

impl AzureProvider {
    /// Resolves the cloud, builds the credential and ARM client from `config`, and the caches.
    pub async fn new(
        config: &Config,
        options: ProviderOptions,
    ) -> Result<AzureProvider, BuildError> {
        let credentials = Credentials::from_config(&config.identity, &options.credentials).await?;
        let mut arm_options = ArmClientOptions::from_config(
            config,
            credentials.cloud.resource_manager.clone(),
            credentials.arm_scope(),
        )?;
        if let Some(network) = &credentials.network {
            arm_options.auxiliary.push(Arc::clone(&network.auxiliary));
        }
        let arm = ArmClient::new(
            arm_options,
            Arc::clone(&credentials.credential),
            options.credentials.http.clone(),
            options.metrics,
        );
        Ok(AzureProvider::with_arm(config, arm))
    }

    /// The provider over an already built ARM client (tests and benches tune its retries).
    pub fn with_arm(config: &Config, arm: ArmClient) -> AzureProvider {
        let identity = &config.identity;
        let flavor = if identity.cloud == Cloud::Stack && !identity.disable_azure_stack_cloud {
            CloudFlavor::AzureStack
        } else {
            CloudFlavor::Public
        };
        let network = NetworkIo::new(arm.clone(), flavor);
        let reads = Arc::new(NodeReads::new(
            arm.clone(),
            &identity.subscription_id,
            flavor,
            &config.cache,
        ));
        let cluster = &config.cluster;
        let instances = AzureInstances::new(
            reads,
            &cluster.resource_group,
            cluster.vm_type,
            cluster.node_instance_not_found_grace_period,
        );
        let zones = AzureZones::new(instances.clone(), &cluster.location);
        let pools = PoolMembership::new(instances.clone(), config);
        let load_balancer = AzureLoadBalancer::new(LbReconciler::new(
            network,
            Arc::new(config.clone()),
            zones.clone(),
            pools,
        ));
        let routes = AzureRoutes::new(config, arm, flavor, instances.clone());
        AzureProvider {
            instances,
            zones,
            load_balancer,
            routes,
        }
    }

    /// Service load balancers (also reachable through [`Provider::load_balancer`]).
    pub fn load_balancers(&self) -> &AzureLoadBalancer {
        &self.load_balancer
    }

    /// Node metadata (also reachable through [`Provider::instances_v2`]).
    pub fn instances(&self) -> &AzureInstances {
        &self.instances
    }

    /// Pod CIDR routes (also reachable through [`Provider::routes`]); feed it node events.
    pub fn azure_routes(&self) -> &AzureRoutes {
        &self.routes
    }
}

impl Provider for AzureProvider {
    type Error = AzureError;
    type Instances = AzureInstances;
    type Zones = AzureZones;
    type LoadBalancer = AzureLoadBalancer;
    type Routes = AzureRoutes;

    fn provider_name(&self) -> &'static str {
        "azure"
    }

    fn instances_v2(&self) -> Option<&AzureInstances> {
        Some(&self.instances)
    }

    fn zones(&self) -> Option<&AzureZones> {
        Some(&self.zones)
    }

    fn load_balancer(&self) -> Option<&AzureLoadBalancer> {
        Some(&self.load_balancer)
    }

    fn routes(&self) -> Option<&AzureRoutes> {
        Some(&self.routes)
    }
}
