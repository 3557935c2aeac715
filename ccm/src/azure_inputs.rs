//! What the Azure controller managers host their controllers with: the Azure provider built from
//! the cloud config (its ARM metrics registered), its cluster feeds and the controllers' metrics.

use std::sync::Arc;

use ccm_azure::config::Config;
use ccm_azure::metrics::ArmMetrics;
use ccm_azure::provider::AzureProvider;
use ccm_controllers::host::{BuildInputs, ControllerMetrics, ControllerSettings};
use prometheus_client::registry::Registry;

use crate::azure_feeds::AzureFeeds;
use crate::cloud_config;

/// Builds the provider for `config` and the inputs of every hosted controller, registering the
/// ARM and controller metric families in `registry`.
pub async fn build_inputs(
    client: &kube::Client,
    config: &Config,
    registry: &mut Registry,
    settings: ControllerSettings,
) -> anyhow::Result<BuildInputs<AzureProvider>> {
    let arm_metrics = ArmMetrics::register(registry);
    let metrics = ControllerMetrics::register(registry);
    let provider = Arc::new(cloud_config::provider(config, arm_metrics).await?);
    Ok(BuildInputs {
        client: client.clone(),
        feeds: Arc::new(AzureFeeds::new(&provider)),
        provider,
        settings,
        metrics,
    })
}
