//! The cloud-node controller's effects: watch Nodes, fetch instance metadata, write the update
//! computed by [`super::update`], record Events and observe the metrics.
//!
//! A sync starts from the Node the watch cache handed it and writes before it reads: one merge
//! patch ([`super::patch`]) guarded by that Node's resourceVersion, a fresh GET only after a 409.
//! An initialisation is then three calls (patch, status patch of the addresses, Event) and a sync
//! waiting on the client's rate limit holds the cached Node's `Arc` and a patch of a few hundred
//! bytes, not a fresh whole Node and an Update body. Answers of the writes are not decoded into
//! Nodes (only their status code matters).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ccm_cloud::{InstanceMetadata, InstancesV2, NodeView, Provider};
use ccm_names::controllers::CLOUD_NODE;
use ccm_names::taints::UNINITIALIZED;
use futures::StreamExt;
use k8s_openapi::api::core::v1::{Node, NodeAddress};
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, Patch, PatchParams};
use kube::core::Request;
use kube::runtime::reflector::{ObjectRef, Store};
use kube::{Client, Resource, ResourceExt};
use serde_json::{Value, json};

use super::conflict::retry_on_conflict;
use super::event::{EventType, NodeEventRecorder};
use super::labels::BetaLabels;
use super::metrics::NodeMetrics;
use super::patch::merge_patch;
use super::sync_queue::SyncQueue;
use super::update::{self, NodeUpdate};
use crate::node::addresses::AddressError;
use crate::node_cache::{NodeFeed, SlimNode};

/// Reason of the Warning Event recorded while a node cannot be initialised. **[infer]** upstream
/// only logs and requeues; the Event is ours so the reason is visible on the Node.
pub const INIT_FAILED_REASON: &str = "NodeInitializationFailed";

/// Default of `--concurrent-node-syncs`: Nodes synced at once. Upstream's option (k8s.io/cloud-provider
/// since 1.27) defaults to 1; ours is higher so node initialisation is paced by the client's rate
/// limit, not by the bound: a sync makes its API calls one after the other, so with 32 syncs in
/// flight the token bucket (upstream's 20 QPS, burst 30) always has requests waiting unless a
/// call's round trip exceeds 32 / 20 = 1.6 s, and the burst of 30 is used at once. A sync waiting
/// on the bucket holds the cached Node's `Arc` and a small patch, so 32 of them cost little, while
/// the other registering Nodes wait as names in the controller's queue instead of as syncs in
/// flight (unbounded, 5000 registering Nodes were 5000 syncs holding their Nodes).
pub const DEFAULT_CONCURRENT_NODE_SYNCS: u16 = 32;

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
    /// `--concurrent-node-syncs`: Nodes synced at once (0 is taken as 1).
    pub concurrent_node_syncs: u16,
}

