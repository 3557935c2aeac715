//! Precedence and planning: azure.json (through the real config pipeline) → which credential.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::error::CredentialError;
use super::plan::{CredentialPlan, ManagedIdentityId, plan};
use crate::config::{Identity, Inputs, Origin, SourceText, load};

const TENANT: &str = "72f988bf-86f1-41af-91ab-2d7cd011db47";
const CLIENT: &str = "6e1b3c52-6a1f-4d0e-9a3b-3c2f7d9e0a11";

/// The identity of an azure.json holding `keys` (plus tenant, subscription, client ID).
fn identity(keys: &str, env: &[(&str, &str)]) -> Identity {
    let origin = Origin::File("/etc/kubernetes/azure.json".into());
    let text = format!(
        r#"{{"tenantId": "{TENANT}", "subscriptionId": "s", "aadClientId": "{CLIENT}",
             "resourceGroup": "rg", "location": "eastus", "useInstanceMetadata": true {keys}}}"#
    );
    let inputs = Inputs {
        file: Some(SourceText {
            origin: &origin,
            text: &text,
        }),
        secret: None,
        env: env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<BTreeMap<_, _>>(),
    };
    load(&inputs).expect("config loads").config.identity
}

const EVERYTHING: &str = r#", "useFederatedWorkloadIdentityExtension": true,
    "aadFederatedTokenFile": "/var/run/token", "useManagedIdentityExtension": true,
    "aadClientSecret": "s3cret", "aadClientCertPath": "/etc/cert.pem""#;

#[test]
fn workload_identity_wins_over_everything() {
    assert_eq!(
        plan(&identity(EVERYTHING, &[])).expect("plan"),
        CredentialPlan::WorkloadIdentity {
            tenant_id: TENANT.into(),
            client_id: CLIENT.into(),
            token_file: PathBuf::from("/var/run/token"),
        }
    );
}

#[test]
fn the_webhook_environment_selects_workload_identity() {
    let planned = plan(&identity(
        r#", "aadClientSecret": "s3cret""#,
        &[(
            "AZURE_FEDERATED_TOKEN_FILE",
            "/var/run/secrets/azure/tokens/azure-identity-token",
        )],
    ))
    .expect("plan");
    assert!(
        matches!(planned, CredentialPlan::WorkloadIdentity { .. }),
        "{planned:?}"
    );
}

#[test]
fn managed_identity_beats_secret_and_certificate() {
    let keys = r#", "useManagedIdentityExtension": true, "aadClientSecret": "s3cret",
                   "aadClientCertPath": "/etc/cert.pem""#;
    assert_eq!(
        plan(&identity(keys, &[])).expect("plan"),
        CredentialPlan::ManagedIdentity(ManagedIdentityId::System)
    );
}

#[test]
fn user_assigned_identity_by_client_id_or_resource_id() {
    let by_client =
        r#", "useManagedIdentityExtension": true, "userAssignedIdentityID": "9a0c1b2d""#;
    assert_eq!(
        plan(&identity(by_client, &[])).expect("plan"),
        CredentialPlan::ManagedIdentity(ManagedIdentityId::ClientId("9a0c1b2d".into()))
    );
    let id = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/kubelet";
    let by_resource =
        format!(r#", "useManagedIdentityExtension": true, "userAssignedIdentityID": "{id}""#);
    assert_eq!(
        plan(&identity(&by_resource, &[])).expect("plan"),
        CredentialPlan::ManagedIdentity(ManagedIdentityId::ResourceId(id.into()))
    );
}

#[test]
fn secret_beats_certificate_and_certificate_is_last() {
    let both = r#", "aadClientSecret": "s3cret", "aadClientCertPath": "/etc/cert.pem""#;
    assert!(matches!(
        plan(&identity(both, &[])).expect("plan"),
        CredentialPlan::ClientSecret { .. }
    ));
    let cert = r#", "aadClientCertPath": "/etc/cert.pfx", "aadClientCertPassword": "pw""#;
    assert_eq!(
        plan(&identity(cert, &[])).expect("plan"),
        CredentialPlan::ClientCertificate {
            tenant_id: TENANT.into(),
            client_id: CLIENT.into(),
            path: PathBuf::from("/etc/cert.pfx"),
        }
    );
}

#[test]
fn nothing_configured_and_missing_keys_are_typed_errors() {
    assert!(matches!(
        plan(&identity("", &[])),
        Err(CredentialError::NoCredential)
    ));
    let no_file = r#", "useFederatedWorkloadIdentityExtension": true"#;
    let error = plan(&identity(no_file, &[])).expect_err("no token file");
    assert_eq!(
        error.to_string(),
        "workload identity needs 'aadFederatedTokenFile', which is empty"
    );
}

#[test]
fn errors_and_debug_never_show_the_secret() {
    let identity = identity(r#", "aadClientSecret": "s3cret-value-42""#, &[]);
    let planned = plan(&identity).expect("plan");
    assert!(!format!("{planned:?}").contains("s3cret-value-42"));
}
