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

/// Reads and validates the cloud config (the `Display` of the result redacts secrets), with the
/// text read: the baseline dynamic reloading compares against.
pub async fn read_with_text(
    source: &CloudConfigSource,
    client: &kube::Client,
) -> anyhow::Result<(Config, String)> {
    let text = fetch(source, client).await?;
    let config = parse(source, &text)?;
    tracing::info!(config = %config, "cloud config loaded from {}", describe(source));
    Ok((config, text))
}

/// How a source is named in messages: the flag and the file or Secret.
pub fn describe(source: &CloudConfigSource) -> String {
    match source {
        CloudConfigSource::File(path) => format!("--cloud-config {}", path.display()),
        CloudConfigSource::Secret {
            namespace,
            name,
            key,
        } => format!("--cloud-config-secret-name {namespace}/{name} key {key}"),
    }
}

/// The raw text of the cloud config: the file, or the key of the Secret.
pub async fn fetch(source: &CloudConfigSource, client: &kube::Client) -> anyhow::Result<String> {
    let what = describe(source);
    match source {
        CloudConfigSource::File(path) => std::fs::read_to_string(path)
            .with_context(|| format!("--cloud-config {}: cannot read", path.display())),
        CloudConfigSource::Secret {
            namespace, name, ..
        } => {
            let secrets: kube::Api<Secret> = kube::Api::namespaced(client.clone(), namespace);
            let secret = secrets
                .get(name)
                .await
                .with_context(|| format!("{what}: cannot read the Secret"))?;
            secret_text(source, &secret)
        }
    }
}

/// The cloud config text held by `secret` under the source's key.
pub fn secret_text(source: &CloudConfigSource, secret: &Secret) -> anyhow::Result<String> {
    let what = describe(source);
    let CloudConfigSource::Secret { key, .. } = source else {
        bail!("{what}: not a Secret source");
    };
    let Some(bytes) = secret.data.as_ref().and_then(|d| d.get(key)) else {
        bail!("{what}: the Secret has no such key");
    };
    String::from_utf8(bytes.0.clone())
        .map_err(|_| anyhow::anyhow!("{what}: the value is not UTF-8"))
}

/// Parses and validates `text` read from `source` (with the process environment); errors name
/// the source and the field.
pub fn parse(source: &CloudConfigSource, text: &str) -> anyhow::Result<Config> {
    let what = describe(source);
    let origin = match source {
        CloudConfigSource::File(path) => Origin::File(path.clone()),
        CloudConfigSource::Secret {
            namespace,
            name,
            key,
        } => Origin::Secret {
            namespace: namespace.clone(),
            name: name.clone(),
            key: key.clone(),
        },
    };
    let env: BTreeMap<String, String> = std::env::vars().collect();
    let text = SourceText {
        origin: &origin,
        text,
    };
    let (file, secret) = match origin {
        Origin::File(_) => (Some(text), None),
        _ => (None, Some(text)),
    };
    let loaded = load(&Inputs { file, secret, env }).with_context(|| what.clone())?;
    if let Some(warning) = loaded.unknown_keys_warning() {
        tracing::warn!("{warning}");
    }
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
