//! `--enable-dynamic-reloading`: the cloud config is watched and, on a valid change, the Azure
//! provider is rebuilt and every controller restarted with it; entry point [`run`], sources from
//! [`watch`].
//!
//! Upstream (anchor-ccm.md §1.2, `cmd/cloud-controller-manager/app/dynamic/`) watches the file with
//! fsnotify, or with no `--cloud-config` an informer on the one Secret, and on a change cancels all
//! controllers and rebuilds them from the new config. Here:
//! - the file is re-read every [`FILE_POLL`] and compared by content (an editor's rename, a
//!   ConfigMap/Secret volume's symlink swap and an in-place write all count; a touch does not);
//! - the Secret is watched (field selector on its name) and its key compared by content;
//! - a new text is parsed and validated, and the provider built, before anything stops: an invalid
//!   config (file or Secret and field named in the error log) or a provider that cannot be built
//!   keeps the running provider and controllers. **[infer]** upstream stops the controllers first
//!   and stays down on a bad config; keeping the last good one is this project's choice;
//! - the controllers stop (and are awaited) before the new ones start, under the same Leases.
//!
//! Not applied: upstream keeps the controllers stopped when the new config says
//! `"disableCloudProvider": true`; that key is not read by this build.

use std::future::Future;
use std::time::Duration;

use ccm_azure::config::Config;
use ccm_azure::metrics::ArmMetrics;
use ccm_controllers::migration::{Classification, GateState};
use ccm_controllers::node::NodeMetrics;
use ccm_controllers::route::RouteMetrics;
use ccm_controllers::service::ServiceMetrics;
use futures::StreamExt;
use k8s_openapi::api::core::v1::Secret;
use kube::runtime::{WatchStreamExt, watcher};
use tokio::sync::{mpsc, watch};

use crate::cloud_config;
use crate::controller_set::{self, Prepared, RunningControllers};
use crate::flags::Flags;
use crate::settings::{CloudConfigSource, Settings};

/// How often the `--cloud-config` file is re-read.
pub const FILE_POLL: Duration = Duration::from_secs(2);

/// Starts watching `source` for changes to `baseline` (the text the running provider was built
/// from); every new valid config is sent, invalid ones are logged and skipped.
pub fn watch(
    source: CloudConfigSource,
    client: kube::Client,
    baseline: String,
) -> mpsc::Receiver<Config> {
    let (tx, rx) = mpsc::channel(1);
    tracing::info!(
        "--enable-dynamic-reloading: watching {} for changes",
        cloud_config::describe(&source)
    );
    let mut seen = Seen {
        source: source.clone(),
        last: baseline,
        tx,
    };
    tokio::spawn(async move {
        match &source {
            CloudConfigSource::File(path) => {
                let mut failing = false;
                loop {
                    tokio::time::sleep(FILE_POLL).await;
                    match tokio::fs::read_to_string(path).await {
                        Ok(text) => {
                            failing = false;
                            if !seen.offer(text).await {
                                return;
                            }
                        }
                        Err(error) if !failing => {
                            failing = true;
                            tracing::error!(%error, "--cloud-config {}: cannot read; keeping the running cloud config", path.display());
                        }
                        Err(_) => {}
                    }
                }
            }
            CloudConfigSource::Secret {
                namespace, name, ..
            } => {
                let secrets: kube::Api<Secret> = kube::Api::namespaced(client, namespace);
                let config = watcher::Config::default().fields(&format!("metadata.name={name}"));
                let mut stream = watcher(secrets, config)
                    .default_backoff()
                    .applied_objects()
                    .boxed();
                while let Some(event) = stream.next().await {
                    match event {
                        Ok(secret) => match cloud_config::secret_text(&source, &secret) {
                            Ok(text) => {
                                if !seen.offer(text).await {
                                    return;
                                }
                            }
                            Err(error) => {
                                tracing::error!("{error:#}; keeping the running cloud config")
                            }
                        },
                        Err(error) => tracing::warn!(%error, "watching the cloud config Secret"),
                    }
                }
            }
        }
    });
    rx
}

