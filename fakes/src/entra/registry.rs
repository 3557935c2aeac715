//! Tenants and the app registrations the fake Entra ID knows: client secrets, certificates and
//! federated (workload identity) credentials. Filled from the topology seed file or a snapshot.
//!
//! Secrets are kept only as SHA-256 digests, so a snapshot or an admin dump never carries them.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Audience Kubernetes projects into workload-identity service-account tokens.
pub const DEFAULT_FEDERATED_AUDIENCE: &str = "api://AzureADTokenExchange";

/// Every tenant and app the token endpoint accepts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Registry {
    /// Known directories.
    #[serde(default)]
    pub tenants: Vec<Tenant>,
}

/// One directory (tenant) and its app registrations.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Tenant {
    /// Tenant GUID (matched case-insensitively, as Entra does).
    pub tenant_id: String,
    /// App registrations / service principals in this tenant.
    #[serde(default)]
    pub apps: Vec<AppRegistration>,
}

/// An app registration with its service principal's credentials.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AppRegistration {
    /// Application (client) id.
    pub client_id: String,
    /// Service principal object id (token `oid`); derived from tenant + client id when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_id: Option<String>,
    /// Display name, for messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    /// Client secrets (plain text in a seed file, digests once loaded).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub secrets: Vec<ClientSecret>,
    /// PEM certificates whose keys may sign client assertions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub certificates: Vec<String>,
    /// Federated identity credentials (workload identity).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub federated_credentials: Vec<FederatedCredential>,
}

/// A client secret, stored as its SHA-256 digest. A seed file may give the plain value (a string);
/// it is hashed on load and only `{"sha256": ...}` is ever written back.
#[derive(Clone, PartialEq, Eq)]
pub struct ClientSecret {
    sha256: String,
}

impl ClientSecret {
    /// Registers `plain` (hashing it immediately).
    pub fn from_plain(plain: &str) -> Self {
        Self {
            sha256: digest(plain),
        }
    }

    /// Whether `candidate` is this secret (digests compared in constant time).
    pub fn matches(&self, candidate: &str) -> bool {
        let candidate = digest(candidate);
        // Comparing digests leaks nothing useful about the secret; fold anyway to avoid early exit.
        candidate.len() == self.sha256.len()
            && candidate
                .bytes()
                .zip(self.sha256.bytes())
                .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                == 0
    }
}

impl std::fmt::Debug for ClientSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ClientSecret(<redacted>)")
    }
}

#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum SecretRepr {
    Plain(String),
    Hashed { sha256: String },
}

impl Serialize for ClientSecret {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        SecretRepr::Hashed {
            sha256: self.sha256.clone(),
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ClientSecret {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match SecretRepr::deserialize(deserializer)? {
            SecretRepr::Plain(plain) => Ok(Self::from_plain(&plain)),
            SecretRepr::Hashed { sha256 } => {
                if sha256.len() == 64 && sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
                    Ok(Self {
                        sha256: sha256.to_ascii_lowercase(),
                    })
                } else {
                    Err(serde::de::Error::custom("sha256 must be 64 hex characters"))
                }
            }
        }
    }
}

/// A federated identity credential: trusts tokens from `issuer` about `subject` for `audiences`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FederatedCredential {
    /// Credential name (for messages).
    pub name: String,
    /// Expected `iss` of the assertion (the cluster's service-account issuer URL).
    pub issuer: String,
    /// Expected `sub` (e.g. `system:serviceaccount:kube-system:cloud-controller-manager`).
    pub subject: String,
    /// Accepted `aud` values.
    #[serde(default = "default_audiences")]
    pub audiences: Vec<String>,
    /// PEM public keys (SPKI) or certificates of the issuer. Real Entra fetches the issuer's JWKS;
    /// offline the fake cannot, so signatures are checked only when keys are given here.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub issuer_keys: Vec<String>,
}

fn default_audiences() -> Vec<String> {
    vec![DEFAULT_FEDERATED_AUDIENCE.to_string()]
}

