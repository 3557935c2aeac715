//! The cloud-node controller's effects: watch Nodes, fetch instance metadata, write the update
//! computed by [`super::update`], record Events and observe the metrics.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ccm_cloud::{InstanceMetadata, InstancesV2, Provider};
use ccm_names::controllers::CLOUD_NODE;
use futures::StreamExt;
use k8s_openapi::api::core::v1::{Node, NodeAddress};
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, Patch, PatchParams, PostParams};
use kube::runtime::controller::{Action, Controller};
use kube::{Client, ResourceExt};
use serde_json::json;

use super::conflict::retry_on_conflict;
use super::event::{EventType, NodeEventRecorder};
use super::labels::BetaLabels;
use super::metrics::NodeMetrics;
use super::update::{self, NodeUpdate};
use crate::node::addresses::AddressError;
use crate::node_cache::NodeFeed;

/// Reason of the Warning Event recorded while a node cannot be initialised. **[infer]** upstream
/// only logs and requeues; the Event is ours so the reason is visible on the Node.
pub const INIT_FAILED_REASON: &str = "NodeInitializationFailed";

/// Settings of one cloud-node controller.
#[derive(Debug, Clone)]
pub struct CloudNodeConfig {
    /// `--node-status-update-frequency`: period of the address refresh of initialised nodes.
    pub node_status_update_frequency: Duration,
    /// Delay before retrying a node whose initialisation failed.
    pub init_retry: Duration,
    /// Only this Node (cloud-node-manager's field selector); `None` watches all Nodes.
    pub node_name: Option<String>,
    /// Beta topology labels: always for the CCM's controller, opt-in for cloud-node-manager.
    pub beta_labels: BetaLabels,
}

impl Default for CloudNodeConfig {
    fn default() -> Self {
        Self {
            node_status_update_frequency: Duration::from_secs(300),
            init_retry: Duration::from_secs(10),
            node_name: None,
            beta_labels: BetaLabels::Write,
        }
    }
}

/// Why the controller cannot start or a sync failed.
#[derive(Debug, thiserror::Error)]
pub enum CloudNodeError {
    /// The provider offers no `InstancesV2`, so nodes cannot be initialised.
    #[error("the cloud provider does not implement InstancesV2")]
    InstancesNotSupported,
    /// A Kubernetes API call failed.
    #[error("kubernetes API: {0}")]
    Kube(#[from] kube::Error),
}

/// Initialises tainted Nodes from the cloud and keeps initialised ones' labels and addresses.
pub struct CloudNodeController<P: Provider> {
    nodes: Api<Node>,
    /// The Nodes to sync: the process's shared feed, or one of this controller's own.
    feed: NodeFeed,
    provider: Arc<P>,
    config: CloudNodeConfig,
    metrics: NodeMetrics,
    events: NodeEventRecorder,
    /// Last init failure message per node, so a retry failing the same way records no new Event.
    last_failure: Mutex<HashMap<String, String>>,
    /// When each node's addresses were last fetched, so watch events between two periodic
    /// refreshes cost no cloud call (upstream refreshes from a timer, not from events).
    refreshed: Mutex<HashMap<String, Instant>>,
}

impl<P: Provider> CloudNodeController<P> {
    /// A controller over `client`; fails when the provider cannot describe instances.
    pub fn new(
        client: Client,
        provider: Arc<P>,
        config: CloudNodeConfig,
        metrics: NodeMetrics,
    ) -> Result<Self, CloudNodeError> {
        if provider.instances_v2().is_none() {
            return Err(CloudNodeError::InstancesNotSupported);
        }
        let watch = NodeFeed::watch_config(config.node_name.as_deref());
        Ok(Self {
            nodes: Api::all(client.clone()),
            feed: NodeFeed::new(client.clone(), watch),
            provider,
            config,
            metrics,
            events: NodeEventRecorder::new(client, CLOUD_NODE),
            last_failure: Mutex::new(HashMap::new()),
            refreshed: Mutex::new(HashMap::new()),
        })
    }

    /// Reads the Nodes from `feed` (the process's shared Node cache) instead of a watch of its own.
    pub fn with_node_feed(mut self, feed: NodeFeed) -> Self {
        self.feed = feed;
        self
    }

    /// Runs until the feed ends (the caller drops or aborts the future on shutdown). Started
    /// after the feed's first list, it still syncs every stored Node.
    pub async fn run(self) {
        let store = match self.feed.ready().await {
            Ok(store) => store,
            Err(error) => return tracing::warn!(%error, "cloud-node has no Nodes to sync"),
        };
        let nodes = self.feed.applied();
        let this = Arc::new(self);
        Controller::for_shared_stream(nodes, store)
            .run(
                |node, ctx: Arc<Self>| async move { ctx.sync(&node).await },
                |_node, error, ctx: Arc<Self>| {
                    tracing::warn!(%error, "cloud-node sync failed");
                    Action::requeue(ctx.config.init_retry)
                },
                this,
            )
            .for_each(|_| async {})
            .await;
    }

    async fn metadata(&self, node: &Node) -> Result<InstanceMetadata, String> {
        let Some(instances) = self.provider.instances_v2() else {
            return Err("the cloud provider does not implement InstancesV2".to_owned());
        };
        instances
            .instance_metadata(node)
            .await
            .map_err(|e| e.to_string())
    }

