//! Why a credential could not be built or could not fetch a token. Every variant names the
//! azure.json key and file at fault; none carries a secret or a token.

use std::path::PathBuf;

use crate::cloud::CloudError;

/// A credential could not be built (or its input went bad later).
#[derive(Debug, thiserror::Error)]
pub enum CredentialError {
    /// No credential is configured.
    #[error(
        "no credentials provided for Azure cloud provider: set useFederatedWorkloadIdentityExtension, \
         useManagedIdentityExtension, aadClientSecret or aadClientCertPath"
    )]
    NoCredential,
    /// A key the chosen credential kind needs is empty.
    #[error("{kind} needs '{key}', which is empty")]
    MissingKey {
        /// The credential kind.
        kind: &'static str,
        /// The azure.json key.
        key: &'static str,
    },
    /// A file named by a key cannot be read.
    #[error("{key}: cannot read {path}: {source}")]
    ReadFile {
        /// The azure.json key naming the file.
        key: &'static str,
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is readable but holds nothing usable (empty token, no key, no certificate...).
    #[error("{key}: {path}: {reason}")]
    BadFile {
        /// The azure.json key naming the file.
        key: &'static str,
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The PFX could not be decrypted with `aadClientCertPassword`.
    #[error("aadClientCertPassword: does not decrypt the PKCS#12 file {path} (aadClientCertPath)")]
    PfxPassword {
        /// The PFX file.
        path: PathBuf,
    },
    /// `networkResourceTenantID` with a credential kind that cannot hold a second tenant.
    #[error(
        "networkResourceTenantID is not supported with {kind} (upstream needs a Key Vault auxiliary \
         token provider there); use a client secret or certificate"
    )]
    NetworkTenantUnsupported {
        /// The credential kind.
        kind: &'static str,
    },
    /// The IMDS endpoint override is not a usable URL.
    #[error("IMDS endpoint '{value}' is not a URL: {reason}")]
    BadImdsEndpoint {
        /// The override.
        value: String,
        /// Why.
        reason: String,
    },
    /// azure_identity refused to build the credential (e.g. a malformed tenant ID).
    #[error("{what}: {source}")]
    Azure {
        /// Which credential.
        what: &'static str,
        /// azure_core's error.
        source: azure_core::Error,
    },
    /// The cloud's endpoints could not be resolved.
    #[error(transparent)]
    Cloud(#[from] CloudError),
}

impl CredentialError {
    /// As an `azure_core` credential error, for failures inside `get_token`.
    pub fn into_azure(self) -> azure_core::Error {
        azure_core::Error::new(azure_core::error::ErrorKind::Credential, self)
    }
}
