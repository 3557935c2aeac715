//! Azure as a real cluster's CCM reaches it: the azure.json parsed and validated by the CCM's own
//! code (every credential kind the CCM supports, the process's `AZURE_*` overrides and
//! `SSL_CERT_FILE`), the credential gated by the [`ReadBudget`], and one ARM client shared by the
//! snapshot reads and the CCM's provider (node resolution, load balancer dry run).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use azure_ccm::cloud_config::{CloudConfigSource, parse};
use ccm_azure::arm::api_versions::CloudFlavor;
use ccm_azure::arm::{ArmClient, ArmClientOptions};
use ccm_azure::cloud::trust;
use ccm_azure::config::{Cloud, Config};
use ccm_azure::credential::{CredentialOptions, Credentials};
use ccm_azure::metrics::ArmMetrics;
use ccm_azure::provider::AzureProvider;

use super::budget::ReadBudget;
use super::error::RealClusterError;

/// A parsed azure.json and the ARM client built from it.
#[derive(Clone)]
pub struct RealAzure {
    /// The resolved configuration (its `Display` redacts secrets).
    pub config: Config,
    /// ARM, through the budget.
    pub arm: ArmClient,
    /// ARM base URL.
    pub endpoint: String,
    /// The file it was read from.
    pub source: PathBuf,
}

impl std::fmt::Debug for RealAzure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RealAzure")
            .field("config", &self.config.to_string())
            .field("endpoint", &self.endpoint)
            .field("source", &self.source)
            .finish_non_exhaustive()
    }
}

/// Reads and validates the azure.json at `path` the way the CCM does.
pub fn load_config(path: &Path) -> Result<Config, RealClusterError> {
    let text = std::fs::read_to_string(path).map_err(|source| RealClusterError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    config_from_text(path, &text)
}

/// Validates azure.json `text` (read from `path`) the way the CCM does.
pub fn config_from_text(path: &Path, text: &str) -> Result<Config, RealClusterError> {
    parse(&CloudConfigSource::File(path.to_path_buf()), text).map_err(|e| {
        RealClusterError::CloudConfig {
            path: path.to_path_buf(),
            reason: format!("{e:#}"),
        }
    })
}

/// The api-version flavour the CCM uses for `config`.
pub fn flavor(config: &Config) -> CloudFlavor {
    let identity = &config.identity;
    if identity.cloud == Cloud::Stack && !identity.disable_azure_stack_cloud {
        CloudFlavor::AzureStack
    } else {
        CloudFlavor::Public
    }
}

impl RealAzure {
    /// Resolves the cloud, builds the credential (gated by `budget`) and the ARM client, trusting
    /// the system roots and the process's `SSL_CERT_FILE`/`SSL_CERT_DIR`, as the CCM does.
    pub async fn connect(
        config: Config,
        source: &Path,
        budget: &ReadBudget,
    ) -> Result<RealAzure, RealClusterError> {
        let http = trust::client_from_process_env().map_err(|e| RealClusterError::Azure {
            path: source.to_path_buf(),
            reason: e.to_string(),
        })?;
        Self::connect_with(config, source, budget, http).await
    }

    /// [`Self::connect`] over a given HTTPS client (tests pass one trusting a fake's CA).
    pub async fn connect_with(
        config: Config,
        source: &Path,
        budget: &ReadBudget,
        http: reqwest::Client,
    ) -> Result<RealAzure, RealClusterError> {
        let azure_error = |reason: String| RealClusterError::Azure {
            path: source.to_path_buf(),
            reason,
        };
        let credentials =
            Credentials::from_config(&config.identity, &CredentialOptions::new(http.clone()))
                .await
                .map_err(|e| azure_error(e.to_string()))?;
        let endpoint = credentials.cloud.resource_manager.clone();
        let mut options =
            ArmClientOptions::from_config(&config, endpoint.clone(), credentials.arm_scope())
                .map_err(|e| azure_error(e.to_string()))?;
        if let Some(network) = &credentials.network {
            options
                .auxiliary
                .push(budget.gate(Arc::clone(&network.auxiliary)));
        }
        let mut registry = prometheus_client::registry::Registry::default();
        let arm = ArmClient::new(
            options,
            budget.gate(Arc::clone(&credentials.credential)),
            http,
            ArmMetrics::register(&mut registry),
        );
        Ok(RealAzure {
            config,
            arm,
            endpoint: endpoint.to_string(),
            source: source.to_path_buf(),
        })
    }

    /// The CCM's provider over this client (reads only: the harness calls no write path).
    pub fn provider(&self) -> AzureProvider {
        AzureProvider::with_arm(&self.config, self.arm.clone())
    }
}
