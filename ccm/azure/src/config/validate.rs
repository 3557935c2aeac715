//! Init-time checks: keys that ask for features this CCM does not implement yet are refused, then
//! upstream's cross-key validations (anchor-ccm.md §2.2, end) run on the resolved config.

use serde_json::Value;

use super::decode::render;
use super::document::AzureJson;
use super::enums::{BackendPoolType, CloudConfigType, IdentitySystem, LoadBalancerSku, VmType};
use super::error::ConfigError;
use super::fields::Config;
use super::origin::Origin;

/// A key we parse but refuse when it requests its feature.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unsupported {
    /// Canonical key.
    pub key: &'static str,
    /// The feature the key turns on.
    pub feature: &'static str,
}

const fn unsupported(key: &'static str, feature: &'static str) -> Unsupported {
    Unsupported { key, feature }
}

const MULTI_SLB: Unsupported = unsupported(
    "multipleStandardLoadBalancerConfigurations",
    "multiple standard load balancers",
);
const SERVICE_GATEWAY: Unsupported = unsupported("serviceGatewayEnabled", "ServiceGateway");
const SERVICE_SKU: Unsupported = unsupported("loadBalancerSku", "ServiceGateway (sku `service`)");
const POD_IP_POOLS: Unsupported = unsupported(
    "loadBalancerBackendPoolConfigurationType",
    "ServiceGateway pod-IP backend pools",
);
const POOL_MIGRATION: Unsupported = unsupported(
    "enableMigrateToIPBasedBackendPoolAPI",
    "backend pool migration to IP-based pools",
);
const MSI_DATA_PLANE: Unsupported = unsupported(
    "aadMSIDataPlaneIdentityPath",
    "MSI data-plane identity file credentials",
);
const AUX_TOKEN_PROVIDER: Unsupported = unsupported(
    "auxiliaryTokenProvider",
    "Key Vault auxiliary token for cross-tenant managed identity",
);
const AUX_TOKEN_URI: Unsupported = unsupported(
    "auxiliaryTokenSecretURI",
    "Key Vault auxiliary token for cross-tenant managed identity",
);
const POD_CIDRS_V4: Unsupported = unsupported("podCidrIPv4", "pod CIDR security rules");
const POD_CIDRS_V6: Unsupported = unsupported("podCidrIPv6", "pod CIDR security rules");
const ADFS: Unsupported = unsupported(
    "identitySystem",
    "ADFS identity (Azure Stack Hub disconnected)",
);
const EDGE_ZONE_NAME: Unsupported =
    unsupported("extendedLocationName", "edge zones (extended locations)");
const EDGE_ZONE_TYPE: Unsupported =
    unsupported("extendedLocationType", "edge zones (extended locations)");

/// Every key refused while its feature is missing; a later issue that implements a feature
/// removes its entry (and its check below).
pub const NOT_SUPPORTED_YET: &[Unsupported] = &[
    MULTI_SLB,
    SERVICE_GATEWAY,
    SERVICE_SKU,
    POD_IP_POOLS,
    POOL_MIGRATION,
    MSI_DATA_PLANE,
    AUX_TOKEN_PROVIDER,
    AUX_TOKEN_URI,
    POD_CIDRS_V4,
    POD_CIDRS_V6,
    ADFS,
    EDGE_ZONE_NAME,
    EDGE_ZONE_TYPE,
];

fn refuse(origin: &Origin, what: Unsupported, value: Value) -> ConfigError {
    ConfigError::NotSupported {
        origin: Box::new(origin.clone()),
        key: what.key,
        value: render(&value),
        feature: what.feature,
    }
}

