//! The cloud-node-lifecycle controller's effects: every `--node-monitor-period`, read the Nodes
//! from the process's Node cache (as upstream reads its informer's lister: no LIST per period),
//! ask the cloud about NotReady ones, then delete or (un)taint as [`super::decision`] says.

use std::sync::Arc;
use std::time::Duration;

use ccm_cloud::{InstancesV2, NodeView, Provider};
use ccm_names::controllers::CLOUD_NODE_LIFECYCLE;
use k8s_openapi::api::core::v1::Node;
use kube::api::{Api, DeleteParams, Patch, PatchParams, Preconditions};
use kube::{Client, ResourceExt};

use super::decision::{Answer, CloudState, Decision, NodeState, decide, needs_cloud, taint_for};
use crate::node::conflict::retry_on_conflict;
use crate::node::event::{EventType, NodeEventRecorder};
use crate::node_cache::{NodeFeed, NodeFeedError, SlimNode};

/// Why the controller cannot start or a pass failed.
#[derive(Debug, thiserror::Error)]
pub enum NodeLifecycleError {
    /// The provider offers no `InstancesV2`.
    #[error("the cloud provider does not implement InstancesV2")]
    InstancesNotSupported,
    /// A Kubernetes API call failed.
    #[error("kubernetes API: {0}")]
    Kube(#[from] kube::Error),
    /// The Node cache cannot be read.
    #[error("node cache: {0}")]
    Cache(#[from] NodeFeedError),
}

/// Deletes Nodes whose instance is gone and taints those whose instance is shut down.
pub struct NodeLifecycleController<P: Provider> {
    nodes: Api<Node>,
    /// The Nodes each pass reads: the process's shared feed, or one of this controller's own.
    feed: NodeFeed,
    provider: Arc<P>,
    node_monitor_period: Duration,
    events: NodeEventRecorder,
}

impl<P: Provider> NodeLifecycleController<P> {
    /// A controller over `client` running every `node_monitor_period`.
    pub fn new(
        client: Client,
        provider: Arc<P>,
        node_monitor_period: Duration,
    ) -> Result<Self, NodeLifecycleError> {
        if provider.instances_v2().is_none() {
            return Err(NodeLifecycleError::InstancesNotSupported);
        }
        Ok(Self {
            nodes: Api::all(client.clone()),
            feed: NodeFeed::new(client.clone(), NodeFeed::watch_config(None)),
            provider,
            node_monitor_period,
            events: NodeEventRecorder::new(client, CLOUD_NODE_LIFECYCLE),
        })
    }

    /// Runs a pass every period until the future is dropped; a failed pass is logged and retried.
    pub async fn run(self) {
        let mut ticker = tokio::time::interval(self.node_monitor_period);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticker.tick().await;
            if let Err(error) = self.pass().await {
                tracing::warn!(%error, "node lifecycle pass failed");
            }
        }
    }

    /// Reads the Nodes from `feed` (the process's shared Node cache) instead of a watch of its own.
    pub fn with_node_feed(mut self, feed: NodeFeed) -> Self {
        self.feed = feed;
        self
    }

    /// One pass over every cached Node (waits for the cache's first list), in name order.
    pub async fn pass(&self) -> Result<(), NodeLifecycleError> {
        let mut nodes = self.feed.ready().await?.state();
        nodes.sort_by(|a, b| a.name().cmp(b.name()));
        for node in nodes {
            let decision = self.decide(&node).await;
            self.apply(&node, &decision).await;
        }
        Ok(())
    }

    /// Decides from the cached Node; a whole Node is materialised only for the cloud's
    /// questions (a NotReady or shutdown-tainted Node), never for a Ready one.
    async fn decide(&self, cached: &SlimNode) -> Decision {
        let state = NodeState::of(cached);
        let mut cloud = CloudState {
            exists: Answer::NotAsked,
            shutdown: Answer::NotAsked,
        };
        if let (true, Some(instances)) = (needs_cloud(&state), self.provider.instances_v2()) {
            let node = &cached.to_node();
            let exists = instances.instance_exists(node).await;
            if let Err(error) = &exists {
                tracing::warn!(node = %node.name_any(), %error, "instance existence unknown, node kept");
            }
            cloud.exists = Answer::from_result(&exists);
            if cloud.exists == Answer::Yes {
                let shutdown = instances.instance_shutdown(node).await;
                if let Err(error) = &shutdown {
                    tracing::warn!(node = %node.name_any(), %error, "shutdown state unknown");
                }
                cloud.shutdown = Answer::from_result(&shutdown);
            }
        }
        decide(&state, &cloud)
    }

    async fn apply(&self, node: &SlimNode, decision: &Decision) {
        let name = node.name_any();
        if decision.delete {
            let message =
                format!("Deleting node {name} because it does not exist in the cloud provider");
            self.events
                .record(node, EventType::Normal, "DeletingNode", &message)
                .await;
            // Preconditions: a Node that changed since it was cached (e.g. became Ready) is kept.
            let params = DeleteParams {
                preconditions: Some(Preconditions {
                    resource_version: node.resource_version(),
                    uid: NodeView::uid(node).map(str::to_owned),
                }),
                ..DeleteParams::default()
            };
            if let Err(error) = self.nodes.delete(&name, &params).await {
                let message = format!("Failed deleting node {name}: {error}");
                self.events
                    .record(node, EventType::Warning, "DeletingNodeFailed", &message)
                    .await;
            }
            return;
        }
        if (!decision.add_taints.is_empty() || !decision.remove_taints.is_empty())
            && let Err(error) = self.write_taints(&name, decision).await
        {
            tracing::warn!(node = %name, %error, "taints not updated");
        }
    }

    /// Writes `spec.taints` with a patch, as upstream's `PatchNodeTaints` does (the generated
    /// RBAC grants `nodes: patch`, not `update`): the whole list, with the resourceVersion read
    /// as a precondition, so a concurrent change is a 409 and the cycle reruns.
    async fn write_taints(&self, name: &str, decision: &Decision) -> Result<(), kube::Error> {
        retry_on_conflict(|| async move {
            let mut fresh = self.nodes.get(name).await?;
            let version = fresh.resource_version();
            let taints = fresh
                .spec
                .get_or_insert_default()
                .taints
                .get_or_insert_default();
            let before = taints.len();
            taints.retain(|t| !decision.remove_taints.contains(&t.key.as_str()));
            let mut changed = taints.len() != before;
            for key in &decision.add_taints {
                if !taints.iter().any(|t| t.key == *key) {
                    taints.push(taint_for(key));
                    changed = true;
                }
            }
            if changed {
                let patch = serde_json::json!({
                    "metadata": {"resourceVersion": version},
                    "spec": {"taints": taints},
                });
                self.nodes
                    .patch(name, &PatchParams::default(), &Patch::Merge(patch))
                    .await?;
                tracing::info!(node = %name, add = ?decision.add_taints, remove = ?decision.remove_taints, "taints updated");
            }
            Ok(())
        })
        .await
    }
}
