//! Which credential the config asks for, in upstream's precedence (workload identity > managed
//! identity > client secret > client certificate), with the inputs each needs: a pure function of
//! the config, so the precedence is tested without a network.

use std::path::PathBuf;

use super::error::CredentialError;
use crate::config::{CredentialKind, Identity};

/// Which managed identity IMDS should issue tokens for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ManagedIdentityId {
    /// The VM's system-assigned identity (or its only user-assigned one).
    System,
    /// A user-assigned identity by client ID (`client_id=`).
    ClientId(String),
    /// A user-assigned identity by ARM resource ID (`msi_res_id=`).
    ResourceId(String),
}

/// The credential to build and its inputs (no secrets: those stay in the config).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CredentialPlan {
    /// Federated token file exchanged at Entra ID.
    WorkloadIdentity {
        /// `tenantId`.
        tenant_id: String,
        /// `aadClientId`.
        client_id: String,
        /// `aadFederatedTokenFile`.
        token_file: PathBuf,
    },
    /// IMDS managed identity.
    ManagedIdentity(ManagedIdentityId),
    /// Service principal with `aadClientSecret`.
    ClientSecret {
        /// `tenantId`.
        tenant_id: String,
        /// `aadClientId`.
        client_id: String,
    },
    /// Service principal with the certificate at `aadClientCertPath`.
    ClientCertificate {
        /// `tenantId`.
        tenant_id: String,
        /// `aadClientId`.
        client_id: String,
        /// `aadClientCertPath`.
        path: PathBuf,
    },
}

impl CredentialPlan {
    /// The kind of credential planned.
    pub fn kind(&self) -> CredentialKind {
        match self {
            Self::WorkloadIdentity { .. } => CredentialKind::WorkloadIdentity,
            Self::ManagedIdentity(_) => CredentialKind::ManagedIdentity,
            Self::ClientSecret { .. } => CredentialKind::ClientSecret,
            Self::ClientCertificate { .. } => CredentialKind::ClientCertificate,
        }
    }
}

/// A human name of `kind`, for errors and logs.
pub fn kind_name(kind: CredentialKind) -> &'static str {
    match kind {
        CredentialKind::WorkloadIdentity => "workload identity",
        CredentialKind::ManagedIdentity => "managed identity",
        CredentialKind::ClientSecret => "client secret",
        CredentialKind::ClientCertificate => "client certificate",
    }
}

fn required(
    value: &str,
    kind: CredentialKind,
    key: &'static str,
) -> Result<String, CredentialError> {
    if value.is_empty() {
        Err(CredentialError::MissingKey {
            kind: kind_name(kind),
            key,
        })
    } else {
        Ok(value.to_string())
    }
}

/// Plans the credential for `identity` (first match wins, see [`Identity::credential_kind`]).
pub fn plan(identity: &Identity) -> Result<CredentialPlan, CredentialError> {
    let kind = identity
        .credential_kind()
        .ok_or(CredentialError::NoCredential)?;
    let tenant = || required(&identity.tenant_id, kind, "tenantId");
    let client = || required(&identity.aad_client_id, kind, "aadClientId");
    Ok(match kind {
        CredentialKind::WorkloadIdentity => CredentialPlan::WorkloadIdentity {
            tenant_id: tenant()?,
            client_id: client()?,
            token_file: PathBuf::from(required(
                identity
                    .aad_federated_token_file
                    .as_deref()
                    .unwrap_or_default(),
                kind,
                "aadFederatedTokenFile",
            )?),
        },
        CredentialKind::ManagedIdentity => CredentialPlan::ManagedIdentity(
            match identity
                .user_assigned_identity_id
                .as_deref()
                .filter(|id| !id.is_empty())
            {
                None => ManagedIdentityId::System,
                // Upstream: an ID containing `/subscriptions/` is a resource ID.
                Some(id) if id.to_ascii_lowercase().contains("/subscriptions/") => {
                    ManagedIdentityId::ResourceId(id.to_string())
                }
                Some(id) => ManagedIdentityId::ClientId(id.to_string()),
            },
        ),
        CredentialKind::ClientSecret => CredentialPlan::ClientSecret {
            tenant_id: tenant()?,
            client_id: client()?,
        },
        CredentialKind::ClientCertificate => CredentialPlan::ClientCertificate {
            tenant_id: tenant()?,
            client_id: client()?,
            path: PathBuf::from(identity.aad_client_cert_path.as_deref().unwrap_or_default()),
        },
    })
}