/// Refuses any key in [`NOT_SUPPORTED_YET`] whose value asks for its feature; default or empty
/// values are accepted, since they ask for nothing.
pub fn refuse_unsupported(doc: &AzureJson, origin: &Origin) -> Result<(), ConfigError> {
    if let Some(configs) = doc
        .multiple_standard_load_balancer_configurations
        .as_ref()
        .filter(|configs| !configs.is_empty())
    {
        let names: Vec<Value> = configs
            .iter()
            .map(|entry| entry.get("name").cloned().unwrap_or(Value::Null))
            .collect();
        return Err(refuse(origin, MULTI_SLB, Value::Array(names)));
    }
    if doc.service_gateway_enabled == Some(true) {
        return Err(refuse(origin, SERVICE_GATEWAY, Value::Bool(true)));
    }
    if doc.load_balancer_sku == Some(LoadBalancerSku::Service) {
        return Err(refuse(origin, SERVICE_SKU, "service".into()));
    }
    if doc.load_balancer_backend_pool_configuration_type == Some(BackendPoolType::PodIp) {
        return Err(refuse(origin, POD_IP_POOLS, "podIP".into()));
    }
    if doc.enable_migrate_to_ip_based_backend_pool_api == Some(true) {
        return Err(refuse(origin, POOL_MIGRATION, Value::Bool(true)));
    }
    if let Some(path) = doc
        .aad_msi_data_plane_identity_path
        .as_ref()
        .filter(|path| !path.is_empty())
    {
        return Err(refuse(origin, MSI_DATA_PLANE, path.as_str().into()));
    }
    if let Some(aux) = &doc.auxiliary_token_provider {
        let vault = aux.vault_name.clone().unwrap_or_default();
        if !vault.is_empty() || aux.secret_name.as_ref().is_some_and(|s| !s.is_empty()) {
            return Err(refuse(
                origin,
                AUX_TOKEN_PROVIDER,
                serde_json::json!({ "vaultName": vault }),
            ));
        }
    }
    if let Some(uri) = doc
        .auxiliary_token_secret_uri
        .as_ref()
        .filter(|uri| !uri.is_empty())
    {
        return Err(refuse(origin, AUX_TOKEN_URI, uri.as_str().into()));
    }
    for (key, cidrs) in [
        (POD_CIDRS_V4, &doc.pod_cidrs_ipv4),
        (POD_CIDRS_V6, &doc.pod_cidrs_ipv6),
    ] {
        if let Some(cidrs) = cidrs.as_ref().filter(|cidrs| !cidrs.is_empty()) {
            let listed: Vec<Value> = cidrs.iter().map(|cidr| cidr.to_string().into()).collect();
            return Err(refuse(origin, key, Value::Array(listed)));
        }
    }
    if doc.identity_system == Some(IdentitySystem::Adfs) {
        return Err(refuse(origin, ADFS, "adfs".into()));
    }
    for (key, value) in [
        (EDGE_ZONE_NAME, &doc.extended_location_name),
        (EDGE_ZONE_TYPE, &doc.extended_location_type),
    ] {
        if let Some(value) = value.as_ref().filter(|value| !value.is_empty()) {
            return Err(refuse(origin, key, value.as_str().into()));
        }
    }
    Ok(())
}

fn inconsistent(origin: &Origin, keys: Vec<&'static str>, message: &str) -> ConfigError {
    ConfigError::Inconsistent {
        origin: Box::new(origin.clone()),
        keys,
        message: message.to_string(),
    }
}

