//! Document to [`Config`]: upstream's code defaults (`InitializeCloudFromConfig`, `setLBDefaults`,
//! `setCloudProviderBackoffDefaults`, the cache TTL constants and the rate-limit initialisation).

use std::collections::BTreeMap;
use std::time::Duration;

use super::document::{AzureJson, RateLimitJson};
use super::enums::{
    BackendPoolType, Cloud, CloudConfigType, IdentitySystem, LoadBalancerSku, ProbeMode, VmType,
};
use super::error::ConfigError;
use super::fields::{
    Backoff, CacheSettings, Cluster, Config, Identity, LoadBalancerSettings, RateLimit, RateLimits,
    RouteSettings, SourceSettings,
};
use super::origin::Origin;
use super::tags::{parse_system_tags, parse_tags};

/// `maximumLoadBalancerRuleCount` default.
pub const MAXIMUM_LOAD_BALANCER_RULE_COUNT: u32 = 250;
/// Route batch flush and post-PUT wait, seconds.
pub const ROUTE_UPDATE_SECONDS: u64 = 30;
/// Multi-SLB local-service pool batch interval, seconds.
pub const BACKEND_POOL_UPDATE_INTERVAL_SECONDS: u64 = 30;
/// Shared health probe port (kube-proxy healthz).
pub const SHARED_PROBE_PORT: u16 = 10256;
/// Shared health probe path.
pub const SHARED_PROBE_PATH: &str = "/healthz";
/// Read QPS when rate limiting is on and no QPS is given.
pub const RATE_LIMIT_QPS: f32 = 1.0;
/// Read bucket when rate limiting is on and no bucket is given.
pub const RATE_LIMIT_BUCKET: u32 = 5;
/// Backoff retries when `cloudProviderBackoff` is on and none are given.
pub const BACKOFF_RETRIES: u32 = 6;
/// Backoff exponent default.
pub const BACKOFF_EXPONENT: f64 = 1.5;
/// Backoff base duration default, seconds.
pub const BACKOFF_DURATION_SECONDS: u64 = 5;
/// Backoff jitter default.
pub const BACKOFF_JITTER: f64 = 1.0;

/// Cache TTL defaults in seconds, per key (anchor-ccm.md §2.2 "Caches").
pub const CACHE_TTL_SECONDS: &[(&str, u64)] = &[
    ("vmCacheTTLInSeconds", 60),
    ("loadBalancerCacheTTLInSeconds", 120),
    ("publicIPCacheTTLInSeconds", 120),
    ("nsgCacheTTLInSeconds", 120),
    ("routeTableCacheTTLInSeconds", 120),
    ("plsCacheTTLInSeconds", 120),
    ("availabilitySetsCacheTTLInSeconds", 600),
    ("vmssCacheTTLInSeconds", 600),
    ("vmssVirtualMachinesCacheTTLInSeconds", 600),
    ("vmssFlexCacheTTLInSeconds", 600),
    ("vmssFlexVMCacheTTLInSeconds", 600),
    ("nonVmssUniformNodesCacheTTLInSeconds", 900),
];

/// Reads integers against their accepted range, naming key and source on error.
struct Numbers<'a> {
    origin: &'a Origin,
}

impl Numbers<'_> {
    fn invalid(&self, key: &str, value: String, accepted: &str) -> ConfigError {
        ConfigError::InvalidValue {
            origin: Box::new(self.origin.clone()),
            key: key.to_string(),
            value,
            accepted: accepted.to_string(),
        }
    }

    /// A non-negative count, `0` when absent.
    fn count(&self, key: &str, value: Option<i64>) -> Result<u32, ConfigError> {
        let value = value.unwrap_or(0);
        u32::try_from(value)
            .map_err(|_| self.invalid(key, value.to_string(), "an integer from 0 to 4294967295"))
    }

    /// Seconds, with `0` (or absent) meaning `default`.
    fn seconds_or(
        &self,
        key: &str,
        value: Option<i64>,
        default: u64,
    ) -> Result<Duration, ConfigError> {
        let value = value.unwrap_or(0);
        match u64::try_from(value) {
            Ok(0) => Ok(Duration::from_secs(default)),
            Ok(seconds) => Ok(Duration::from_secs(seconds)),
            Err(_) => Err(self.invalid(key, value.to_string(), "a non-negative number of seconds")),
        }
    }

    fn cache_ttl(&self, key: &str, value: Option<i64>) -> Result<Duration, ConfigError> {
        let default = CACHE_TTL_SECONDS
            .iter()
            .find(|(name, _)| *name == key)
            .map_or(0, |(_, seconds)| *seconds);
        self.seconds_or(key, value, default)
    }

    fn rate(&self, key: &str, value: Option<f32>) -> Result<f32, ConfigError> {
        match value {
            Some(qps) if qps < 0.0 => Err(self.invalid(
                key,
                qps.to_string(),
                "a non-negative number of requests per second",
            )),
            Some(qps) => Ok(qps),
            None => Ok(0.0),
        }
    }

    fn rate_limit(&self, prefix: &str, json: &RateLimitJson) -> Result<RateLimit, ConfigError> {
        let key = |name: &str| {
            if prefix.is_empty() {
                name.to_string()
            } else {
                format!("{prefix}.{name}")
            }
        };
        Ok(RateLimit {
            enabled: json.enabled.unwrap_or(false),
            qps: self.rate(&key("cloudProviderRateLimitQPS"), json.qps)?,
            bucket: self.count(&key("cloudProviderRateLimitBucket"), json.bucket)?,
            qps_write: self.rate(&key("cloudProviderRateLimitQPSWrite"), json.qps_write)?,
            bucket_write: self
                .count(&key("cloudProviderRateLimitBucketWrite"), json.bucket_write)?,
        })
    }
}

