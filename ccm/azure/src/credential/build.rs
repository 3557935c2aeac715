//! Turns the config's identity and a cloud's endpoints into the `TokenCredential` ARM calls use
//! (and the network tenant's, when there is one).

use std::fmt;
use std::sync::Arc;

use azure_core::credentials::{Secret, TokenCredential};
use azure_identity::{
    ClientAssertionCredential, ClientAssertionCredentialOptions, ClientSecretCredential,
    ClientSecretCredentialOptions, ManagedIdentityCredential, ManagedIdentityCredentialOptions,
    UserAssignedId,
};

use super::certificate::Certificate;
use super::error::CredentialError;
use super::federated::FederatedTokenFile;
use super::imds_token::ImdsManagedIdentity;
use super::jwt::CertificateAssertion;
use super::network::NetworkTenant;
use super::options::CredentialOptions;
use super::plan::{CredentialPlan, ManagedIdentityId, kind_name, plan};
use crate::cloud::{self, CloudEndpoints};
use crate::config::{CredentialKind, Identity};

/// The credentials of one CCM process: the main one, and the network tenant's when configured.
/// `Debug` prints the kind, cloud and tenants, never a secret.
#[derive(Clone)]
pub struct Credentials {
    /// Which kind was built.
    pub kind: CredentialKind,
    /// The cloud the tokens are for.
    pub cloud: CloudEndpoints,
    /// The main credential (subscription `subscriptionId`, tenant `tenantId`).
    pub credential: Arc<dyn TokenCredential>,
    /// Network resources in another tenant, when `networkResourceTenantID` differs from `tenantId`.
    pub network: Option<NetworkTenant>,
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Credentials")
            .field("kind", &self.kind)
            .field("cloud", &self.cloud.name)
            .field("network", &self.network)
            .finish_non_exhaustive()
    }
}

impl Credentials {
    /// The scope ARM tokens are requested with.
    pub fn arm_scope(&self) -> String {
        self.cloud.arm_scope()
    }

    /// Resolves the cloud (discovery at most once per process) and builds the credentials.
    pub async fn from_config(
        identity: &Identity,
        options: &CredentialOptions,
    ) -> Result<Credentials, CredentialError> {
        let endpoints = cloud::resolve(identity, &options.http).await?;
        Self::build(identity, &endpoints, options)
    }

    /// Builds the credentials for `identity` against `endpoints`, in upstream's precedence.
    pub fn build(
        identity: &Identity,
        endpoints: &CloudEndpoints,
        options: &CredentialOptions,
    ) -> Result<Credentials, CredentialError> {
        let plan = plan(identity)?;
        let kind = plan.kind();
        tracing::info!(credential = kind_name(kind), cloud = %endpoints.name, "building Azure credential");
        let credential = main_credential(&plan, identity, endpoints, options)?;
        let network = match identity
            .network_resource_tenant_id
            .as_deref()
            .filter(|t| !t.is_empty() && !t.eq_ignore_ascii_case(&identity.tenant_id))
        {
            None => None,
            Some(tenant) => Some(NetworkTenant {
                tenant_id: tenant.to_string(),
                credential: in_tenant(&plan, tenant, identity, endpoints, options)?,
                auxiliary: Arc::clone(&credential),
            }),
        };
        Ok(Credentials {
            kind,
            cloud: endpoints.clone(),
            credential,
            network,
        })
    }
}

fn azure(what: &'static str) -> impl FnOnce(azure_core::Error) -> CredentialError {
    move |source| CredentialError::Azure { what, source }
}

