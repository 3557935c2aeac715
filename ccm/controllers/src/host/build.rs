//! One controller built from a provider, a client and the shared settings, as a future that
//! ends only on failure.

use std::sync::Arc;

use ccm_cloud::Provider;
use ccm_names::controllers::{CLOUD_NODE, CLOUD_NODE_LIFECYCLE, NODE_IPAM, NODE_ROUTE, SERVICE_LB};
use futures::future::BoxFuture;
use tokio::time::Duration;

use super::error::HostError;
use super::feeds::ClusterFeeds;
use super::settings::{ControllerMetrics, ControllerSettings};
use crate::node::{CloudNodeConfig, CloudNodeController};
use crate::node_cache::NodeFeed;
use crate::node_ipam::NodeIpamController;
use crate::node_lifecycle::NodeLifecycleController;
use crate::route::{RouteController, RouteControllerConfig};
use crate::service::{ServiceController, ServiceControllerConfig};

/// A controller ready to run: its future ends only on failure.
pub type Work = BoxFuture<'static, Result<(), HostError>>;

/// node-ipam's retry delay after a failed allocation. **[infer]** upstream requeues with backoff.
const IPAM_RETRY: Duration = Duration::from_secs(10);

/// What every controller is built from.
pub struct BuildInputs<P: Provider> {
    /// Kubernetes client.
    pub client: kube::Client,
    /// The cloud provider.
    pub provider: Arc<P>,
    /// Shared flags.
    pub settings: ControllerSettings,
    /// Metric families.
    pub metrics: ControllerMetrics,
    /// The provider's feeds from the cluster.
    pub feeds: Arc<dyn ClusterFeeds>,
    /// The process's one Node watch and cache (every Node, or the cloud-node-manager's own),
    /// created once and shared by every controller built from these inputs and by the ones built
    /// after a provider reload; started by the first controller that reads it.
    pub nodes: NodeFeed,
}

fn cannot_start(
    controller: &'static str,
) -> impl FnOnce(Box<dyn std::error::Error + Send + Sync>) -> HostError {
    move |source| HostError::Build { controller, source }
}

/// Builds the controller `name` (checks the provider can serve it), or `None` when this build
/// has no such controller or it is off (node-ipam without ranges).
pub fn build<P: Provider>(
    name: &'static str,
    inputs: &BuildInputs<P>,
) -> Result<Option<Work>, HostError> {
    let client = inputs.client.clone();
    let provider = inputs.provider.clone();
    let settings = &inputs.settings;
    let work: Work = match name {
        CLOUD_NODE => {
            let config = CloudNodeConfig {
                node_status_update_frequency: settings.node_status_update_frequency,
                concurrent_node_syncs: settings.concurrent_node_syncs.max(1),
                ..CloudNodeConfig::default()
            };
            let controller =
                CloudNodeController::new(client, provider, config, inputs.metrics.node.clone())
                    .map_err(|e| cannot_start(name)(e.into()))?
                    .with_node_feed(inputs.nodes.clone());
            Box::pin(async move {
                controller.run().await;
                Err(HostError::Stopped { controller: name })
            })
        }
        CLOUD_NODE_LIFECYCLE => {
            let controller =
                NodeLifecycleController::new(client, provider, settings.node_monitor_period)
                    .map_err(|e| cannot_start(name)(e.into()))?
                    .with_node_feed(inputs.nodes.clone());
            Box::pin(async move {
                controller.run().await;
                Err(HostError::Stopped { controller: name })
            })
        }
        NODE_IPAM => {
            let Some(ipam) = &settings.ipam else {
                return Ok(None);
            };
            let controller = NodeIpamController::new(client, ipam, IPAM_RETRY)
                .with_node_feed(inputs.nodes.clone());
            Box::pin(async move {
                controller.run().await.map_err(|e| HostError::Failed {
                    controller: name,
                    source: e.into(),
                })?;
                Err(HostError::Stopped { controller: name })
            })
        }
        SERVICE_LB => {
            let config = ServiceControllerConfig {
                cluster_name: settings.cluster_name.clone(),
                concurrent_service_syncs: settings.concurrent_service_syncs.max(1),
                ..ServiceControllerConfig::default()
            };
            let feeds = Arc::clone(&inputs.feeds);
            let controller =
                ServiceController::new(client, provider, config, inputs.metrics.service.clone())
                    .map_err(|e| cannot_start(name)(e.into()))?
                    .with_node_feed(inputs.nodes.clone())
                    .on_service_store(move |store| feeds.service_store(store));
            Box::pin(async move {
                controller.run().await;
                Err(HostError::Stopped { controller: name })
            })
        }
        NODE_ROUTE => {
            let config = RouteControllerConfig::from_flags(
                &settings.cluster_name,
                &settings.cluster_cidr,
                settings.route_reconciliation_period,
            )
            .map_err(|e| cannot_start(name)(e.into()))?;
            let beside = inputs.feeds.beside_routes(inputs.nodes.clone());
            let controller =
                RouteController::new(client, provider, config, inputs.metrics.route.clone())
                    .map_err(|e| cannot_start(name)(e.into()))?
                    .with_node_feed(inputs.nodes.clone());
            Box::pin(async move {
                let beside = async {
                    match beside {
                        Some(task) => task.await,
                        None => std::future::pending().await,
                    }
                };
                tokio::select! {
                    () = controller.run() => {}
                    () = beside => {}
                }
                Err(HostError::Stopped { controller: name })
            })
        }
        _ => return Ok(None),
    };
    Ok(Some(work))
}