impl Registry {
    /// Tenant by id, case-insensitively.
    pub fn tenant(&self, tenant_id: &str) -> Option<&Tenant> {
        self.tenants
            .iter()
            .find(|t| t.tenant_id.eq_ignore_ascii_case(tenant_id))
    }

    /// Adds (or merges into) a tenant; used by seeding code.
    pub fn tenant_mut(&mut self, tenant_id: &str) -> &mut Tenant {
        let position = self
            .tenants
            .iter()
            .position(|t| t.tenant_id.eq_ignore_ascii_case(tenant_id));
        let index = match position {
            Some(i) => i,
            None => {
                self.tenants.push(Tenant {
                    tenant_id: tenant_id.to_string(),
                    apps: Vec::new(),
                });
                self.tenants.len() - 1
            }
        };
        &mut self.tenants[index]
    }

    /// Merges `other` into this registry (apps with the same client id are replaced).
    pub fn merge(&mut self, other: Registry) {
        for tenant in other.tenants {
            let target = self.tenant_mut(&tenant.tenant_id);
            for app in tenant.apps {
                target
                    .apps
                    .retain(|a| !a.client_id.eq_ignore_ascii_case(&app.client_id));
                target.apps.push(app);
            }
        }
    }
}

impl Tenant {
    /// App by client id, case-insensitively.
    pub fn app(&self, client_id: &str) -> Option<&AppRegistration> {
        self.apps
            .iter()
            .find(|a| a.client_id.eq_ignore_ascii_case(client_id))
    }
}

impl AppRegistration {
    /// A bare app with one secret (tests and CLI defaults).
    pub fn with_secret(client_id: &str, secret: &str) -> Self {
        Self {
            client_id: client_id.to_string(),
            object_id: None,
            display_name: None,
            secrets: vec![ClientSecret::from_plain(secret)],
            certificates: Vec::new(),
            federated_credentials: Vec::new(),
        }
    }
}

fn digest(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_secrets_are_hashed_on_load_and_never_written_back() {
        let yaml = "tenants:\n- tenantId: T1\n  apps:\n  - clientId: app\n    secrets: [hunter2]\n";
        let registry: Registry = serde_saphyr::from_str(yaml).unwrap();
        let app = registry.tenant("t1").unwrap().app("APP").unwrap();
        assert!(app.secrets[0].matches("hunter2"));
        assert!(!app.secrets[0].matches("hunter3"));
        let json = serde_json::to_string(&registry).unwrap();
        assert!(!json.contains("hunter2"), "{json}");
        let back: Registry = serde_json::from_str(&json).unwrap();
        assert_eq!(back, registry);
        assert!(!format!("{registry:?}").contains("hunter2"));
    }

    #[test]
    fn federated_audience_defaults_to_the_token_exchange_audience() {
        let json = r#"{"name":"ccm","issuer":"https://oidc","subject":"system:serviceaccount:kube-system:ccm"}"#;
        let fc: FederatedCredential = serde_json::from_str(json).unwrap();
        assert_eq!(fc.audiences, vec![DEFAULT_FEDERATED_AUDIENCE.to_string()]);
    }

    #[test]
    fn unknown_fields_are_rejected() {
        let err = serde_json::from_str::<Registry>(r#"{"tenants":[{"tenantId":"t","appz":[]}]}"#)
            .unwrap_err();
        assert!(err.to_string().contains("appz"), "{err}");
    }

    #[test]
    fn merge_replaces_apps_with_the_same_client_id() {
        let mut a = Registry::default();
        a.tenant_mut("t")
            .apps
            .push(AppRegistration::with_secret("c", "one"));
        let mut b = Registry::default();
        b.tenant_mut("T")
            .apps
            .push(AppRegistration::with_secret("C", "two"));
        a.merge(b);
        let apps = &a.tenant("t").unwrap().apps;
        assert_eq!(apps.len(), 1);
        assert!(apps[0].secrets[0].matches("two"));
    }
}
