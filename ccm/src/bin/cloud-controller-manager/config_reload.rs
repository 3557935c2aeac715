//! `--enable-dynamic-reloading`: the cloud config is watched ([`watch`]) and, on a valid change,
//! the Azure provider and every controller are rebuilt ([`replacements`]) and the host swaps the
//! running set for the new one under the same leases (`ccm_controllers::host`).
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

use std::time::Duration;

use azure_ccm::azure_inputs::InputsFactory;
use azure_ccm::cloud_config::{self, CloudConfigSource};
use ccm_azure::config::Config;
use ccm_controllers::host::{ControllerSet, Roster};
use futures::{Stream, StreamExt};
use k8s_openapi::api::core::v1::Secret;
use kube::runtime::{WatchStreamExt, watcher};
use tokio::sync::mpsc;

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

/// The controller sets built from each config `changes` sends, over a new provider; a config
/// whose provider or controllers cannot be built is logged and skipped (the running set stays).
pub fn replacements(
    changes: mpsc::Receiver<Config>,
    factory: InputsFactory,
    roster: Roster,
) -> impl Stream<Item = ControllerSet> {
    futures::stream::unfold(
        (changes, factory, roster),
        |(mut changes, factory, roster)| async move {
            loop {
                let config = changes.recv().await?;
                let built = match factory.inputs(&config).await {
                    Ok(inputs) => roster.build(&inputs).map_err(anyhow::Error::from),
                    Err(error) => Err(error),
                };
                match built {
                    Ok(set) => return Some((set, (changes, factory, roster))),
                    Err(error) => tracing::error!(
                        "{error:#}; the new cloud config cannot be used, keeping the running one"
                    ),
                }
            }
        },
    )
}
