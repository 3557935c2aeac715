//! azure.json templates. The same file (same keys) serves the in-tree provider, the CCM and the
//! ACR credential provider, so the migration does not change the effective cloud config (P18).
//! Values in angle brackets are placeholders for the operator; no credential is ever generated.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::Secret;
use serde::{Deserialize, Serialize};

use super::{paths, pod};
use crate::options::{AuthMode, Options};

/// The azure.json keys this generator writes (a subset of the anchor's schema, same spelling).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CloudConfig {
    /// Cloud name.
    pub cloud: String,
    /// Entra tenant.
    pub tenant_id: String,
    /// Subscription of the cluster.
    pub subscription_id: String,
    /// Node resource group.
    pub resource_group: String,
    /// Region.
    pub location: String,
    /// `vmss`, `standard` or `vmssflex`.
    pub vm_type: String,
    /// Virtual network.
    pub vnet_name: String,
    /// Resource group of the virtual network.
    pub vnet_resource_group: String,
    /// Subnet of internal load balancers.
    pub subnet_name: String,
    /// NSG the CCM edits.
    pub security_group_name: String,
    /// Route table (kubenet routes only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub route_table_name: Option<String>,
    /// `standard`.
    pub load_balancer_sku: String,
    /// Use IMDS for the local node.
    pub use_instance_metadata: bool,
    /// Managed identity.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub use_managed_identity_extension: Option<bool>,
    /// User-assigned identity client ID (empty = system-assigned).
    #[serde(
        rename = "userAssignedIdentityID",
        skip_serializing_if = "Option::is_none"
    )]
    pub user_assigned_identity_id: Option<String>,
    /// Service principal / workload identity client ID.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aad_client_id: Option<String>,
    /// Service principal secret (placeholder only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aad_client_secret: Option<String>,
    /// Workload identity switch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub use_federated_workload_identity_extension: Option<bool>,
    /// Projected token path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aad_federated_token_file: Option<String>,
}

/// Identity a cloud config is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Audience {
    /// The node file (in-tree components, host-path CCM, acr-credential-provider).
    Node,
    /// The CCM's own config in workload-identity mode (mounted from a Secret).
    CloudControllerManager,
}

/// Builds the template for an audience.
pub fn build(o: &Options, audience: Audience) -> CloudConfig {
    let mut c = CloudConfig {
        cloud: "AzurePublicCloud".to_string(),
        tenant_id: "<tenant-id>".to_string(),
        subscription_id: "<subscription-id>".to_string(),
        resource_group: "<node-resource-group>".to_string(),
        location: "<location>".to_string(),
        vm_type: "vmss".to_string(),
        vnet_name: "<vnet-name>".to_string(),
        vnet_resource_group: "<vnet-resource-group>".to_string(),
        subnet_name: "<subnet-name>".to_string(),
        security_group_name: "<nsg-name>".to_string(),
        route_table_name: o
            .configure_cloud_routes
            .then(|| "<route-table-name>".to_string()),
        load_balancer_sku: "standard".to_string(),
        use_instance_metadata: true,
        use_managed_identity_extension: None,
        user_assigned_identity_id: None,
        aad_client_id: None,
        aad_client_secret: None,
        use_federated_workload_identity_extension: None,
        aad_federated_token_file: None,
    };
    let auth = match (o.auth, audience) {
        // The node file cannot use workload identity: acr-credential-provider runs on the host.
        (AuthMode::WorkloadIdentity, Audience::Node) => AuthMode::ManagedIdentity,
        (auth, _) => auth,
    };
    match auth {
        AuthMode::ManagedIdentity => {
            c.use_managed_identity_extension = Some(true);
            c.user_assigned_identity_id = Some("<kubelet-identity-client-id>".to_string());
        }
        AuthMode::ServicePrincipal => {
            c.aad_client_id = Some("<client-id>".to_string());
            c.aad_client_secret = Some("<client-secret>".to_string());
        }
        AuthMode::WorkloadIdentity => {
            c.aad_client_id = Some("<ccm-identity-client-id>".to_string());
            c.use_federated_workload_identity_extension = Some(true);
            c.aad_federated_token_file = Some(format!(
                "{}/{}",
                paths::WORKLOAD_IDENTITY_TOKEN_DIR,
                paths::WORKLOAD_IDENTITY_TOKEN_FILE
            ));
        }
    }
    c
}

/// The CCM's cloud config as the Secret its Deployment mounts in workload-identity mode, so the
/// whole out-of-tree set applies with `kubectl apply -f`. It holds no credential (the token is
/// projected into the pod), only placeholders the operator fills in before applying.
pub fn secret(o: &Options) -> Result<Secret, serde_json::Error> {
    let mut json = serde_json::to_string_pretty(&build(o, Audience::CloudControllerManager))?;
    json.push('\n');
    Ok(Secret {
        metadata: pod::kube_system_meta(
            paths::CLOUD_CONFIG_SECRET,
            &[("k8s-app", super::cloud_controller_manager::NAME)],
        ),
        type_: Some("Opaque".to_string()),
        string_data: Some(BTreeMap::from([(
            paths::CLOUD_CONFIG_SECRET_KEY.to_string(),
            json,
        )])),
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::Mode;
    use crate::version::KubeVersion;

    #[test]
    fn workload_identity_secret_holds_the_ccm_config_and_no_credential() {
        let mut o = Options::new(Mode::OutOfTree, KubeVersion::from_minor(33).unwrap());
        o.auth = AuthMode::WorkloadIdentity;
        let s = secret(&o).unwrap();
        assert_eq!(s.metadata.name.as_deref(), Some(paths::CLOUD_CONFIG_SECRET));
        let data = s.string_data.unwrap();
        let config: CloudConfig =
            serde_json::from_str(&data[paths::CLOUD_CONFIG_SECRET_KEY]).unwrap();
        assert_eq!(config.use_federated_workload_identity_extension, Some(true));
        assert_eq!(config.aad_client_secret, None);
        assert_eq!(config.use_managed_identity_extension, None);
    }
}
