//! The cloud-node-lifecycle controller's effects: every `--node-monitor-period`, list Nodes, ask
//! the cloud about NotReady ones, then delete or (un)taint as [`super::decision`] says.

use std::sync::Arc;
use std::time::Duration;

use ccm_cloud::{InstancesV2, Provider};
use ccm_names::controllers::CLOUD_NODE_LIFECYCLE;
use k8s_openapi::api::core::v1::Node;
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, Preconditions};
use kube::{Client, ResourceExt};

use super::decision::{Answer, CloudState, Decision, NodeState, decide, needs_cloud, taint_for};
use crate::node::conflict::retry_on_conflict;
use crate::node::event::{EventType, NodeEventRecorder};

/// Why the controller cannot start or a pass failed.
#[derive(Debug, thiserror::Error)]
pub enum NodeLifecycleError {
    /// The provider offers no `InstancesV2`.
    #[error("the cloud provider does not implement InstancesV2")]
    InstancesNotSupported,
    /// A Kubernetes API call failed.
    #[error("kubernetes API: {0}")]
    Kube(#[from] kube::Error),
}

/// Deletes Nodes whose instance is gone and taints those whose instance is shut down.
pub struct NodeLifecycleController<P: Provider> {
    nodes: Api<Node>,
    provider: Arc<P>,
    node_monitor_period: Duration,
    page_size: u32,
    events: NodeEventRecorder,
}

/// Default list page size (client-go's pager uses 500).
const PAGE_SIZE: u32 = 500;

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
            provider,
            node_monitor_period,
            page_size: PAGE_SIZE,
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

    /// Nodes read per list page, so a pass over thousands of Nodes never holds them all.
    pub fn with_page_size(mut self, page_size: u32) -> Self {
        self.page_size = page_size.max(1);
        self
    }

    /// One pass over every Node, page by page.
    pub async fn pass(&self) -> Result<(), NodeLifecycleError> {
        let mut token: Option<String> = None;
        loop {
            let mut params = ListParams::default().limit(self.page_size);
            if let Some(token) = &token {
                params = params.continue_token(token);
            }
            let page = self.nodes.list(&params).await?;
            token = page.metadata.continue_.clone().filter(|t| !t.is_empty());
            for node in page {
                let decision = self.decide(&node).await;
                self.apply(&node, &decision).await;
            }
            if token.is_none() {
                return Ok(());
            }
        }
    }

    async fn decide(&self, node: &Node) -> Decision {
        let state = NodeState::of(node);
        let mut cloud = CloudState {
            exists: Answer::NotAsked,
            shutdown: Answer::NotAsked,
        };
        if let (true, Some(instances)) = (needs_cloud(&state), self.provider.instances_v2()) {
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

    async fn apply(&self, node: &Node, decision: &Decision) {
        let name = node.name_any();
        if decision.delete {
            let message =
                format!("Deleting node {name} because it does not exist in the cloud provider");
            self.events
                .record(node, EventType::Normal, "DeletingNode", &message)
                .await;
            // Preconditions: a Node that changed since it was read (e.g. became Ready) is kept.
            let params = DeleteParams {
                preconditions: Some(Preconditions {
                    resource_version: node.metadata.resource_version.clone(),
                    uid: node.metadata.uid.clone(),
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
