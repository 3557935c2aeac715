//! The cloud config (file or Secret), validated and logged redacted, and the Azure provider built
//! from it with the process environment (`AZURE_*`, `SSL_CERT_FILE`, `SSL_CERT_DIR`): shared by
//! `cloud-controller-manager` and the harness's stand-in in-tree `kube-controller-manager`.

use std::collections::BTreeMap;

use anyhow::{Context, bail};
use ccm_azure::cloud::trust;
use ccm_azure::config::{Config, Inputs, Origin, SourceText, load};
use ccm_azure::credential::CredentialOptions;
use ccm_azure::metrics::ArmMetrics;
use ccm_azure::provider::{AzureProvider, ProviderOptions};
use k8s_openapi::api::core::v1::Secret;
use std::path::PathBuf;

/// Where the cloud config is read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CloudConfigSource {
    /// `--cloud-config`.
    File(PathBuf),
    /// `--cloud-config-secret-namespace/--cloud-config-secret-name`, key `--cloud-config-key`.
    Secret {
        /// Namespace.
        namespace: String,
        /// Name.
        name: String,
        /// Data key.
        key: String,
    },
}

/// Reads and validates the cloud config; the `Display` of the result redacts secrets.
pub async fn read(source: &CloudConfigSource, client: &kube::Client) -> anyhow::Result<Config> {
    let (origin, text, what) = match source {
        CloudConfigSource::File(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("--cloud-config {}: cannot read", path.display()))?;
            (
                Origin::File(path.clone()),
                text,
                format!("--cloud-config {}", path.display()),
            )
        }
        CloudConfigSource::Secret {
            namespace,
            name,
            key,
        } => {
            let what = format!("--cloud-config-secret-name {namespace}/{name} key {key}");
            let secrets: kube::Api<Secret> = kube::Api::namespaced(client.clone(), namespace);
            let secret = secrets
                .get(name)
                .await
                .with_context(|| format!("{what}: cannot read the Secret"))?;
            let Some(bytes) = secret.data.and_then(|mut d| d.remove(key)) else {
                bail!("{what}: the Secret has no such key");
            };
            let text = String::from_utf8(bytes.0)
                .map_err(|_| anyhow::anyhow!("{what}: the value is not UTF-8"))?;
            let origin = Origin::Secret {
                namespace: namespace.clone(),
                name: name.clone(),
                key: key.clone(),
            };
            (origin, text, what)
        }
    };
    let env: BTreeMap<String, String> = std::env::vars().collect();
    let source = SourceText {
        origin: &origin,
        text: &text,
    };
    let (file, secret) = match origin {
        Origin::File(_) => (Some(source), None),
        _ => (None, Some(source)),
    };
    let loaded = load(&Inputs { file, secret, env }).with_context(|| what.clone())?;
    if let Some(warning) = loaded.unknown_keys_warning() {
        tracing::warn!("{warning}");
    }
    tracing::info!(config = %loaded.config, "cloud config loaded from {what}");
    Ok(loaded.config)
}

/// The Azure provider for `config`, recording ARM metrics into `metrics`.
pub async fn provider(config: &Config, metrics: ArmMetrics) -> anyhow::Result<AzureProvider> {
    let http = trust::client_from_process_env().context("trust roots for Azure")?;
    let options = ProviderOptions {
        credentials: CredentialOptions::new(http),
        metrics,
    };
    AzureProvider::new(config, options)
        .await
        .context("building the Azure provider from the cloud config")
}
