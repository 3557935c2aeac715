//! The resolved configuration: every azure.json key typed and defaulted, grouped by concern.
//! `Debug` is derived but safe (secrets are [`SecretString`]); `Display` is a short redacted summary.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use super::enums::{
    BackendPoolType, Cloud, CloudConfigType, IdentitySystem, LoadBalancerSku, PreconfiguredPools,
    ProbeMode, VmType,
};
use super::secret::SecretString;

/// The CCM's configuration after parsing, environment overrides, defaults and validation.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Cloud, tenant, subscription and credentials.
    pub identity: Identity,
    /// Where the cluster's resources live.
    pub cluster: Cluster,
    /// Service load balancer settings.
    pub load_balancer: LoadBalancerSettings,
    /// Route controller batching.
    pub routes: RouteSettings,
    /// Cache TTLs (anchor-ccm.md §7.1).
    pub cache: CacheSettings,
    /// Retry backoff for the provider's own retries.
    pub backoff: Backoff,
    /// Client-side rate limits: the defaults and each ARM client's.
    pub rate_limits: RateLimits,
    /// `cloudConfigType` and `disableCloudProvider`.
    pub source: SourceSettings,
}

/// Cloud, tenant, subscription and credential settings.
#[derive(Debug, Clone, PartialEq)]
pub struct Identity {
    /// `cloud`.
    pub cloud: Cloud,
    /// `resourceManagerEndpoint`: when set, endpoints are discovered from its metadata document.
    pub resource_manager_endpoint: Option<String>,
    /// `AZURE_ENVIRONMENT_FILEPATH` (custom endpoints for `AzureStackCloud`).
    pub environment_file_path: Option<String>,
    /// `tenantId` (or `AZURE_TENANT_ID`).
    pub tenant_id: String,
    /// `subscriptionId`.
    pub subscription_id: String,
    /// `networkResourceTenantID`, `None` when network resources share the main tenant.
    pub network_resource_tenant_id: Option<String>,
    /// `networkResourceSubscriptionID`, `None` when network resources share the main subscription.
    pub network_resource_subscription_id: Option<String>,
    /// `identitySystem`.
    pub identity_system: IdentitySystem,
    /// `aadClientId` (or `AZURE_CLIENT_ID`).
    pub aad_client_id: String,
    /// `aadClientSecret` (or `AZURE_CLIENT_SECRET`).
    pub aad_client_secret: SecretString,
    /// `aadClientCertPath`.
    pub aad_client_cert_path: Option<String>,
    /// `aadClientCertPassword`.
    pub aad_client_cert_password: SecretString,
    /// `useManagedIdentityExtension`.
    pub use_managed_identity_extension: bool,
    /// `userAssignedIdentityID`: client ID, or ARM resource ID when it contains `/subscriptions/`.
    pub user_assigned_identity_id: Option<String>,
    /// `aadFederatedTokenFile` (or `AZURE_FEDERATED_TOKEN_FILE`).
    pub aad_federated_token_file: Option<String>,
    /// `useFederatedWorkloadIdentityExtension` (forced on by `AZURE_FEDERATED_TOKEN_FILE`).
    pub use_federated_workload_identity_extension: bool,
    /// `userAgent`; `None` means the CCM's own.
    pub user_agent: Option<String>,
    /// `disableAzureStackCloud`.
    pub disable_azure_stack_cloud: bool,
    /// `enableMinimumRetryAfter`.
    pub enable_minimum_retry_after: bool,
}

/// The credential kinds, in upstream's precedence (anchor-ccm.md §6.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CredentialKind {
    /// Federated token file (workload identity).
    WorkloadIdentity,
    /// IMDS managed identity (system- or user-assigned).
    ManagedIdentity,
    /// Service principal with a client secret.
    ClientSecret,
    /// Service principal with a certificate.
    ClientCertificate,
}

impl Identity {
    /// The credential upstream would pick (first match wins, as `GetServicePrincipalToken`
    /// checks: the workload-identity switch, the MSI switch, a non-empty secret, a non-empty
    /// certificate path), `None` when nothing is configured.
    pub fn credential_kind(&self) -> Option<CredentialKind> {
        if self.use_federated_workload_identity_extension {
            Some(CredentialKind::WorkloadIdentity)
        } else if self.use_managed_identity_extension {
            Some(CredentialKind::ManagedIdentity)
        } else if !self.aad_client_secret.is_empty() {
            Some(CredentialKind::ClientSecret)
        } else if self.aad_client_cert_path.is_some() {
            Some(CredentialKind::ClientCertificate)
        } else {
            None
        }
    }
}