fn main_credential(
    plan: &CredentialPlan,
    identity: &Identity,
    endpoints: &CloudEndpoints,
    options: &CredentialOptions,
) -> Result<Arc<dyn TokenCredential>, CredentialError> {
    match plan {
        CredentialPlan::WorkloadIdentity {
            tenant_id,
            client_id,
            token_file,
        } => {
            let assertion = FederatedTokenFile::new(token_file)?;
            let credential = ClientAssertionCredential::new(
                tenant_id.clone(),
                client_id.clone(),
                assertion,
                Some(assertion_options(endpoints, options)),
            )
            .map_err(azure("workload identity"))?;
            Ok(credential)
        }
        CredentialPlan::ManagedIdentity(id) => managed_identity(id, options),
        CredentialPlan::ClientSecret { tenant_id, .. }
        | CredentialPlan::ClientCertificate { tenant_id, .. } => {
            in_tenant(plan, tenant_id, identity, endpoints, options)
        }
    }
}

/// A service-principal credential (secret or certificate) in `tenant`.
fn in_tenant(
    plan: &CredentialPlan,
    tenant: &str,
    identity: &Identity,
    endpoints: &CloudEndpoints,
    options: &CredentialOptions,
) -> Result<Arc<dyn TokenCredential>, CredentialError> {
    match plan {
        CredentialPlan::ClientSecret { client_id, .. } => {
            let credential = ClientSecretCredential::new(
                tenant,
                client_id.clone(),
                Secret::new(identity.aad_client_secret.expose().to_string()),
                Some(ClientSecretCredentialOptions {
                    client_options: client_options(endpoints, options),
                }),
            )
            .map_err(azure("client secret"))?;
            Ok(credential)
        }
        CredentialPlan::ClientCertificate {
            client_id, path, ..
        } => {
            let certificate = Certificate::load(path, identity.aad_client_cert_password.expose())?;
            let token_endpoint = endpoints
                .authority_host
                .join(&format!("/{tenant}/oauth2/v2.0/token"))
                .map_err(|e| CredentialError::Azure {
                    what: "client certificate",
                    source: azure_core::Error::new(azure_core::error::ErrorKind::DataConversion, e),
                })?;
            let assertion = CertificateAssertion {
                certificate: Arc::new(certificate),
                client_id: client_id.clone(),
                token_endpoint: token_endpoint.to_string(),
                send_chain: options.send_certificate_chain,
            };
            let credential = ClientAssertionCredential::new(
                tenant.to_string(),
                client_id.clone(),
                assertion,
                Some(assertion_options(endpoints, options)),
            )
            .map_err(azure("client certificate"))?;
            Ok(credential)
        }
        other => Err(CredentialError::NetworkTenantUnsupported {
            kind: kind_name(other.kind()),
        }),
    }
}

fn client_options(
    endpoints: &CloudEndpoints,
    options: &CredentialOptions,
) -> azure_core::http::ClientOptions {
    let mut client_options = options.client_options();
    client_options.cloud = Some(endpoints.cloud_configuration());
    client_options
}

fn assertion_options(
    endpoints: &CloudEndpoints,
    options: &CredentialOptions,
) -> ClientAssertionCredentialOptions {
    ClientAssertionCredentialOptions {
        client_options: client_options(endpoints, options),
    }
}

fn managed_identity(
    id: &ManagedIdentityId,
    options: &CredentialOptions,
) -> Result<Arc<dyn TokenCredential>, CredentialError> {
    if let Some(base) = &options.imds_endpoint {
        let client =
            ImdsManagedIdentity::new(options.http.clone(), base, id.clone()).map_err(|reason| {
                CredentialError::BadImdsEndpoint {
                    value: base.to_string(),
                    reason,
                }
            })?;
        return Ok(Arc::new(client));
    }
    let user_assigned_id = match id {
        ManagedIdentityId::System => None,
        ManagedIdentityId::ClientId(c) => Some(UserAssignedId::ClientId(c.clone())),
        ManagedIdentityId::ResourceId(r) => Some(UserAssignedId::ResourceId(r.clone())),
    };
    let mi_options = ManagedIdentityCredentialOptions {
        user_assigned_id,
        client_options: options.client_options(),
    };
    let credential =
        ManagedIdentityCredential::new(Some(mi_options)).map_err(azure("managed identity"))?;
    Ok(credential)
}
