//! The azure.json document as written: every key of upstream's `Config` (anchor-ccm.md §2.2), each
//! optional, in upstream's canonical spelling. Defaults are applied later ([`super::defaults`]).

use std::collections::BTreeMap;

use ipnet::IpNet;
use serde_json::{Map, Value};

use super::decode::{Unknown, config_object};
use super::enums::{
    BackendPoolType, Cloud, CloudConfigType, IdentitySystem, LoadBalancerSku, PreconfiguredPools,
    ProbeMode, VmType,
};
use super::secret::SecretString;

config_object! {
    /// One client-side rate limit object (`RateLimitConfig`): the top-level
    /// `cloudProviderRateLimit*` keys and each per-client override object.
    pub struct RateLimitJson, keys RATE_LIMIT_KEYS {
        "cloudProviderRateLimit" => enabled: bool,
        "cloudProviderRateLimitQPS" => qps: f32,
        "cloudProviderRateLimitBucket" => bucket: i64,
        "cloudProviderRateLimitQPSWrite" => qps_write: f32,
        "cloudProviderRateLimitBucketWrite" => bucket_write: i64,
    }
}

config_object! {
    /// `auxiliaryTokenProvider`: Key Vault secret holding a token for a second tenant.
    pub struct AuxiliaryTokenProviderJson, keys AUXILIARY_TOKEN_PROVIDER_KEYS {
        "subscriptionID" => subscription_id: String,
        "resourceGroup" => resource_group: String,
        "vaultName" => vault_name: String,
        "secretName" => secret_name: String,
    }
}

