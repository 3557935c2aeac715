//! Every error names its source, the key, the value and what is accepted; snapshotted.

use super::load_file;

fn message(text: &str) -> String {
    match load_file(text, &[]) {
        Ok(loaded) => format!("unexpectedly loaded: {}", loaded.config),
        Err(error) => error.to_string(),
    }
}

#[test]
fn error_messages() {
    let cases = [
        ("syntax", r#"{"vmType": "vmss",}"#),
        ("not_an_object", "- a\n- b\n"),
        ("wrong_type", r#"{"useInstanceMetadata": "true"}"#),
        (
            "unknown_enum_value",
            r#"{"vmType": "vmas", "useInstanceMetadata": true}"#,
        ),
        (
            "unknown_cloud",
            r#"{"cloud": "AzureGermanCloud", "useInstanceMetadata": true}"#,
        ),
        ("secret_wrong_type", r#"{"aadClientSecret": 1234567}"#),
        (
            "nested_wrong_type",
            r#"{"loadBalancerRateLimit": {"cloudProviderRateLimitQPS": "fast"}}"#,
        ),
        (
            "negative_ttl",
            r#"{"vmssCacheTTLInSeconds": -1, "useInstanceMetadata": true}"#,
        ),
        (
            "bad_tags",
            r#"{"tags": "a=b,c", "useInstanceMetadata": true}"#,
        ),
        (
            "multi_slb",
            r#"{"multipleStandardLoadBalancerConfigurations": [{"name": "kubernetes", "primaryVMSet": "pool1"}]}"#,
        ),
        (
            "service_gateway",
            r#"{"serviceGatewayEnabled": true, "loadBalancerSku": "service"}"#,
        ),
        (
            "pod_ip_pools",
            r#"{"loadBalancerBackendPoolConfigurationType": "podIP"}"#,
        ),
        (
            "as_nodes_with_standard",
            r#"{"disableAvailabilitySetNodes": true, "vmType": "standard", "useInstanceMetadata": true}"#,
        ),
        (
            "snat_with_basic",
            r#"{"disableOutboundSNAT": true, "loadBalancerSku": "basic", "useInstanceMetadata": true}"#,
        ),
        (
            "no_credentials",
            r#"{"resourceGroup": "rg", "cloudConfigType": "file"}"#,
        ),
        (
            "bad_cidr",
            r#"{"podCidrIPv4": ["10.244.0.0/16", "10.300.0.0/16"]}"#,
        ),
        (
            "pod_cidrs",
            r#"{"podCidrIPv4": ["10.244.0.0/16"], "useInstanceMetadata": true}"#,
        ),
        (
            "aux_token_uri",
            r#"{"auxiliaryTokenSecretURI": "https://kv.vault.azure.net/secrets/t", "useInstanceMetadata": true}"#,
        ),
        (
            "adfs",
            r#"{"identitySystem": "ADFS", "useInstanceMetadata": true}"#,
        ),
        ("yaml_position", "vmType: vmss\n  bad: [\n"),
    ];
    let rendered: Vec<String> = cases
        .iter()
        .map(|(name, text)| format!("{name}: {}", message(text)))
        .collect();
    insta::assert_snapshot!(rendered.join("\n"));
}
