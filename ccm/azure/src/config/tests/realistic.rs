//! Realistic azure.json files, parsed and defaulted, snapshotted (Debug: secrets redacted).

use super::load_file;

#[test]
fn aks_like_vmss_with_managed_identity() {
    let loaded = load_file(
        r#"{
    "cloud": "AzurePublicCloud",
    "tenantId": "72f988bf-0000-0000-0000-2d7cd011db47",
    "subscriptionId": "8ecadfc9-0000-0000-0000-e3bdf4f4a2b3",
    "aadClientId": "msi",
    "aadClientSecret": "msi",
    "resourceGroup": "MC_prod-rg_prod-aks_westeurope",
    "location": "westeurope",
    "vmType": "vmss",
    "subnetName": "aks-subnet",
    "securityGroupName": "aks-agentpool-12345678-nsg",
    "vnetName": "aks-vnet-12345678",
    "vnetResourceGroup": "",
    "routeTableName": "aks-agentpool-12345678-routetable",
    "primaryAvailabilitySetName": "",
    "primaryScaleSetName": "aks-nodepool1-12345678-vmss",
    "cloudProviderBackoffMode": "v2",
    "cloudProviderBackoff": true,
    "cloudProviderBackoffRetries": 6,
    "cloudProviderBackoffDuration": 5,
    "cloudProviderRateLimit": true,
    "cloudProviderRateLimitQPS": 10,
    "cloudProviderRateLimitBucket": 100,
    "cloudProviderRateLimitQPSWrite": 10,
    "cloudProviderRateLimitBucketWrite": 100,
    "useManagedIdentityExtension": true,
    "userAssignedIdentityID": "5c6b8f9e-0000-0000-0000-0a1b2c3d4e5f",
    "useInstanceMetadata": true,
    "loadBalancerSku": "Standard",
    "disableOutboundSNAT": false,
    "excludeMasterFromStandardLB": true,
    "providerVaultName": "",
    "maximumLoadBalancerRuleCount": 250,
    "providerKeyName": "k8s",
    "providerKeyVersion": ""
}"#,
        &[],
    )
    .expect("AKS config loads");
    insta::assert_snapshot!(
        "aks_unknown_keys_warning",
        loaded.unknown_keys_warning().unwrap_or_default()
    );
    insta::assert_debug_snapshot!("aks_vmss_msi", loaded.config);
}

#[test]
fn vmas_with_client_secret_in_yaml() {
    let loaded = load_file(
        "cloud: AzureCloud\n\
         tenantId: 00000000-0000-0000-0000-000000000001\n\
         subscriptionId: 00000000-0000-0000-0000-000000000002\n\
         aadClientId: 00000000-0000-0000-0000-000000000003\n\
         aadClientSecret: vmas-client-secret-value\n\
         resourceGroup: Cluster-RG\n\
         location: eastus\n\
         vmType: standard\n\
         primaryAvailabilitySetName: agentpool-availabilitySet-12345678\n\
         loadBalancerSku: basic\n\
         securityGroupName: k8s-nsg\n\
         routeTableName: k8s-routetable\n\
         routeTableResourceGroup: Net-RG\n\
         cloudProviderRatelimit: true\n\
         cloudProviderRatelimitQPS: 6\n\
         cloudProviderRatelimitBucket: 20\n\
         loadBalancerRateLimit:\n\
         \x20 cloudProviderRateLimit: true\n\
         \x20 cloudProviderRateLimitQPS: 2\n\
         tags: team=platform,env=prod\n\
         useInstanceMetadata: false\n",
        &[],
    )
    .expect("VMAS config loads");
    assert!(loaded.unknown_keys.is_empty(), "{:?}", loaded.unknown_keys);
    insta::assert_debug_snapshot!("vmas_client_secret", loaded.config);
}

#[test]
fn azure_stack_custom_cloud_against_the_fakes() {
    let loaded = load_file(
        r#"{
    "cloud": "AzureStackCloud",
    "disableAzureStackCloud": true,
    "resourceManagerEndpoint": "https://127.0.0.1:8443/",
    "tenantId": "11111111-1111-1111-1111-111111111111",
    "subscriptionId": "22222222-2222-2222-2222-222222222222",
    "aadClientId": "33333333-3333-3333-3333-333333333333",
    "aadClientCertPath": "/etc/kubernetes/certs/client.pfx",
    "aadClientCertPassword": "pfx-password-value",
    "resourceGroup": "stack-rg",
    "location": "local",
    "vmType": "standard",
    "loadBalancerSku": "basic",
    "useInstanceMetadata": false
}"#,
        &[(
            "AZURE_ENVIRONMENT_FILEPATH",
            "/etc/kubernetes/azurestackcloud.json",
        )],
    )
    .expect("Azure Stack config loads");
    insta::assert_debug_snapshot!("azure_stack_certificate", loaded.config);
}

#[test]
fn workload_identity_from_the_webhook_environment() {
    let loaded = load_file(
        r#"{
    "cloud": "AzurePublicCloud",
    "subscriptionId": "44444444-4444-4444-4444-444444444444",
    "resourceGroup": "wi-rg",
    "location": "northeurope",
    "vmType": "vmssflex",
    "loadBalancerBackendPoolConfigurationType": "nodeIP",
    "clusterServiceLoadBalancerHealthProbeMode": "shared"
}"#,
        &[
            ("AZURE_TENANT_ID", "55555555-5555-5555-5555-555555555555"),
            ("AZURE_CLIENT_ID", "66666666-6666-6666-6666-666666666666"),
            (
                "AZURE_FEDERATED_TOKEN_FILE",
                "/var/run/secrets/azure/tokens/azure-identity-token",
            ),
            ("AZURE_AUTHORITY_HOST", "https://login.microsoftonline.com/"),
        ],
    )
    .expect("workload identity config loads");
    assert_eq!(
        loaded.config.identity.credential_kind(),
        Some(crate::config::CredentialKind::WorkloadIdentity)
    );
    insta::assert_debug_snapshot!("workload_identity", loaded.config);
}