config_object! {
    /// The whole azure.json document as written (after key canonicalisation, before defaults).
    pub struct AzureJson, keys KEYS {
        // identity / ARM
        "cloud" => cloud: Cloud,
        "resourceManagerEndpoint" => resource_manager_endpoint: String,
        "tenantId" => tenant_id: String,
        "subscriptionId" => subscription_id: String,
        "networkResourceTenantID" => network_resource_tenant_id: String,
        "networkResourceSubscriptionID" => network_resource_subscription_id: String,
        "identitySystem" => identity_system: IdentitySystem,
        "aadClientId" => aad_client_id: String,
        "aadClientSecret" => aad_client_secret: SecretString,
        "aadClientCertPath" => aad_client_cert_path: String,
        "aadClientCertPassword" => aad_client_cert_password: SecretString,
        "useManagedIdentityExtension" => use_managed_identity_extension: bool,
        "userAssignedIdentityID" => user_assigned_identity_id: String,
        "aadFederatedTokenFile" => aad_federated_token_file: String,
        "useFederatedWorkloadIdentityExtension" => use_federated_workload_identity_extension: bool,
        "aadMSIDataPlaneIdentityPath" => aad_msi_data_plane_identity_path: String,
        "auxiliaryTokenSecretURI" => auxiliary_token_secret_uri: String,
        "auxiliaryTokenProvider" => auxiliary_token_provider: AuxiliaryTokenProviderJson,
        "userAgent" => user_agent: String,
        "disableAzureStackCloud" => disable_azure_stack_cloud: bool,
        "enableMinimumRetryAfter" => enable_minimum_retry_after: bool,
        // sources
        "cloudConfigType" => cloud_config_type: CloudConfigType,
        "disableCloudProvider" => disable_cloud_provider: bool,
        // cluster topology
        "resourceGroup" => resource_group: String,
        "location" => location: String,
        "extendedLocationName" => extended_location_name: String,
        "extendedLocationType" => extended_location_type: String,
        "vnetName" => vnet_name: String,
        "vnetResourceGroup" => vnet_resource_group: String,
        "subnetName" => subnet_name: String,
        "securityGroupName" => security_group_name: String,
        "securityGroupResourceGroup" => security_group_resource_group: String,
        "routeTableName" => route_table_name: String,
        "routeTableResourceGroup" => route_table_resource_group: String,
        "vmType" => vm_type: VmType,
        "primaryAvailabilitySetName" => primary_availability_set_name: String,
        "primaryScaleSetName" => primary_scale_set_name: String,
        "disableAvailabilitySetNodes" => disable_availability_set_nodes: bool,
        "enableVmssFlexNodes" => enable_vmss_flex_nodes: bool,
        "useInstanceMetadata" => use_instance_metadata: bool,
        "tags" => tags: String,
        "tagsMap" => tags_map: BTreeMap<String, String>,
        "systemTags" => system_tags: String,
        "nodeInstanceNotFoundGracePeriodInSeconds" => node_instance_not_found_grace_period_in_seconds: i64,
        "putVMSSVMBatchSize" => put_vmss_vm_batch_size: i64,
        // load balancer
        "loadBalancerSku" => load_balancer_sku: LoadBalancerSku,
        "loadBalancerName" => load_balancer_name: String,
        "loadBalancerResourceGroup" => load_balancer_resource_group: String,
        "excludeMasterFromStandardLB" => exclude_master_from_standard_lb: bool,
        "disableOutboundSNAT" => disable_outbound_snat: bool,
        "maximumLoadBalancerRuleCount" => maximum_load_balancer_rule_count: i64,
        "loadBalancerBackendPoolConfigurationType" => load_balancer_backend_pool_configuration_type: BackendPoolType,
        "preConfiguredBackendPoolLoadBalancerTypes" => pre_configured_backend_pool_load_balancer_types: PreconfiguredPools,
        "enableMigrateToIPBasedBackendPoolAPI" => enable_migrate_to_ip_based_backend_pool_api: bool,
        "multipleStandardLoadBalancerConfigurations" => multiple_standard_load_balancer_configurations: Vec<Map<String, Value>>,
        "loadBalancerBackendPoolUpdateIntervalInSeconds" => load_balancer_backend_pool_update_interval_in_seconds: i64,
        "clusterServiceLoadBalancerHealthProbeMode" => cluster_service_load_balancer_health_probe_mode: ProbeMode,
        "clusterServiceSharedLoadBalancerHealthProbePort" => cluster_service_shared_load_balancer_health_probe_port: i64,
        "clusterServiceSharedLoadBalancerHealthProbePath" => cluster_service_shared_load_balancer_health_probe_path: String,
        "privateLinkServiceResourceGroup" => private_link_service_resource_group: String,
        "enableIPTagMutationForExistingPublicIP" => enable_ip_tag_mutation_for_existing_public_ip: bool,
        "serviceGatewayEnabled" => service_gateway_enabled: bool,
        "podCidrIPv4" => pod_cidrs_ipv4: Vec<IpNet>,
        "podCidrIPv6" => pod_cidrs_ipv6: Vec<IpNet>,
        // routes
        "routeUpdateIntervalInSeconds" => route_update_interval_in_seconds: i64,
        "routeUpdateWaitingInSeconds" => route_update_waiting_in_seconds: i64,
        // caches
        "vmCacheTTLInSeconds" => vm_cache_ttl_in_seconds: i64,
        "loadBalancerCacheTTLInSeconds" => load_balancer_cache_ttl_in_seconds: i64,
        "publicIPCacheTTLInSeconds" => public_ip_cache_ttl_in_seconds: i64,
        "nsgCacheTTLInSeconds" => nsg_cache_ttl_in_seconds: i64,
        "routeTableCacheTTLInSeconds" => route_table_cache_ttl_in_seconds: i64,
        "plsCacheTTLInSeconds" => pls_cache_ttl_in_seconds: i64,
        "availabilitySetsCacheTTLInSeconds" => availability_sets_cache_ttl_in_seconds: i64,
        "vmssCacheTTLInSeconds" => vmss_cache_ttl_in_seconds: i64,
        "vmssVirtualMachinesCacheTTLInSeconds" => vmss_virtual_machines_cache_ttl_in_seconds: i64,
        "vmssFlexCacheTTLInSeconds" => vmss_flex_cache_ttl_in_seconds: i64,
        "vmssFlexVMCacheTTLInSeconds" => vmss_flex_vm_cache_ttl_in_seconds: i64,
        "nonVmssUniformNodesCacheTTLInSeconds" => non_vmss_uniform_nodes_cache_ttl_in_seconds: i64,
        "disableAPICallCache" => disable_api_call_cache: bool,
        "listVmssVirtualMachinesWithoutInstanceView" => list_vmss_virtual_machines_without_instance_view: bool,
        "vmssVirtualMachineCacheInstanceView" => vmss_virtual_machine_cache_instance_view: bool,
        // backoff
        "cloudProviderBackoff" => cloud_provider_backoff: bool,
        "cloudProviderBackoffRetries" => cloud_provider_backoff_retries: i64,
        "cloudProviderBackoffExponent" => cloud_provider_backoff_exponent: f64,
        "cloudProviderBackoffDuration" => cloud_provider_backoff_duration: i64,
        "cloudProviderBackoffJitter" => cloud_provider_backoff_jitter: f64,
        // rate limits: the defaults, flattened as in upstream's embedded struct ...
        "cloudProviderRateLimit" => cloud_provider_rate_limit: bool,
        "cloudProviderRateLimitQPS" => cloud_provider_rate_limit_qps: f32,
        "cloudProviderRateLimitBucket" => cloud_provider_rate_limit_bucket: i64,
        "cloudProviderRateLimitQPSWrite" => cloud_provider_rate_limit_qps_write: f32,
        "cloudProviderRateLimitBucketWrite" => cloud_provider_rate_limit_bucket_write: i64,
        // ... and one override object per ARM client
        "routeRateLimit" => route_rate_limit: RateLimitJson,
        "subnetsRateLimit" => subnets_rate_limit: RateLimitJson,
        "interfaceRateLimit" => interface_rate_limit: RateLimitJson,
        "routeTableRateLimit" => route_table_rate_limit: RateLimitJson,
        "loadBalancerRateLimit" => load_balancer_rate_limit: RateLimitJson,
        "publicIPAddressRateLimit" => public_ip_address_rate_limit: RateLimitJson,
        "securityGroupRateLimit" => security_group_rate_limit: RateLimitJson,
        "virtualMachineRateLimit" => virtual_machine_rate_limit: RateLimitJson,
        "storageAccountRateLimit" => storage_account_rate_limit: RateLimitJson,
        "diskRateLimit" => disk_rate_limit: RateLimitJson,
        "snapshotRateLimit" => snapshot_rate_limit: RateLimitJson,
        "virtualMachineScaleSetRateLimit" => virtual_machine_scale_set_rate_limit: RateLimitJson,
        "virtualMachineSizesRateLimit" => virtual_machine_sizes_rate_limit: RateLimitJson,
        "availabilitySetRateLimit" => availability_set_rate_limit: RateLimitJson,
        "privateLinkServiceRateLimit" => private_link_service_rate_limit: RateLimitJson,
        "natGatewayRateLimit" => nat_gateway_rate_limit: RateLimitJson,
    }
}