/// Where the cluster's resources live and how nodes map to VMs.
#[derive(Debug, Clone, PartialEq)]
pub struct Cluster {
    /// `resourceGroup`, lower-cased as upstream does on parse.
    pub resource_group: String,
    /// `location`.
    pub location: String,
    /// `vnetName`.
    pub vnet_name: String,
    /// `vnetResourceGroup`, defaulting to `resourceGroup`.
    pub vnet_resource_group: String,
    /// `subnetName`.
    pub subnet_name: String,
    /// `securityGroupName`.
    pub security_group_name: String,
    /// `securityGroupResourceGroup`, defaulting to `resourceGroup`.
    pub security_group_resource_group: String,
    /// `routeTableName`.
    pub route_table_name: String,
    /// `routeTableResourceGroup`, defaulting to `resourceGroup`.
    pub route_table_resource_group: String,
    /// `vmType`.
    pub vm_type: VmType,
    /// `primaryAvailabilitySetName`.
    pub primary_availability_set_name: String,
    /// `primaryScaleSetName`.
    pub primary_scale_set_name: String,
    /// `disableAvailabilitySetNodes`.
    pub disable_availability_set_nodes: bool,
    /// `enableVmssFlexNodes`.
    pub enable_vmss_flex_nodes: bool,
    /// `useInstanceMetadata`.
    pub use_instance_metadata: bool,
    /// `tags` (`a=b,c=d`) merged with `tagsMap`.
    pub tags: BTreeMap<String, String>,
    /// `systemTags`: tag key prefixes never removed.
    pub system_tags: Vec<String>,
    /// `nodeInstanceNotFoundGracePeriodInSeconds`.
    pub node_instance_not_found_grace_period: Duration,
    /// `putVMSSVMBatchSize` (0 = sequential).
    pub put_vmss_vm_batch_size: u32,
}

/// Service load balancer settings.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadBalancerSettings {
    /// `loadBalancerSku`.
    pub sku: LoadBalancerSku,
    /// `loadBalancerName`; `None` means the cluster name.
    pub name: Option<String>,
    /// `loadBalancerResourceGroup`, defaulting to `resourceGroup`.
    pub resource_group: String,
    /// `excludeMasterFromStandardLB`.
    pub exclude_master_from_standard_lb: bool,
    /// `disableOutboundSNAT`.
    pub disable_outbound_snat: bool,
    /// `maximumLoadBalancerRuleCount`.
    pub maximum_rule_count: u32,
    /// `loadBalancerBackendPoolConfigurationType`.
    pub backend_pool_type: BackendPoolType,
    /// `preConfiguredBackendPoolLoadBalancerTypes`; `None` means we manage every pool.
    pub preconfigured_backend_pools: Option<PreconfiguredPools>,
    /// `loadBalancerBackendPoolUpdateIntervalInSeconds`.
    pub backend_pool_update_interval: Duration,
    /// `clusterServiceLoadBalancerHealthProbeMode`.
    pub health_probe_mode: ProbeMode,
    /// `clusterServiceSharedLoadBalancerHealthProbePort`.
    pub shared_probe_port: u16,
    /// `clusterServiceSharedLoadBalancerHealthProbePath`.
    pub shared_probe_path: String,
    /// `privateLinkServiceResourceGroup`, defaulting to `resourceGroup`.
    pub private_link_service_resource_group: String,
    /// `enableIPTagMutationForExistingPublicIP`.
    pub enable_ip_tag_mutation_for_existing_public_ip: bool,
    /// Not an azure.json key: in-tree provider behaviours the harness's stand-in in-tree
    /// kube-controller-manager reproduces (always the default, today's CCM, when loaded).
    pub in_tree: super::in_tree::InTreeCompat,
}

/// Route controller batching.
#[derive(Debug, Clone, PartialEq)]
pub struct RouteSettings {
    /// `routeUpdateIntervalInSeconds`.
    pub update_interval: Duration,
    /// `routeUpdateWaitingInSeconds`.
    pub update_waiting: Duration,
}

