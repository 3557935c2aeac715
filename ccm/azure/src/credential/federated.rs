//! Workload identity's client assertion: the projected service-account token in
//! `aadFederatedTokenFile`, re-read on every token fetch because the kubelet rotates it.

use std::path::{Path, PathBuf};

use azure_core::http::ClientMethodOptions;
use azure_identity::ClientAssertion;

use super::error::CredentialError;

/// The azure.json key naming the file, for errors.
const KEY: &str = "aadFederatedTokenFile";

/// Reads the federated token from its file each time Entra ID needs an assertion.
#[derive(Debug, Clone)]
pub struct FederatedTokenFile {
    path: PathBuf,
}

impl FederatedTokenFile {
    /// Checks the file is readable and non-empty now (so a bad path fails at start) and keeps its path.
    pub fn new(path: &Path) -> Result<Self, CredentialError> {
        read(path)?;
        Ok(Self {
            path: path.to_path_buf(),
        })
    }
}

/// The token in `path`, trimmed.
fn read(path: &Path) -> Result<String, CredentialError> {
    let text = std::fs::read_to_string(path).map_err(|source| CredentialError::ReadFile {
        key: KEY,
        path: path.to_path_buf(),
        source,
    })?;
    let token = text.trim();
    if token.is_empty() {
        return Err(CredentialError::BadFile {
            key: KEY,
            path: path.to_path_buf(),
            reason: "the federated token file is empty".to_string(),
        });
    }
    Ok(token.to_string())
}

#[async_trait::async_trait]
impl ClientAssertion for FederatedTokenFile {
    async fn secret(&self, _: Option<ClientMethodOptions<'_>>) -> azure_core::Result<String> {
        let path = self.path.clone();
        tokio::task::spawn_blocking(move || read(&path))
            .await
            .map_err(|e| azure_core::Error::new(azure_core::error::ErrorKind::Credential, e))?
            .map_err(CredentialError::into_azure)
    }
}