/// The last text seen and where valid new configs go.
struct Seen {
    source: CloudConfigSource,
    last: String,
    tx: mpsc::Sender<Config>,
}

impl Seen {
    /// Validates a text that differs from the last one and sends it when valid; false once nobody
    /// listens any more.
    async fn offer(&mut self, text: String) -> bool {
        if text == self.last {
            return true;
        }
        self.last.clone_from(&text);
        match cloud_config::parse(&self.source, &text) {
            Ok(config) => {
                tracing::info!(config = %config, "cloud config changed in {}", cloud_config::describe(&self.source));
                self.tx.send(config).await.is_ok()
            }
            Err(error) => {
                tracing::error!(
                    "{error:#}; the new cloud config is invalid, keeping the running one"
                );
                true
            }
        }
    }
}

/// What a rebuild needs besides the command line: the client and the metric handles the first
/// provider and controllers were registered with.
pub struct Rebuild {
    /// Kubernetes client.
    pub client: kube::Client,
    /// ARM metrics of the provider.
    pub arm_metrics: ArmMetrics,
    /// Node controller metrics.
    pub node_metrics: NodeMetrics,
    /// Service controller metrics.
    pub service_metrics: ServiceMetrics,
    /// Route controller metrics.
    pub route_metrics: RouteMetrics,
}

impl Rebuild {
    /// A new provider for `config` and the controllers over it, not started.
    pub async fn prepare(
        &self,
        config: Config,
        flags: &Flags,
        settings: &Settings,
        classification: &Classification,
    ) -> anyhow::Result<Prepared> {
        let provider = cloud_config::provider(&config, self.arm_metrics.clone()).await?;
        let inputs = controller_set::Inputs {
            client: self.client.clone(),
            provider: std::sync::Arc::new(provider),
            flags,
            ipam: settings.ipam.as_ref(),
            node_metrics: self.node_metrics.clone(),
            service_metrics: self.service_metrics.clone(),
            route_metrics: self.route_metrics.clone(),
        };
        controller_set::prepare(&settings.controllers, inputs, classification)
    }
}

async fn next(changes: &mut Option<mpsc::Receiver<Config>>) -> Config {
    match changes {
        Some(rx) => match rx.recv().await {
            Some(config) => config,
            None => std::future::pending().await,
        },
        None => std::future::pending().await,
    }
}

/// Runs the controllers like [`controller_set::run`]; on each config from `changes` (none without
/// dynamic reloading) builds the next set with `rebuild` and, once built, stops the running set
/// and starts the next. A failed build is logged and the running set kept.
pub async fn run<F, Fut>(
    first: Prepared,
    mut changes: Option<mpsc::Receiver<Config>>,
    mut rebuild: F,
    interval: Duration,
    gate: watch::Receiver<GateState>,
    mut stop: watch::Receiver<bool>,
    running: RunningControllers,
) -> anyhow::Result<()>
where
    F: FnMut(Config) -> Fut,
    Fut: Future<Output = anyhow::Result<Prepared>>,
{
    let mut prepared = first;
    loop {
        let (stop_set, set_stopped) = watch::channel(false);
        let work = controller_set::run(
            prepared,
            interval,
            gate.clone(),
            set_stopped,
            running.clone(),
        );
        tokio::pin!(work);
        let next_set = loop {
            tokio::select! {
                result = &mut work => return result,
                _ = stop.wait_for(|s| *s) => {
                    let _ = stop_set.send(true);
                    return work.await;
                }
                config = next(&mut changes) => match rebuild(config).await {
                    Ok(next_set) => break next_set,
                    Err(error) => tracing::error!(
                        "{error:#}; the new cloud config cannot be used, keeping the running one"
                    ),
                },
            }
        };
        tracing::info!("restarting the controllers with the new cloud config");
        let _ = stop_set.send(true);
        work.await?;
        prepared = next_set;
    }
}
