//! What the Azure controller managers host their controllers with: the Azure provider built from
//! the cloud config (its ARM metrics registered), its cluster feeds and the controllers' metrics.

use std::sync::Arc;

use ccm_azure::config::Config;
use ccm_azure::metrics::ArmMetrics;
use ccm_azure::provider::AzureProvider;
use ccm_controllers::host::{BuildInputs, ControllerMetrics, ControllerSettings};
use ccm_controllers::node_cache::NodeFeed;
use prometheus_client::registry::Registry;

use crate::azure_feeds::AzureFeeds;
use crate::cloud_config;

/// Builds the inputs of every hosted controller from a cloud config, over metric families
/// registered once and the process's one Node feed: a reloaded config gets a new provider that
/// reports to the same metrics and reads the same (still running) Node cache.
#[derive(Clone)]
pub struct InputsFactory {
    client: kube::Client,
    nodes: NodeFeed,
    arm_metrics: ArmMetrics,
    metrics: ControllerMetrics,
    settings: ControllerSettings,
}

impl InputsFactory {
    /// Registers the ARM and controller metric families in `registry`.
    pub fn register(
        client: &kube::Client,
        registry: &mut Registry,
        settings: ControllerSettings,
    ) -> InputsFactory {
        InputsFactory {
            client: client.clone(),
            nodes: NodeFeed::new(client.clone(), NodeFeed::watch_config(None)),
            arm_metrics: ArmMetrics::register(registry),
            metrics: ControllerMetrics::register(registry),
            settings,
        }
    }

    /// A new provider for `config` and the inputs over it.
    pub async fn inputs(&self, config: &Config) -> anyhow::Result<BuildInputs<AzureProvider>> {
        let provider = Arc::new(cloud_config::provider(config, self.arm_metrics.clone()).await?);
        Ok(BuildInputs {
            client: self.client.clone(),
            feeds: Arc::new(AzureFeeds::new(&provider)),
            provider,
            settings: self.settings.clone(),
            metrics: self.metrics.clone(),
            nodes: self.nodes.clone(),
        })
    }
}

/// Builds the provider for `config` and the inputs of every hosted controller, registering the
/// ARM and controller metric families in `registry`.
pub async fn build_inputs(
    client: &kube::Client,
    config: &Config,
    registry: &mut Registry,
    settings: ControllerSettings,
) -> anyhow::Result<BuildInputs<AzureProvider>> {
    InputsFactory::register(client, registry, settings)
        .inputs(config)
        .await
}