/// Upstream's cross-key validations on the resolved config (`InitializeCloudFromConfig`,
/// `setLBDefaults`). Unknown `cloudConfigType`, pool type and probe mode values are already
/// refused while decoding; the ServiceGateway and multi-SLB rules are moot while those features
/// are refused.
pub fn validate(config: &Config, origin: &Origin) -> Result<(), ConfigError> {
    if config.cluster.disable_availability_set_nodes && config.cluster.vm_type != VmType::Vmss {
        return Err(inconsistent(
            origin,
            vec!["disableAvailabilitySetNodes", "vmType"],
            "disableAvailabilitySetNodes is only supported when vmType is 'vmss'",
        ));
    }
    if config.load_balancer.disable_outbound_snat
        && config.load_balancer.sku != LoadBalancerSku::Standard
    {
        return Err(inconsistent(
            origin,
            vec!["disableOutboundSNAT", "loadBalancerSku"],
            "disableOutboundSNAT should only be set when loadBalancerSku is standard",
        ));
    }
    if config.identity.credential_kind().is_none() {
        let credential_keys = vec![
            "useFederatedWorkloadIdentityExtension",
            "useManagedIdentityExtension",
            "aadClientSecret",
            "aadClientCertPath",
        ];
        // A config read from the Secret is the controller-manager's: it must have credentials.
        if matches!(origin, Origin::Secret { .. }) {
            return Err(inconsistent(
                origin,
                credential_keys,
                "no credentials provided for Azure cloud provider",
            ));
        }
        // Without credentials only the node-local IMDS path works; upstream enforces that only
        // when the file is declared the sole source.
        if !config.cluster.use_instance_metadata
            && config.source.cloud_config_type == CloudConfigType::File
        {
            let mut keys = credential_keys;
            keys.extend(["useInstanceMetadata", "cloudConfigType"]);
            return Err(inconsistent(
                origin,
                keys,
                "useInstanceMetadata must be enabled without Azure credentials",
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::defaults::resolve;
    use serde_json::json;

    fn origin() -> Origin {
        Origin::File("azure.json".into())
    }

    #[test]
    fn feature_keys_are_refused_only_when_they_ask_for_the_feature() {
        let quiet = AzureJson {
            multiple_standard_load_balancer_configurations: Some(vec![]),
            service_gateway_enabled: Some(false),
            extended_location_name: Some(String::new()),
            ..AzureJson::default()
        };
        assert_eq!(refuse_unsupported(&quiet, &origin()), Ok(()));

        let multi = AzureJson {
            multiple_standard_load_balancer_configurations: Some(vec![
                json!({"name": "kubernetes"})
                    .as_object()
                    .cloned()
                    .unwrap_or_default(),
            ]),
            ..AzureJson::default()
        };
        let err = refuse_unsupported(&multi, &origin()).expect_err("multi-SLB");
        assert!(matches!(
            err,
            ConfigError::NotSupported {
                key: "multipleStandardLoadBalancerConfigurations",
                ..
            }
        ));
        let gateway = AzureJson {
            service_gateway_enabled: Some(true),
            ..AzureJson::default()
        };
        assert!(refuse_unsupported(&gateway, &origin()).is_err());
    }

    #[test]
    fn every_refused_key_is_a_real_key() {
        for what in NOT_SUPPORTED_YET {
            assert!(
                crate::config::document::KEYS.contains(&what.key),
                "{}",
                what.key
            );
        }
    }

    #[test]
    fn cross_key_rules() {
        let with_imds = |doc: AzureJson| AzureJson {
            use_instance_metadata: Some(true),
            ..doc
        };
        let doc = with_imds(AzureJson {
            disable_availability_set_nodes: Some(true),
            vm_type: Some(VmType::Standard),
            ..AzureJson::default()
        });
        let config = resolve(&doc, None, &origin()).expect("resolves");
        assert!(validate(&config, &origin()).is_err());

        let doc = with_imds(AzureJson {
            disable_outbound_snat: Some(true),
            load_balancer_sku: Some(LoadBalancerSku::Basic),
            ..AzureJson::default()
        });
        let config = resolve(&doc, None, &origin()).expect("resolves");
        assert!(validate(&config, &origin()).is_err());

        // No credentials: fine by default (merge), refused when the file is the declared sole
        // source without IMDS, and always refused when the config came from the Secret.
        let config = resolve(&AzureJson::default(), None, &origin()).expect("resolves");
        assert_eq!(validate(&config, &origin()), Ok(()));
        let file_only = AzureJson {
            cloud_config_type: Some(CloudConfigType::File),
            ..AzureJson::default()
        };
        let config = resolve(&file_only, None, &origin()).expect("resolves");
        let err = validate(&config, &origin()).expect_err("file only, no credentials, no IMDS");
        assert!(
            err.to_string()
                .contains("useInstanceMetadata must be enabled")
        );
        let config = resolve(&with_imds(file_only), None, &origin()).expect("resolves");
        assert_eq!(validate(&config, &origin()), Ok(()));
        let config = resolve(&with_imds(AzureJson::default()), None, &origin()).expect("resolves");
        let err = validate(&config, &Origin::default_secret()).expect_err("secret needs creds");
        assert!(err.to_string().contains("no credentials provided"), "{err}");
        let config = resolve(&with_imds(AzureJson::default()), None, &origin()).expect("resolves");
        assert_eq!(validate(&config, &origin()), Ok(()));
    }
}