fn text(value: &Option<String>) -> String {
    value.clone().unwrap_or_default()
}

fn optional(value: &Option<String>) -> Option<String> {
    value.clone().filter(|text| !text.is_empty())
}

fn or_resource_group(value: &Option<String>, resource_group: &str) -> String {
    optional(value).unwrap_or_else(|| resource_group.to_string())
}

/// Upstream's default-limit initialisation: read QPS/bucket fall back to 1/5, write to read.
fn default_rate_limit(mut limit: RateLimit) -> RateLimit {
    if limit.qps == 0.0 {
        limit.qps = RATE_LIMIT_QPS;
    }
    if limit.bucket == 0 {
        limit.bucket = RATE_LIMIT_BUCKET;
    }
    if limit.qps_write == 0.0 {
        limit.qps_write = limit.qps;
    }
    if limit.bucket_write == 0 {
        limit.bucket_write = limit.bucket;
    }
    limit
}

/// Upstream's per-client override: absent = the defaults; present but disabled = disabled with
/// zero limits; present and enabled = its values, zeros filled from the defaults.
fn client_rate_limit(defaults: &RateLimit, over: Option<RateLimit>) -> RateLimit {
    match over {
        None => defaults.clone(),
        Some(over) if !over.enabled => RateLimit {
            enabled: false,
            qps: 0.0,
            bucket: 0,
            qps_write: 0.0,
            bucket_write: 0,
        },
        Some(mut over) => {
            if over.qps == 0.0 {
                over.qps = defaults.qps;
            }
            if over.bucket == 0 {
                over.bucket = defaults.bucket;
            }
            if over.qps_write == 0.0 {
                over.qps_write = defaults.qps_write;
            }
            if over.bucket_write == 0 {
                over.bucket_write = defaults.bucket_write;
            }
            over
        }
    }
}