/// Cache TTLs (anchor-ccm.md §7.1).
#[derive(Debug, Clone, PartialEq)]
pub struct CacheSettings {
    /// `vmCacheTTLInSeconds`.
    pub vm: Duration,
    /// `loadBalancerCacheTTLInSeconds`.
    pub load_balancer: Duration,
    /// `publicIPCacheTTLInSeconds`.
    pub public_ip: Duration,
    /// `nsgCacheTTLInSeconds`.
    pub nsg: Duration,
    /// `routeTableCacheTTLInSeconds`.
    pub route_table: Duration,
    /// `plsCacheTTLInSeconds`.
    pub private_link_service: Duration,
    /// `availabilitySetsCacheTTLInSeconds`.
    pub availability_sets: Duration,
    /// `vmssCacheTTLInSeconds`.
    pub vmss: Duration,
    /// `vmssVirtualMachinesCacheTTLInSeconds`.
    pub vmss_virtual_machines: Duration,
    /// `vmssFlexCacheTTLInSeconds`.
    pub vmss_flex: Duration,
    /// `vmssFlexVMCacheTTLInSeconds`.
    pub vmss_flex_vm: Duration,
    /// `nonVmssUniformNodesCacheTTLInSeconds`.
    pub non_vmss_uniform_nodes: Duration,
    /// `disableAPICallCache`.
    pub disable_api_call_cache: bool,
    /// `listVmssVirtualMachinesWithoutInstanceView`.
    pub list_vmss_virtual_machines_without_instance_view: bool,
    /// `vmssVirtualMachineCacheInstanceView`.
    pub vmss_virtual_machine_cache_instance_view: bool,
}

/// `cloudProviderBackoff*`: the provider's own retry schedule.
#[derive(Debug, Clone, PartialEq)]
pub struct Backoff {
    /// `cloudProviderBackoff`.
    pub enabled: bool,
    /// Attempts (`cloudProviderBackoffRetries`; forced to 1 when backoff is off).
    pub retries: u32,
    /// `cloudProviderBackoffExponent`.
    pub exponent: f64,
    /// `cloudProviderBackoffDuration`.
    pub duration: Duration,
    /// `cloudProviderBackoffJitter`.
    pub jitter: f64,
}

/// One client's token-bucket limits, read and write.
#[derive(Debug, Clone, PartialEq)]
pub struct RateLimit {
    /// Whether the limiter applies.
    pub enabled: bool,
    /// Read QPS.
    pub qps: f32,
    /// Read bucket size.
    pub bucket: u32,
    /// Write QPS.
    pub qps_write: f32,
    /// Write bucket size.
    pub bucket_write: u32,
}

/// Client-side rate limits: the defaults and each ARM client's resolved limits.
#[derive(Debug, Clone, PartialEq)]
pub struct RateLimits {
    /// The top-level `cloudProviderRateLimit*` keys, defaulted.
    pub default: RateLimit,
    /// Each per-client override key (e.g. `loadBalancerRateLimit`) and its resolved limits.
    pub per_client: BTreeMap<&'static str, RateLimit>,
}

/// How the document was sourced.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceSettings {
    /// `cloudConfigType`.
    pub cloud_config_type: CloudConfigType,
    /// `disableCloudProvider`: keep every controller stopped.
    pub disable_cloud_provider: bool,
}

impl fmt::Display for Config {
    /// A one-line summary for the startup log; secrets only appear as whether they are set.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let id = &self.identity;
        let credential = match id.credential_kind() {
            Some(CredentialKind::WorkloadIdentity) => "workload identity",
            Some(CredentialKind::ManagedIdentity) => "managed identity",
            Some(CredentialKind::ClientSecret) => "client secret",
            Some(CredentialKind::ClientCertificate) => "client certificate",
            None => "none",
        };
        write!(
            f,
            "cloud={} tenant={} subscription={} resourceGroup={} location={} vmType={} \
             loadBalancerSku={} backendPool={} credential={} aadClientId={} aadClientSecret={} \
             aadClientCertPassword={}",
            id.cloud,
            id.tenant_id,
            id.subscription_id,
            self.cluster.resource_group,
            self.cluster.location,
            self.cluster.vm_type,
            self.load_balancer.sku,
            self.load_balancer.backend_pool_type,
            credential,
            id.aad_client_id,
            id.aad_client_secret,
            id.aad_client_cert_password,
        )
    }
}