    /// One sync: initialise a tainted node, otherwise reconcile labels and refresh addresses.
    async fn sync(&self, node: &Node) -> Result<Action, CloudNodeError> {
        if update::is_uninitialized(node) {
            return self.initialise(node).await;
        }
        let labels = update::label_reconciliation(node, self.config.beta_labels);
        if labels.changes_object() {
            let written = self
                .write_object(&node.name_any(), |fresh| {
                    Ok(update::label_reconciliation(fresh, self.config.beta_labels))
                })
                .await?;
            if let Err(error) = written {
                tracing::warn!(node = %node.name_any(), %error, "labels not reconciled");
            }
        }
        if let Some(wait) = self.refresh_not_due(&node.name_any()) {
            return Ok(Action::requeue(wait));
        }
        match self.metadata(node).await {
            Ok(meta) => match update::address_refresh(node, &meta) {
                Ok(Some(addresses)) => self.patch_addresses(node, &addresses).await?,
                Ok(None) => {}
                Err(error) => {
                    tracing::warn!(node = %node.name_any(), %error, "addresses not updated")
                }
            },
            Err(error) => {
                tracing::warn!(node = %node.name_any(), %error, "address refresh skipped")
            }
        }
        Ok(Action::requeue(self.config.node_status_update_frequency))
    }

    /// Time left before the node's next address refresh, `None` when it is due (and then marks
    /// it as refreshed now).
    fn refresh_not_due(&self, name: &str) -> Option<Duration> {
        let period = self.config.node_status_update_frequency;
        let mut refreshed = self.refreshed.lock().ok()?;
        let now = Instant::now();
        if let Some(last) = refreshed.get(name) {
            let elapsed = now.duration_since(*last);
            if elapsed < period {
                return Some(period - elapsed);
            }
        }
        refreshed.insert(name.to_owned(), now);
        None
    }

    async fn initialise(&self, node: &Node) -> Result<Action, CloudNodeError> {
        let name = node.name_any();
        let meta = match self.metadata(node).await {
            Ok(meta) => meta,
            Err(reason) => return self.refuse(node, &reason).await,
        };
        let written = self
            .write_object(&name, |fresh| {
                update::initialisation(fresh, &meta, self.config.beta_labels)
            })
            .await?;
        let fresh = match written {
            Ok(Some(fresh)) => fresh,
            // Someone else initialised it meanwhile.
            Ok(None) => return Ok(Action::requeue(self.config.node_status_update_frequency)),
            Err(error) => return self.refuse(node, &error.to_string()).await,
        };
        if let Ok(mut last) = self.last_failure.lock() {
            last.remove(&name);
        }
        if let Ok(mut refreshed) = self.refreshed.lock() {
            refreshed.insert(name.clone(), Instant::now());
        }
        self.observe(&self.metrics.taint_removal_delay, node);
        if let Ok(Some(addresses)) =
            update::initialisation(&fresh, &meta, self.config.beta_labels).map(|u| u.addresses)
        {
            self.patch_addresses(&fresh, &addresses).await?;
        }
        self.observe(&self.metrics.initial_node_sync_delay, node);
        self.events
            .record(
                &fresh,
                EventType::Normal,
                "Synced",
                "Node synced successfully",
            )
            .await;
        tracing::info!(node = %name, "node initialised");
        Ok(Action::requeue(self.config.node_status_update_frequency))
    }

    async fn refuse(&self, node: &Node, reason: &str) -> Result<Action, CloudNodeError> {
        let name = node.name_any();
        tracing::warn!(node = %name, reason, "node not initialised, taint kept");
        let message = format!("failed to initialize node {name}: {reason}");
        let repeated = self
            .last_failure
            .lock()
            .map(|mut last| last.insert(name, message.clone()).as_ref() == Some(&message))
            .unwrap_or(false);
        if !repeated {
            self.events
                .record(node, EventType::Warning, INIT_FAILED_REASON, &message)
                .await;
        }
        Ok(Action::requeue(self.config.init_retry))
    }

    fn observe(&self, histogram: &prometheus_client::metrics::histogram::Histogram, node: &Node) {
        if let Some(created) = &node.metadata.creation_timestamp {
            let seconds = Timestamp::now().duration_since(created.0).as_secs_f64();
            histogram.observe(seconds.max(0.0));
        }
    }

    /// Get-modify-Update with retry on conflict; the update is recomputed on each fresh read.
    /// `Ok(Ok(None))` when the fresh node needs nothing (e.g. already initialised elsewhere).
    async fn write_object(
        &self,
        name: &str,
        compute: impl Fn(&Node) -> Result<NodeUpdate, AddressError>,
    ) -> Result<Result<Option<Node>, AddressError>, CloudNodeError> {
        let compute = &compute;
        let written = retry_on_conflict(|| async move {
            let mut fresh = self.nodes.get(name).await?;
            let change = match compute(&fresh) {
                Ok(change) => change,
                Err(error) => return Ok(Err(error)),
            };
            if !change.changes_object() {
                return Ok(Ok(None));
            }
            change.apply_to(&mut fresh);
            let written = self
                .nodes
                .replace(name, &PostParams::default(), &fresh)
                .await?;
            Ok(Ok(Some(written)))
        })
        .await?;
        Ok(written)
    }

    /// Replaces `status.addresses` with a strategic merge patch (`$patch: replace`), as
    /// upstream's `PatchNodeStatus` does since the list's merge key is not unique.
    async fn patch_addresses(
        &self,
        node: &Node,
        addresses: &[NodeAddress],
    ) -> Result<(), CloudNodeError> {
        let mut list = vec![json!({"$patch": "replace"})];
        list.extend(
            addresses
                .iter()
                .map(|a| json!({"type": a.type_, "address": a.address})),
        );
        let patch = json!({"status": {"addresses": list}});
        self.nodes
            .patch_status(
                &node.name_any(),
                &PatchParams::default(),
                &Patch::Strategic(patch),
            )
            .await?;
        Ok(())
    }
}