/// Applies every default to a (selected, env-overridden) document. Value ranges are checked here;
/// cross-key rules live in `validate`.
pub fn resolve(
    doc: &AzureJson,
    environment_file_path: Option<String>,
    origin: &Origin,
) -> Result<Config, ConfigError> {
    let numbers = Numbers { origin };
    // Upstream lower-cases the resource group on parse.
    let resource_group = text(&doc.resource_group).to_lowercase();
    let cloud = doc.cloud.unwrap_or(Cloud::Public);

    let identity = Identity {
        cloud,
        resource_manager_endpoint: optional(&doc.resource_manager_endpoint),
        environment_file_path,
        tenant_id: text(&doc.tenant_id),
        subscription_id: text(&doc.subscription_id),
        network_resource_tenant_id: optional(&doc.network_resource_tenant_id),
        network_resource_subscription_id: optional(&doc.network_resource_subscription_id),
        identity_system: doc.identity_system.unwrap_or(IdentitySystem::AzureAd),
        aad_client_id: text(&doc.aad_client_id),
        aad_client_secret: doc.aad_client_secret.clone().unwrap_or_default(),
        aad_client_cert_path: optional(&doc.aad_client_cert_path),
        aad_client_cert_password: doc.aad_client_cert_password.clone().unwrap_or_default(),
        use_managed_identity_extension: doc.use_managed_identity_extension.unwrap_or(false),
        user_assigned_identity_id: optional(&doc.user_assigned_identity_id),
        aad_federated_token_file: optional(&doc.aad_federated_token_file),
        use_federated_workload_identity_extension: doc
            .use_federated_workload_identity_extension
            .unwrap_or(false),
        user_agent: optional(&doc.user_agent),
        disable_azure_stack_cloud: doc.disable_azure_stack_cloud.unwrap_or(false),
        enable_minimum_retry_after: doc.enable_minimum_retry_after.unwrap_or(false),
    };

    let cluster = Cluster {
        location: text(&doc.location),
        vnet_name: text(&doc.vnet_name),
        vnet_resource_group: or_resource_group(&doc.vnet_resource_group, &resource_group),
        subnet_name: text(&doc.subnet_name),
        security_group_name: text(&doc.security_group_name),
        security_group_resource_group: or_resource_group(
            &doc.security_group_resource_group,
            &resource_group,
        ),
        route_table_name: text(&doc.route_table_name),
        route_table_resource_group: or_resource_group(
            &doc.route_table_resource_group,
            &resource_group,
        ),
        vm_type: doc.vm_type.unwrap_or(VmType::Vmss),
        primary_availability_set_name: text(&doc.primary_availability_set_name),
        primary_scale_set_name: text(&doc.primary_scale_set_name),
        disable_availability_set_nodes: doc.disable_availability_set_nodes.unwrap_or(false),
        enable_vmss_flex_nodes: doc.enable_vmss_flex_nodes.unwrap_or(false),
        use_instance_metadata: doc.use_instance_metadata.unwrap_or(false),
        tags: parse_tags(doc.tags.as_deref(), doc.tags_map.as_ref(), origin)?,
        system_tags: parse_system_tags(doc.system_tags.as_deref()),
        node_instance_not_found_grace_period: numbers.seconds_or(
            "nodeInstanceNotFoundGracePeriodInSeconds",
            doc.node_instance_not_found_grace_period_in_seconds,
            0,
        )?,
        put_vmss_vm_batch_size: numbers.count("putVMSSVMBatchSize", doc.put_vmss_vm_batch_size)?,
        resource_group: resource_group.clone(),
    };

    let sku = doc.load_balancer_sku.unwrap_or(LoadBalancerSku::Standard);
    let probe_port = match doc.cluster_service_shared_load_balancer_health_probe_port {
        None | Some(0) => SHARED_PROBE_PORT,
        Some(port) => u16::try_from(port)
            .ok()
            .filter(|port| *port > 0)
            .ok_or_else(|| {
                numbers.invalid(
                    "clusterServiceSharedLoadBalancerHealthProbePort",
                    port.to_string(),
                    "a port from 1 to 65535",
                )
            })?,
    };
    let maximum_rule_count = match numbers.count(
        "maximumLoadBalancerRuleCount",
        doc.maximum_load_balancer_rule_count,
    )? {
        0 => MAXIMUM_LOAD_BALANCER_RULE_COUNT,
        count => count,
    };
    let load_balancer = LoadBalancerSettings {
        sku,
        name: optional(&doc.load_balancer_name),
        resource_group: or_resource_group(&doc.load_balancer_resource_group, &resource_group),
        // `setLBDefaults`: true by default for the standard SKU only (other SKUs never read it).
        exclude_master_from_standard_lb: doc
            .exclude_master_from_standard_lb
            .unwrap_or(sku == LoadBalancerSku::Standard),
        disable_outbound_snat: doc.disable_outbound_snat.unwrap_or(false),
        maximum_rule_count,
        backend_pool_type: doc
            .load_balancer_backend_pool_configuration_type
            .unwrap_or(BackendPoolType::NodeIpConfiguration),
        preconfigured_backend_pools: doc.pre_configured_backend_pool_load_balancer_types,
        backend_pool_update_interval: numbers.seconds_or(
            "loadBalancerBackendPoolUpdateIntervalInSeconds",
            doc.load_balancer_backend_pool_update_interval_in_seconds,
            BACKEND_POOL_UPDATE_INTERVAL_SECONDS,
        )?,
        health_probe_mode: doc
            .cluster_service_load_balancer_health_probe_mode
            .unwrap_or(ProbeMode::ServiceNodePort),
        shared_probe_port: probe_port,
        shared_probe_path: optional(&doc.cluster_service_shared_load_balancer_health_probe_path)
            .unwrap_or_else(|| SHARED_PROBE_PATH.to_string()),
        private_link_service_resource_group: or_resource_group(
            &doc.private_link_service_resource_group,
            &resource_group,
        ),
        enable_ip_tag_mutation_for_existing_public_ip: doc
            .enable_ip_tag_mutation_for_existing_public_ip
            .unwrap_or(false),
        in_tree: super::in_tree::InTreeCompat::default(),
    };

    let routes = RouteSettings {
        update_interval: numbers.seconds_or(
            "routeUpdateIntervalInSeconds",
            doc.route_update_interval_in_seconds,
            ROUTE_UPDATE_SECONDS,
        )?,
        update_waiting: numbers.seconds_or(
            "routeUpdateWaitingInSeconds",
            doc.route_update_waiting_in_seconds,
            ROUTE_UPDATE_SECONDS,
        )?,
    };

    let cache = CacheSettings {
        vm: numbers.cache_ttl("vmCacheTTLInSeconds", doc.vm_cache_ttl_in_seconds)?,
        load_balancer: numbers.cache_ttl(
            "loadBalancerCacheTTLInSeconds",
            doc.load_balancer_cache_ttl_in_seconds,
        )?,
        public_ip: numbers.cache_ttl(
            "publicIPCacheTTLInSeconds",
            doc.public_ip_cache_ttl_in_seconds,
        )?,
        nsg: numbers.cache_ttl("nsgCacheTTLInSeconds", doc.nsg_cache_ttl_in_seconds)?,
        route_table: numbers.cache_ttl(
            "routeTableCacheTTLInSeconds",
            doc.route_table_cache_ttl_in_seconds,
        )?,
        private_link_service: numbers
            .cache_ttl("plsCacheTTLInSeconds", doc.pls_cache_ttl_in_seconds)?,
        availability_sets: numbers.cache_ttl(
            "availabilitySetsCacheTTLInSeconds",
            doc.availability_sets_cache_ttl_in_seconds,
        )?,
        vmss: numbers.cache_ttl("vmssCacheTTLInSeconds", doc.vmss_cache_ttl_in_seconds)?,
        vmss_virtual_machines: numbers.cache_ttl(
            "vmssVirtualMachinesCacheTTLInSeconds",
            doc.vmss_virtual_machines_cache_ttl_in_seconds,
        )?,
        vmss_flex: numbers.cache_ttl(
            "vmssFlexCacheTTLInSeconds",
            doc.vmss_flex_cache_ttl_in_seconds,
        )?,
        vmss_flex_vm: numbers.cache_ttl(
            "vmssFlexVMCacheTTLInSeconds",
            doc.vmss_flex_vm_cache_ttl_in_seconds,
        )?,
        non_vmss_uniform_nodes: numbers.cache_ttl(
            "nonVmssUniformNodesCacheTTLInSeconds",
            doc.non_vmss_uniform_nodes_cache_ttl_in_seconds,
        )?,
        disable_api_call_cache: doc.disable_api_call_cache.unwrap_or(false),
        list_vmss_virtual_machines_without_instance_view: doc
            .list_vmss_virtual_machines_without_instance_view
            .unwrap_or(false),
        vmss_virtual_machine_cache_instance_view: doc
            .vmss_virtual_machine_cache_instance_view
            .unwrap_or(false),
    };

    let backoff_enabled = doc.cloud_provider_backoff.unwrap_or(false);
    let retries = numbers.count(
        "cloudProviderBackoffRetries",
        doc.cloud_provider_backoff_retries,
    )?;
    let backoff = Backoff {
        enabled: backoff_enabled,
        retries: match (backoff_enabled, retries) {
            (false, _) => 1,
            (true, 0) => BACKOFF_RETRIES,
            (true, retries) => retries,
        },
        exponent: doc
            .cloud_provider_backoff_exponent
            .filter(|value| *value != 0.0)
            .unwrap_or(BACKOFF_EXPONENT),
        duration: numbers.seconds_or(
            "cloudProviderBackoffDuration",
            doc.cloud_provider_backoff_duration,
            BACKOFF_DURATION_SECONDS,
        )?,
        jitter: doc
            .cloud_provider_backoff_jitter
            .filter(|value| *value != 0.0)
            .unwrap_or(BACKOFF_JITTER),
    };

    let defaults = default_rate_limit(numbers.rate_limit("", &doc.default_rate_limit())?);
    let mut per_client = BTreeMap::new();
    for (key, over) in doc.client_rate_limits() {
        let over = over.map(|json| numbers.rate_limit(key, json)).transpose()?;
        per_client.insert(key, client_rate_limit(&defaults, over));
    }

    Ok(Config {
        identity,
        cluster,
        load_balancer,
        routes,
        cache,
        backoff,
        rate_limits: RateLimits {
            default: defaults,
            per_client,
        },
        source: SourceSettings {
            cloud_config_type: doc.cloud_config_type.unwrap_or(CloudConfigType::Merge),
            disable_cloud_provider: doc.disable_cloud_provider.unwrap_or(false),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origin() -> Origin {
        Origin::File("azure.json".into())
    }

    #[test]
    fn an_empty_document_gets_upstream_code_defaults() {
        let config = resolve(&AzureJson::default(), None, &origin()).expect("defaults");
        assert_eq!(config.cluster.vm_type, VmType::Vmss);
        assert_eq!(config.load_balancer.sku, LoadBalancerSku::Standard);
        assert_eq!(
            config.load_balancer.backend_pool_type,
            BackendPoolType::NodeIpConfiguration
        );
        assert!(config.load_balancer.exclude_master_from_standard_lb);
        assert_eq!(config.load_balancer.maximum_rule_count, 250);
        assert_eq!(config.cache.vm, Duration::from_secs(60));
        assert_eq!(
            config.cache.non_vmss_uniform_nodes,
            Duration::from_secs(900)
        );
        assert_eq!(config.routes.update_interval, Duration::from_secs(30));
        assert_eq!(config.backoff.retries, 1);
        assert_eq!(config.source.cloud_config_type, CloudConfigType::Merge);
    }

    #[test]
    fn resource_group_is_lower_cased_and_fills_the_other_groups() {
        let doc = AzureJson {
            resource_group: Some("MC_Prod_Cluster".into()),
            vnet_resource_group: Some("Net-RG".into()),
            ..AzureJson::default()
        };
        let config = resolve(&doc, None, &origin()).expect("resolves");
        assert_eq!(config.cluster.resource_group, "mc_prod_cluster");
        assert_eq!(config.cluster.vnet_resource_group, "Net-RG");
        assert_eq!(
            config.cluster.security_group_resource_group,
            "mc_prod_cluster"
        );
        assert_eq!(config.load_balancer.resource_group, "mc_prod_cluster");
    }

    #[test]
    fn rate_limit_overrides_follow_upstream() {
        let doc = AzureJson {
            cloud_provider_rate_limit: Some(true),
            cloud_provider_rate_limit_qps: Some(10.0),
            cloud_provider_rate_limit_bucket: Some(100),
            load_balancer_rate_limit: Some(RateLimitJson {
                enabled: Some(true),
                qps: Some(2.0),
                ..RateLimitJson::default()
            }),
            security_group_rate_limit: Some(RateLimitJson {
                enabled: Some(false),
                qps: Some(50.0),
                ..RateLimitJson::default()
            }),
            ..AzureJson::default()
        };
        let limits = resolve(&doc, None, &origin())
            .expect("resolves")
            .rate_limits;
        assert_eq!(limits.default.qps_write, 10.0);
        assert_eq!(limits.default.bucket_write, 100);
        let lb = &limits.per_client["loadBalancerRateLimit"];
        assert_eq!((lb.qps, lb.bucket, lb.qps_write), (2.0, 100, 10.0));
        let nsg = &limits.per_client["securityGroupRateLimit"];
        assert!(!nsg.enabled);
        assert_eq!(nsg.qps, 0.0);
        assert_eq!(limits.per_client["routeRateLimit"], limits.default);
    }

    #[test]
    fn backoff_defaults_apply_when_on() {
        let doc = AzureJson {
            cloud_provider_backoff: Some(true),
            ..AzureJson::default()
        };
        let backoff = resolve(&doc, None, &origin()).expect("resolves").backoff;
        assert_eq!(backoff.retries, 6);
        assert_eq!(backoff.exponent, 1.5);
        assert_eq!(backoff.duration, Duration::from_secs(5));
        assert_eq!(backoff.jitter, 1.0);
    }

    #[test]
    fn out_of_range_numbers_name_key_value_and_range() {
        let doc = AzureJson {
            vm_cache_ttl_in_seconds: Some(-5),
            ..AzureJson::default()
        };
        let err = resolve(&doc, None, &origin()).expect_err("negative ttl");
        assert_eq!(
            err.to_string(),
            "cloud config file azure.json: key `vmCacheTTLInSeconds` has invalid value -5; accepted: a non-negative number of seconds"
        );
        let doc = AzureJson {
            cluster_service_shared_load_balancer_health_probe_port: Some(70000),
            ..AzureJson::default()
        };
        assert!(resolve(&doc, None, &origin()).is_err());
    }
}
