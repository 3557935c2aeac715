//! The controllers this process starts, each gated by the lease that governs it (main Lease, or
//! the Leader Migration lease for migrated controllers), started once and never stopped: losing a
//! lease ends the process, like upstream.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use ccm_azure::provider::AzureProvider;
use ccm_controllers::migration::{Classification, ControllerClass, GateState};
use ccm_controllers::node::{CloudNodeConfig, CloudNodeController, NodeMetrics};
use ccm_controllers::node_ipam::{IpamConfig, NodeIpamController};
use ccm_controllers::node_lifecycle::NodeLifecycleController;
use ccm_controllers::route::{RouteController, RouteControllerConfig, RouteMetrics};
use ccm_controllers::service::{ServiceController, ServiceControllerConfig, ServiceMetrics};
use ccm_names::controllers::{CLOUD_NODE, CLOUD_NODE_LIFECYCLE, NODE_IPAM, NODE_ROUTE, SERVICE_LB};
use futures::future::BoxFuture;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;
use tokio::sync::watch;
use tokio::task::JoinSet;

use crate::cluster_feeds;
use crate::flags::Flags;

/// A controller ready to run: its future ends only on failure.
pub type Work = BoxFuture<'static, anyhow::Result<()>>;

/// What the controllers need.
pub struct Inputs<'a> {
    /// Kubernetes client.
    pub client: kube::Client,
    /// The Azure provider.
    pub provider: Arc<AzureProvider>,
    /// Command line (periods).
    pub flags: &'a Flags,
    /// node-ipam ranges.
    pub ipam: Option<&'a IpamConfig>,
    /// Node controller metrics.
    pub node_metrics: NodeMetrics,
    /// Service controller metrics.
    pub service_metrics: ServiceMetrics,
    /// Route controller metrics.
    pub route_metrics: RouteMetrics,
}

/// `running_managed_controllers{manager, name}`: 1 while a controller runs.
/// **[infer]** label names follow k8s.io/controller-manager's `ControllerManagerMetrics`.
#[derive(Clone, Default)]
pub struct RunningControllers(Family<Vec<(String, String)>, Gauge>);

impl RunningControllers {
    /// Registers the family.
    pub fn register(registry: &mut Registry) -> Self {
        let this = Self::default();
        registry.register(
            "running_managed_controllers",
            "Indicates where instances of a controller are currently running",
            this.0.clone(),
        );
        this
    }

    fn labels(name: &str) -> Vec<(String, String)> {
        vec![
            ("manager".to_owned(), "cloud-controller-manager".to_owned()),
            ("name".to_owned(), name.to_owned()),
        ]
    }

    fn set(&self, name: &str, value: i64) {
        self.0.get_or_create(&Self::labels(name)).set(value);
    }

    /// Whether the controller `name` (canonical) was started and has not stopped.
    pub fn is_running(&self, name: &str) -> bool {
        self.0.get_or_create(&Self::labels(name)).get() == 1
    }
}

/// Builds one controller (checks the provider can serve it), or `None` when not available yet.
fn build(name: &'static str, inputs: &Inputs<'_>) -> anyhow::Result<Option<Work>> {
    let client = inputs.client.clone();
    let provider = inputs.provider.clone();
    let work: Work = match name {
        CLOUD_NODE => {
            let config = CloudNodeConfig {
                node_status_update_frequency: inputs.flags.node_status_update_frequency,
                ..CloudNodeConfig::default()
            };
            let controller =
                CloudNodeController::new(client, provider, config, inputs.node_metrics.clone())
                    .context(CLOUD_NODE)?;
            Box::pin(async move {
                controller.run().await;
                anyhow::bail!("{CLOUD_NODE}: the Node watch ended")
            })
        }
        CLOUD_NODE_LIFECYCLE => {
            let controller =
                NodeLifecycleController::new(client, provider, inputs.flags.node_monitor_period)
                    .context(CLOUD_NODE_LIFECYCLE)?;
            Box::pin(async move {
                controller.run().await;
                anyhow::bail!("{CLOUD_NODE_LIFECYCLE} stopped")
            })
        }
        NODE_IPAM => {
            let Some(ipam) = inputs.ipam else {
                return Ok(None);
            };
            let controller = NodeIpamController::new(client, ipam, Duration::from_secs(10));
            Box::pin(async move {
                controller.run().await.context(NODE_IPAM)?;
                anyhow::bail!("{NODE_IPAM}: the Node watch ended")
            })
        }
        SERVICE_LB | NODE_ROUTE => service_and_route(name, inputs)?,
        _ => return Ok(None),
    };
    Ok(Some(work))
}