/// A document decoded from one source, with the keys that matched nothing.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    /// The known keys.
    pub document: AzureJson,
    /// Unknown keys as written (dotted for nested objects), in document order.
    pub unknown_keys: Vec<String>,
}

impl AzureJson {
    /// The per-client rate limit override objects, keyed by their canonical key.
    pub fn client_rate_limits(&self) -> [(&'static str, Option<&RateLimitJson>); 16] {
        [
            ("routeRateLimit", self.route_rate_limit.as_ref()),
            ("subnetsRateLimit", self.subnets_rate_limit.as_ref()),
            ("interfaceRateLimit", self.interface_rate_limit.as_ref()),
            ("routeTableRateLimit", self.route_table_rate_limit.as_ref()),
            (
                "loadBalancerRateLimit",
                self.load_balancer_rate_limit.as_ref(),
            ),
            (
                "publicIPAddressRateLimit",
                self.public_ip_address_rate_limit.as_ref(),
            ),
            (
                "securityGroupRateLimit",
                self.security_group_rate_limit.as_ref(),
            ),
            (
                "virtualMachineRateLimit",
                self.virtual_machine_rate_limit.as_ref(),
            ),
            (
                "storageAccountRateLimit",
                self.storage_account_rate_limit.as_ref(),
            ),
            ("diskRateLimit", self.disk_rate_limit.as_ref()),
            ("snapshotRateLimit", self.snapshot_rate_limit.as_ref()),
            (
                "virtualMachineScaleSetRateLimit",
                self.virtual_machine_scale_set_rate_limit.as_ref(),
            ),
            (
                "virtualMachineSizesRateLimit",
                self.virtual_machine_sizes_rate_limit.as_ref(),
            ),
            (
                "availabilitySetRateLimit",
                self.availability_set_rate_limit.as_ref(),
            ),
            (
                "privateLinkServiceRateLimit",
                self.private_link_service_rate_limit.as_ref(),
            ),
            ("natGatewayRateLimit", self.nat_gateway_rate_limit.as_ref()),
        ]
    }

    /// The flattened top-level rate limit keys as one object.
    pub fn default_rate_limit(&self) -> RateLimitJson {
        RateLimitJson {
            enabled: self.cloud_provider_rate_limit,
            qps: self.cloud_provider_rate_limit_qps,
            bucket: self.cloud_provider_rate_limit_bucket,
            qps_write: self.cloud_provider_rate_limit_qps_write,
            bucket_write: self.cloud_provider_rate_limit_bucket_write,
        }
    }
}

/// Decodes an already parsed JSON value (from JSON or YAML text) into the document.
pub fn decode_value(value: Value) -> Result<Decoded, DecodeFailure> {
    let Value::Object(object) = value else {
        return Err(DecodeFailure::NotAnObject(super::decode::type_name(&value)));
    };
    let mut unknown = Unknown::default();
    let document =
        AzureJson::decode_object(object, "", &mut unknown).map_err(DecodeFailure::Value)?;
    Ok(Decoded {
        document,
        unknown_keys: unknown.keys,
    })
}

/// Why [`decode_value`] failed, before the source is attached.
#[derive(Debug, Clone, PartialEq)]
pub enum DecodeFailure {
    /// The top level is not a map.
    NotAnObject(&'static str),
    /// A key's value is invalid.
    Value(super::decode::DecodeError),
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn no_two_keys_differ_only_in_case() {
        for (index, key) in KEYS.iter().enumerate() {
            for other in &KEYS[index + 1..] {
                assert!(!key.eq_ignore_ascii_case(other), "{key} vs {other}");
            }
        }
    }

    #[test]
    fn both_rate_limit_spellings_fill_the_same_field() {
        for spelling in ["cloudProviderRateLimit", "cloudProviderRatelimit"] {
            let decoded = decode_value(json!({ spelling: true })).expect("decodes");
            assert_eq!(decoded.document.cloud_provider_rate_limit, Some(true));
            assert!(decoded.unknown_keys.is_empty());
        }
    }

    #[test]
    fn nested_objects_are_case_insensitive_and_report_unknown_keys_with_their_path() {
        let decoded = decode_value(json!({
            "LOADBALANCERRATELIMIT": {"cloudproviderratelimitqps": 3, "qps": 1},
            "whatever": 1,
        }))
        .expect("decodes");
        let lb = decoded
            .document
            .load_balancer_rate_limit
            .expect("override present");
        assert_eq!(lb.qps, Some(3.0));
        assert_eq!(
            decoded.unknown_keys,
            vec![
                "whatever".to_string(),
                "loadBalancerRateLimit.qps".to_string()
            ]
        );
    }

    #[test]
    fn null_and_empty_enum_strings_leave_keys_unset() {
        let decoded = decode_value(json!({"vmType": "", "location": null})).expect("decodes");
        assert_eq!(decoded.document, AzureJson::default());
    }

    #[test]
    fn overlay_replaces_only_keys_set_on_top() {
        let below = decode_value(json!({"location": "westeurope", "vmType": "standard"}))
            .expect("decodes")
            .document;
        let top = decode_value(json!({"vmType": "vmss"}))
            .expect("decodes")
            .document;
        let merged = below.overlay(top);
        assert_eq!(merged.location.as_deref(), Some("westeurope"));
        assert_eq!(merged.vm_type, Some(VmType::Vmss));
    }

    #[test]
    fn a_non_object_is_refused() {
        assert_eq!(
            decode_value(json!([1])),
            Err(DecodeFailure::NotAnObject("a list"))
        );
    }
}
