//! The node-ipam controller's effects: occupy existing podCIDRs at start, give each Node without
//! one a block per family, release on deletion, and report conflicts and exhaustion as Events.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use ccm_cloud::NodeView;
use futures::StreamExt;
use k8s_openapi::api::core::v1::Node;
use kube::api::{Api, Patch, PatchParams};
use kube::runtime::controller::{Action, Controller};
use kube::runtime::reflector::Store;
use kube::{Client, ResourceExt};

use super::allocator::{AllocateError, RangeAllocator};
use super::config::IpamConfig;
use crate::node::conflict::retry_on_conflict;
use crate::node::event::{EventType, NodeEventRecorder};
use crate::node_cache::{NodeFeed, NodeFeedError, SlimNode};

/// Event source of node-ipam, as upstream's Azure CCM records it (migration.md).
pub const EVENT_SOURCE: &str = "cidrAllocator";
/// Reason of the Normal Event when no block is free, with upstream's message
/// `Node <name> status is now: CIDRNotAvailable` (kubernetes `nodeipam/ipam/range_allocator.go`
/// via `RecordNodeStatusChange`).
pub const CIDR_NOT_AVAILABLE: &str = "CIDRNotAvailable";
/// Warning reason when an existing podCIDR is outside the range or overlaps. **[infer]**
pub const POD_CIDR_CONFLICT: &str = "PodCIDRConflict";