/// The Service controller (its Service cache also feeds the NSG plan) or the route controller
/// (with the Node feed the routes need).
fn service_and_route(name: &'static str, inputs: &Inputs<'_>) -> anyhow::Result<Work> {
    let client = inputs.client.clone();
    let provider = inputs.provider.clone();
    let flags = inputs.flags;
    if name == SERVICE_LB {
        let config = ServiceControllerConfig {
            cluster_name: flags.cluster_name.clone(),
            concurrent_service_syncs: u16::try_from(flags.concurrent_service_syncs.max(1))
                .unwrap_or(1),
            ..ServiceControllerConfig::default()
        };
        let balancers = provider.load_balancers().clone();
        let controller =
            ServiceController::new(client, provider, config, inputs.service_metrics.clone())
                .context(SERVICE_LB)?
                .on_service_store(move |store| {
                    balancers
                        .reconciler()
                        .set_service_source(Arc::new(cluster_feeds::StoredServices(store)));
                });
        return Ok(Box::pin(async move {
            controller.run().await;
            anyhow::bail!("{SERVICE_LB} stopped")
        }));
    }
    let config = RouteControllerConfig::from_flags(
        &flags.cluster_name,
        &flags.cluster_cidr,
        flags.route_reconciliation_period,
    )
    .context(NODE_ROUTE)?;
    let routes = provider.azure_routes().clone();
    let controller = RouteController::new(
        client.clone(),
        provider,
        config,
        inputs.route_metrics.clone(),
    )
    .map_err(|e| anyhow::anyhow!("{NODE_ROUTE}: {e}"))?;
    Ok(Box::pin(async move {
        tokio::select! {
            () = controller.run() => anyhow::bail!("{NODE_ROUTE} stopped"),
            () = cluster_feeds::nodes_to_routes(client, routes) => {
                anyhow::bail!("{NODE_ROUTE}: the Node watch ended")
            }
        }
    }))
}

/// The controllers built and waiting for their lease.
pub struct Prepared(Vec<(&'static str, ControllerClass, Work)>);

/// Builds every enabled controller (no API call yet), skipping those Leader Migration gives to
/// another component.
pub fn prepare(
    names: &[&'static str],
    inputs: Inputs<'_>,
    classification: &Classification,
) -> anyhow::Result<Prepared> {
    let mut pending = Vec::new();
    for &name in names {
        let class = classification
            .class_of(name)
            .cloned()
            .unwrap_or(ControllerClass::NotMigrated);
        if let ControllerClass::Unowned { owner } = &class {
            tracing::info!(
                controller = name,
                "not started: Leader Migration gives it to {owner}"
            );
            continue;
        }
        if let Some(work) = build(name, &inputs)? {
            pending.push((name, class, work));
        }
    }
    Ok(Prepared(pending))
}

/// Starts each controller when `gate` lets its class run, `interval` apart. Resolves with an error
/// when one stops, or with `Ok` once `stop` is set and every started controller has ended.
pub async fn run(
    prepared: Prepared,
    interval: Duration,
    mut gate: watch::Receiver<GateState>,
    mut stop: watch::Receiver<bool>,
    running: RunningControllers,
) -> anyhow::Result<()> {
    let mut pending = prepared.0;
    let mut tasks = JoinSet::new();
    loop {
        let state = gate.borrow_and_update().clone();
        let (ready, waiting): (Vec<_>, Vec<_>) = pending
            .into_iter()
            .partition(|(_, class, _)| state.may_run(class));
        pending = waiting;
        for (name, _, work) in ready {
            if !tasks.is_empty() && !interval.is_zero() {
                tokio::time::sleep(interval).await;
            }
            tracing::info!(controller = name, "starting controller");
            running.set(name, 1);
            tasks.spawn(async move { (name, work.await) });
        }
        tokio::select! {
            _ = stop.wait_for(|s| *s) => {
                // Stop every controller and wait until none runs, so the Lease is released only
                // after the last write.
                tasks.abort_all();
                while tasks.join_next().await.is_some() {}
                return Ok(());
            }
            changed = gate.changed(), if !pending.is_empty() => {
                if changed.is_err() {
                    // The election ended (lost or stopping): the caller handles it; start nothing more.
                    pending.clear();
                }
            }
            Some(joined) = tasks.join_next() => {
                return match joined {
                    Ok((name, result)) => {
                        running.set(name, 0);
                        result.and_then(|()| anyhow::bail!("{name} stopped"))
                    }
                    Err(error) => Err(anyhow::anyhow!("a controller task failed: {error}")),
                };
            }
        }
    }
}
