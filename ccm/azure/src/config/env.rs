//! `AZURE_*` environment overrides (workload-identity webhook variables), as a pure function of
//! the environment map so tests never touch the process environment.

use std::collections::BTreeMap;

use super::document::AzureJson;
use super::secret::SecretString;

/// `tenantId` override.
pub const AZURE_TENANT_ID: &str = "AZURE_TENANT_ID";
/// `aadClientId` override.
pub const AZURE_CLIENT_ID: &str = "AZURE_CLIENT_ID";
/// `aadFederatedTokenFile` override; also turns workload identity on.
pub const AZURE_FEDERATED_TOKEN_FILE: &str = "AZURE_FEDERATED_TOKEN_FILE";
/// `aadClientSecret` override.
pub const AZURE_CLIENT_SECRET: &str = "AZURE_CLIENT_SECRET";
/// Custom cloud endpoints file for `cloud: AzureStackCloud`.
pub const AZURE_ENVIRONMENT_FILEPATH: &str = "AZURE_ENVIRONMENT_FILEPATH";

fn non_empty<'a>(env: &'a BTreeMap<String, String>, name: &str) -> Option<&'a str> {
    env.get(name)
        .map(String::as_str)
        .filter(|value| !value.is_empty())
}

/// The document with the environment's overrides applied (unset or empty variables change nothing).
pub fn apply_env(mut document: AzureJson, env: &BTreeMap<String, String>) -> AzureJson {
    if let Some(tenant) = non_empty(env, AZURE_TENANT_ID) {
        document.tenant_id = Some(tenant.to_string());
    }
    if let Some(client) = non_empty(env, AZURE_CLIENT_ID) {
        document.aad_client_id = Some(client.to_string());
    }
    if let Some(file) = non_empty(env, AZURE_FEDERATED_TOKEN_FILE) {
        document.aad_federated_token_file = Some(file.to_string());
        document.use_federated_workload_identity_extension = Some(true);
    }
    if let Some(secret) = non_empty(env, AZURE_CLIENT_SECRET) {
        document.aad_client_secret = Some(SecretString::new(secret));
    }
    document
}

/// `AZURE_ENVIRONMENT_FILEPATH`, when set.
pub fn environment_file_path(env: &BTreeMap<String, String>) -> Option<String> {
    non_empty(env, AZURE_ENVIRONMENT_FILEPATH).map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn workload_identity_variables_override_and_switch_wi_on() {
        let document = AzureJson {
            tenant_id: Some("from-file".into()),
            aad_client_id: Some("file-client".into()),
            ..AzureJson::default()
        };
        let out = apply_env(
            document,
            &env(&[
                (AZURE_TENANT_ID, "env-tenant"),
                (AZURE_CLIENT_ID, "env-client"),
                (
                    AZURE_FEDERATED_TOKEN_FILE,
                    "/var/run/secrets/azure/tokens/azure-identity-token",
                ),
                (AZURE_CLIENT_SECRET, "env-secret"),
            ]),
        );
        assert_eq!(out.tenant_id.as_deref(), Some("env-tenant"));
        assert_eq!(out.aad_client_id.as_deref(), Some("env-client"));
        assert_eq!(out.use_federated_workload_identity_extension, Some(true));
        assert_eq!(
            out.aad_client_secret.as_ref().map(SecretString::expose),
            Some("env-secret")
        );
    }

    #[test]
    fn empty_or_missing_variables_change_nothing() {
        let document = AzureJson {
            tenant_id: Some("from-file".into()),
            ..AzureJson::default()
        };
        let out = apply_env(document.clone(), &env(&[(AZURE_TENANT_ID, "")]));
        assert_eq!(out, document);
        assert_eq!(environment_file_path(&env(&[])), None);
    }
}