impl Default for CloudNodeConfig {
    fn default() -> Self {
        Self {
            node_status_update_frequency: Duration::from_secs(300),
            init_retry: Duration::from_secs(10),
            node_name: None,
            beta_labels: BetaLabels::Write,
            concurrent_node_syncs: DEFAULT_CONCURRENT_NODE_SYNCS,
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

/// What a sync asks for next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum After {
    /// Nothing until the Node changes.
    Change,
    /// Sync it again after this delay (initialisation refused or failed).
    Retry(Duration),
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
        })
    }

    /// Reads the Nodes from `feed` (the process's shared Node cache) instead of a watch of its own.
    pub fn with_node_feed(mut self, feed: NodeFeed) -> Self {
        self.feed = feed;
        self
    }

    /// Runs until the feed ends (the caller drops or aborts the future on shutdown). Started
    /// after the feed's first list, it still syncs every stored Node. Watch events queue Nodes
    /// for `--concurrent-node-syncs` workers that initialise them and reconcile labels; one
    /// timer refreshes every initialised Node's addresses each `--node-status-update-frequency`
    /// (upstream's `UpdateNodeStatus`). Nothing is kept per Node between two events: a requeue
    /// per Node was 5000 scheduled entries at 5000 Nodes, and kube-runtime's scheduler kept the
    /// capacity of its largest backlog ([`SyncQueue`]).
    pub async fn run(self) {
        let store = match self.feed.ready().await {
            Ok(store) => store,
            Err(error) => return tracing::warn!(%error, "cloud-node has no Nodes to sync"),
        };
        let queue = Arc::new(SyncQueue::default());
        let feeder = self.feed.applied().for_each(|node| {
            queue.push(node.name());
            async {}
        });
        let this = Arc::new(self);
        let workers = futures::future::join_all(
            (0..this.concurrency())
                .map(|_| Arc::clone(&this).work(Arc::clone(&queue), store.clone())),
        );
        let refresh = Arc::clone(&this).refresh_periodically(store);
        tokio::select! {
            () = feeder => {}
            _ = workers => {}
            () = refresh => {}
        }
    }

    /// One worker: syncs the queued Nodes one at a time, forever; a sync that asks for a retry
    /// (or fails) queues its Node again after the delay.
    async fn work(self: Arc<Self>, queue: Arc<SyncQueue>, store: Store<SlimNode>) {
        loop {
            let name = queue.next().await;
            let after = match store.get(&ObjectRef::new(&name)) {
                // One whole Node per sync (at most --concurrent-node-syncs at once), dropped after.
                Some(node) => match self.sync(&node.to_node()).await {
                    Ok(after) => after,
                    Err(error) => {
                        tracing::warn!(node = %name, %error, "cloud-node sync failed");
                        After::Retry(self.config.init_retry)
                    }
                },
                // Deleted since it was queued.
                None => After::Change,
            };
            queue.done(&name);
            if let After::Retry(delay) = after {
                let queue = Arc::clone(&queue);
                tokio::spawn(async move {
                    tokio::time::sleep(delay).await;
                    queue.push(&name);
                });
            }
        }
    }

    /// At the start and then every `--node-status-update-frequency` (upstream's `wait.Until`
    /// runs `UpdateNodeStatus` at once, so a new CCM refreshes Nodes another process
    /// initialised), refreshes the addresses of every initialised Node of the store, in name
    /// order, at most `--concurrent-node-syncs` at once; runs until the task is dropped.
    async fn refresh_periodically(self: Arc<Self>, store: Store<SlimNode>) {
        let period = self.config.node_status_update_frequency;
        let mut timer = tokio::time::interval(period);
        timer.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            timer.tick().await;
            // Decided on the cached slim Node, so a Node is built only for those refreshed (at
            // the start, every Node a registration backlog holds is still uninitialised).
            let mut nodes = store.state();
            nodes.retain(|node| {
                !node.has_taint(UNINITIALIZED) && node.deletion_timestamp().is_none()
            });
            nodes.sort_by(|a, b| a.name().cmp(b.name()));
            futures::stream::iter(nodes)
                .for_each_concurrent(self.concurrency(), |node| {
                    let this = Arc::clone(&self);
                    async move { this.refresh(&node.to_node()).await }
                })
                .await;
        }
    }

    /// Labels, then addresses, of one initialised Node that is not being deleted; failures are
    /// logged and wait for the next period.
    async fn refresh(&self, node: &Node) {
        match self.reconcile_labels(node).await {
            Ok(Ok(())) => {}
            Ok(Err(error)) => {
                tracing::warn!(node = %node.name_any(), %error, "labels not reconciled")
            }
            Err(error) => tracing::warn!(node = %node.name_any(), %error, "labels not reconciled"),
        }
        match self.metadata(node).await {
            Ok(meta) => match update::address_refresh(node, &meta) {
                Ok(Some(addresses)) => {
                    if let Err(error) = self.patch_addresses(&node.name_any(), &addresses).await {
                        tracing::warn!(node = %node.name_any(), %error, "addresses not updated");
                    }
                }
                Ok(None) => {}
                Err(error) => {
                    tracing::warn!(node = %node.name_any(), %error, "addresses not updated")
                }
            },
            Err(error) => {
                tracing::warn!(node = %node.name_any(), %error, "address refresh skipped")
            }
        }
    }

    /// Syncs at once: `--concurrent-node-syncs` (at least one).
    fn concurrency(&self) -> usize {
        usize::from(self.config.concurrent_node_syncs.max(1))
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

    /// One sync: initialise a tainted node, otherwise reconcile its labels (addresses are the
    /// refresh timer's).
    async fn sync(&self, node: &Node) -> Result<After, CloudNodeError> {
        if update::is_uninitialized(node) {
            return self.initialise(node).await;
        }
        if let Err(error) = self.reconcile_labels(node).await? {
            tracing::warn!(node = %node.name_any(), %error, "labels not reconciled");
        }
        Ok(After::Change)
    }

    /// Writes the GA/beta label pairs back in step when they differ.
    async fn reconcile_labels(
        &self,
        node: &Node,
    ) -> Result<Result<(), AddressError>, CloudNodeError> {
        let labels = update::label_reconciliation(node, self.config.beta_labels);
        if !labels.changes_object() {
            return Ok(Ok(()));
        }
        let written = self
            .write_patch(node, |current| {
                Ok(update::label_reconciliation(
                    current,
                    self.config.beta_labels,
                ))
            })
            .await?;
        Ok(written.map(|_| ()))
    }

    async fn initialise(&self, node: &Node) -> Result<After, CloudNodeError> {
        let name = node.name_any();
        let meta = match self.metadata(node).await {
            Ok(meta) => meta,
            Err(reason) => return self.refuse(node, &reason).await,
        };
        let written = self
            .write_patch(node, |current| {
                update::initialisation(current, &meta, self.config.beta_labels)
            })
            .await?;
        let update = match written {
            Ok(Some(update)) => update,
            // Someone else initialised it meanwhile.
            Ok(None) => return Ok(After::Change),
            Err(error) => return self.refuse(node, &error.to_string()).await,
        };
        if let Ok(mut last) = self.last_failure.lock() {
            last.remove(&name);
        }
        self.observe(&self.metrics.taint_removal_delay, node);
        if let Some(addresses) = &update.addresses {
            self.patch_addresses(&name, addresses).await?;
        }
        self.observe(&self.metrics.initial_node_sync_delay, node);
        self.events
            .record(
                node,
                EventType::Normal,
                "Synced",
                "Node synced successfully",
            )
            .await;
        tracing::info!(node = %name, "node initialised");
        Ok(After::Change)
    }

    async fn refuse(&self, node: &Node, reason: &str) -> Result<After, CloudNodeError> {
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
        Ok(After::Retry(self.config.init_retry))
    }

    fn observe(&self, histogram: &prometheus_client::metrics::histogram::Histogram, node: &Node) {
        if let Some(created) = &node.metadata.creation_timestamp {
            let seconds = Timestamp::now().duration_since(created.0).as_secs_f64();
            histogram.observe(seconds.max(0.0));
        }
    }

    /// Writes the update `compute` makes of `cached` (the watch cache's Node) as one merge patch
    /// guarded by its resourceVersion; on 409 Conflict reads the Node fresh, recomputes and
    /// patches again ([`retry_on_conflict`]). Returns the update written, computed from the Node
    /// version the write applied to (its `addresses` part is still to be written);
    /// `Ok(Ok(None))` when that Node needs nothing (e.g. already initialised elsewhere).
    async fn write_patch(
        &self,
        cached: &Node,
        compute: impl Fn(&Node) -> Result<NodeUpdate, AddressError>,
    ) -> Result<Result<Option<NodeUpdate>, AddressError>, CloudNodeError> {
        let name = cached.name_any();
        let (name, compute) = (&name, &compute);
        let first = AtomicBool::new(true);
        let written = retry_on_conflict(|| {
            let from_cache = first.swap(false, Ordering::Relaxed);
            async move {
                let fresh;
                let current = if from_cache {
                    cached
                } else {
                    // Held while its patch waits on the rate limit: keep what a cache keeps.
                    let mut read = self.nodes.get(name).await?;
                    crate::node_cache::slim(&mut read);
                    fresh = read;
                    &fresh
                };
                let change = match compute(current) {
                    Ok(change) => change,
                    Err(error) => return Ok(Err(error)),
                };
                let Some(body) = merge_patch(current, &change) else {
                    return Ok(Ok(None));
                };
                self.send_patch(name, None, &Patch::Merge(body)).await?;
                Ok(Ok(Some(change)))
            }
        })
        .await?;
        Ok(written)
    }

    /// PATCHes the Node (or its `subresource`) without decoding the answer into a Node: the
    /// whole Node it returns (managedFields, images) is skipped while it is parsed.
    async fn send_patch(
        &self,
        name: &str,
        subresource: Option<&str>,
        patch: &Patch<Value>,
    ) -> Result<(), kube::Error> {
        let request = Request::new(Node::url_path(&(), None));
        let params = PatchParams::default();
        let http = match subresource {
            Some(sub) => request.patch_subresource(sub, name, &params, patch),
            None => request.patch(name, &params, patch),
        }
        .map_err(kube::Error::BuildRequest)?;
        let client = Client::from(self.nodes.clone());
        client.request::<serde::de::IgnoredAny>(http).await?;
        Ok(())
    }

    /// Replaces `status.addresses` with a strategic merge patch (`$patch: replace`), as
    /// upstream's `PatchNodeStatus` does since the list's merge key is not unique.
    async fn patch_addresses(
        &self,
        name: &str,
        addresses: &[NodeAddress],
    ) -> Result<(), CloudNodeError> {
        let mut list = vec![json!({"$patch": "replace"})];
        list.extend(
            addresses
                .iter()
                .map(|a| json!({"type": a.type_, "address": a.address})),
        );
        let patch = json!({"status": {"addresses": list}});
        self.send_patch(name, Some("status"), &Patch::Strategic(patch))
            .await?;
        Ok(())
    }
}
