//! `--use-instance-metadata=false`: node metadata from ARM through the full Azure provider built
//! from `--cloud-config`. The Node is resolved by its name (`--node-name`), never by this host's
//! name (upstream asks ARM about `os.Hostname()` there, which fails off-node; issue 12 item 8).

use std::collections::BTreeMap;

use anyhow::Context;
use ccm_azure::cloud::trust;
use ccm_azure::config::{Inputs, Origin, SourceText, load};
use ccm_azure::credential::CredentialOptions;
use ccm_azure::metrics::ArmMetrics;
use ccm_azure::provider::{AzureProvider, ProviderOptions};

use crate::flags::Flags;

/// The Azure provider from `--cloud-config` and the process environment (`AZURE_*`,
/// `SSL_CERT_FILE`, `SSL_CERT_DIR`).
pub async fn provider(
    flags: &Flags,
    registry: &mut prometheus_client::registry::Registry,
) -> anyhow::Result<AzureProvider> {
    let path = flags
        .cloud_config
        .as_ref()
        .context("--use-instance-metadata=false needs --cloud-config")?;
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("--cloud-config {}: cannot read", path.display()))?;
    let origin = Origin::File(path.clone());
    let env: BTreeMap<String, String> = std::env::vars().collect();
    let loaded = load(&Inputs {
        file: Some(SourceText {
            origin: &origin,
            text: &text,
        }),
        secret: None,
        env,
    })
    .with_context(|| format!("--cloud-config {}", path.display()))?;
    if let Some(warning) = loaded.unknown_keys_warning() {
        tracing::warn!("{warning}");
    }
    let http = trust::client_from_process_env().context("trust roots for Azure")?;
    let options = ProviderOptions {
        credentials: CredentialOptions::new(http),
        metrics: ArmMetrics::register(registry),
    };
    AzureProvider::new(&loaded.config, options)
        .await
        .with_context(|| {
            format!(
                "--cloud-config {}: building the Azure provider",
                path.display()
            )
        })
}