/// Why a sync failed (it is retried).
#[derive(Debug, thiserror::Error)]
pub enum IpamError {
    /// A Kubernetes API call failed.
    #[error("kubernetes API: {0}")]
    Kube(#[from] kube::Error),
    /// No free block.
    #[error(transparent)]
    Allocate(#[from] AllocateError),
}

/// Allocates pod CIDRs to Nodes (`--allocate-node-cidrs`), never changing an existing one.
pub struct NodeIpamController {
    nodes: Api<Node>,
    /// The Nodes to allocate for: the process's shared feed, or one of this controller's own.
    feed: NodeFeed,
    allocator: Mutex<RangeAllocator>,
    events: NodeEventRecorder,
    /// Problems already reported, so a requeue records no duplicate Event.
    reported: Mutex<HashSet<(String, String)>>,
    /// Delay before retrying a failed allocation.
    retry: Duration,
    /// [`IpamConfig::learns_foreign_cidrs`].
    learns_foreign_cidrs: bool,
}

impl NodeIpamController {
    /// A controller over `client` for the validated flags; `retry` paces retries after exhaustion.
    pub fn new(client: Client, config: &IpamConfig, retry: Duration) -> Self {
        Self {
            nodes: Api::all(client.clone()),
            feed: NodeFeed::new(client.clone(), NodeFeed::watch_config(None)),
            allocator: Mutex::new(RangeAllocator::new(config)),
            events: NodeEventRecorder::new(client, EVENT_SOURCE),
            reported: Mutex::new(HashSet::new()),
            retry,
            learns_foreign_cidrs: config.learns_foreign_cidrs,
        }
    }

    fn allocator(&self) -> std::sync::MutexGuard<'_, RangeAllocator> {
        self.allocator
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Reads the Nodes from `feed` (the process's shared Node cache) instead of a watch of its own.
    pub fn with_node_feed(mut self, feed: NodeFeed) -> Self {
        self.feed = feed;
        self
    }

    /// Occupies every cached podCIDR (after the cache's first list, in name order), then runs
    /// until the feed ends.
    pub async fn run(self) -> Result<(), NodeFeedError> {
        let store = self.feed.ready().await?;
        // In name order, as the API server lists them: the store's own order is a hash order,
        // and which of two overlapping nodes is reported must not change from run to run.
        let mut nodes = store.state();
        nodes.sort_by(|a, b| a.name().cmp(b.name()));
        for node in nodes {
            self.occupy(&node).await;
        }
        let nodes = self.feed.applied();
        let this = Arc::new(self);
        let controller = Controller::for_shared_stream(nodes, store);
        let store = controller.store();
        controller
            .run(
                move |node, ctx: Arc<Self>| {
                    let store = store.clone();
                    async move { ctx.sync(&node, &store).await }
                },
                |node, error, ctx: Arc<Self>| {
                    tracing::warn!(node = %node.name_any(), %error, "node-ipam sync failed");
                    Action::requeue(ctx.retry)
                },
                this,
            )
            .for_each(|_| async {})
            .await;
        Ok(())
    }

    fn release(&self, name: &str) {
        let freed = self.allocator().release(name);
        if !freed.is_empty() {
            tracing::info!(node = name, ?freed, "released pod CIDRs of deleted node");
        }
        self.reported
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|(node, _)| node != name);
    }

    /// Records a node's podCIDRs as used; each new problem becomes one Warning Event.
    async fn occupy(&self, node: &SlimNode) {
        let problems = self.allocator().occupy(&node.name_any(), &pod_cidrs(node));
        for problem in problems {
            let message = format!("{problem}; left unchanged");
            self.report(node, EventType::Warning, POD_CIDR_CONFLICT, &message)
                .await;
        }
    }

    async fn report(&self, node: &dyn NodeView, type_: EventType, reason: &str, message: &str) {
        let first = self
            .reported
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert((node.name().to_owned(), message.to_owned()));
        if first {
            tracing::warn!(node = %node.name(), reason, message);
            self.events.record(node, type_, reason, message).await;
        }
    }

    async fn sync(&self, node: &SlimNode, store: &Store<SlimNode>) -> Result<Action, IpamError> {
        if node.deletion_timestamp().is_some() {
            return Ok(Action::await_change());
        }
        if !pod_cidrs(node).is_empty() {
            if self.learns_foreign_cidrs {
                self.occupy(node).await;
            }
            return Ok(Action::await_change());
        }
        let name = node.name_any();
        let cidrs = match self.allocate(&name, store).await {
            Ok(cidrs) => cidrs,
            Err(error @ AllocateError::Exhausted { .. }) => {
                tracing::warn!(node = %name, %error, "no pod CIDR available");
                let message = format!("Node {name} status is now: {CIDR_NOT_AVAILABLE}");
                self.report(node, EventType::Normal, CIDR_NOT_AVAILABLE, &message)
                    .await;
                return Ok(Action::requeue(self.retry));
            }
            Err(error) => return Err(error.into()),
        };
        let values: Vec<String> = cidrs.iter().map(ToString::to_string).collect();
        match self.write(&name, &values).await {
            Ok(Some(existing)) => {
                // Someone set a value first: keep theirs, free ours.
                self.allocator().release(&name);
                if self.learns_foreign_cidrs {
                    self.occupy(&existing).await;
                }
            }
            Ok(None) => tracing::info!(node = %name, cidrs = ?values, "allocated pod CIDRs"),
            Err(error) => {
                self.allocator().release(&name);
                return Err(error.into());
            }
        }
        Ok(Action::await_change())
    }

    /// Frees the blocks of nodes gone from the (synced) cache, then allocates: deletions are
    /// seen as absences, so one missed across a relist is freed too.
    async fn allocate(
        &self,
        name: &str,
        store: &Store<SlimNode>,
    ) -> Result<Vec<ipnet::IpNet>, AllocateError> {
        if store.wait_until_ready().await.is_ok() {
            let live: HashSet<String> = store.state().iter().map(|n| n.name_any()).collect();
            let gone: Vec<String> = self
                .allocator()
                .holders()
                .filter(|n| !live.contains(*n))
                .map(str::to_owned)
                .collect();
            for node in gone {
                self.release(&node);
            }
        }
        let mut allocator = self.allocator();
        match allocator.allocate(name) {
            // Held from an earlier attempt whose write failed: reuse it.
            Err(AllocateError::AlreadyAllocated(_)) => Ok(allocator
                .cidrs_of(name)
                .map(<[_]>::to_vec)
                .unwrap_or_default()),
            other => other,
        }
    }

    /// Writes `spec.podCIDR(s)` with a strategic merge patch, as upstream's `PatchNodeCIDRs`
    /// does (so the generated RBAC's `nodes: patch` suffices, no `update`); the patch carries the
    /// resourceVersion read, so a concurrent write turns into a 409 that reruns the cycle. Returns
    /// the fresh node instead when it already carries a value, which is never overwritten.
    async fn write(&self, name: &str, values: &[String]) -> Result<Option<SlimNode>, kube::Error> {
        retry_on_conflict(|| async {
            let fresh = SlimNode::from(self.nodes.get(name).await?);
            if !pod_cidrs(&fresh).is_empty() {
                return Ok(Some(fresh));
            }
            let patch = serde_json::json!({
                "metadata": {"resourceVersion": fresh.resource_version()},
                "spec": {"podCIDR": values.first(), "podCIDRs": values},
            });
            self.nodes
                .patch(name, &PatchParams::default(), &Patch::Strategic(patch))
                .await?;
            Ok(None)
        })
        .await
    }
}

/// A node's podCIDRs: `spec.podCIDRs`, or the single `spec.podCIDR` of older writers.
fn pod_cidrs(node: &SlimNode) -> Vec<String> {
    let list: Vec<String> = node.pod_cidrs().map(str::to_owned).collect();
    if !list.is_empty() {
        return list;
    }
    node.pod_cidr()
        .filter(|single| !single.is_empty())
        .map(|single| vec![single.to_owned()])
        .unwrap_or_default()
}
