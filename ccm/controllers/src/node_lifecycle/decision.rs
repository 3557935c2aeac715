//! The pure decision of the cloud-node-lifecycle controller: from a Node's readiness and taints and
//! the cloud's answers, whether to delete it and which taints to add or remove.

use ccm_cloud::NodeView;
use ccm_names::taints::{Effect, OUT_OF_SERVICE, SHUTDOWN};
use k8s_openapi::api::core::v1::Taint;
use serde::Serialize;

/// The Node facts the decision reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct NodeState {
    /// Ready condition is `True` (False, Unknown and missing all count as not ready).
    pub ready: bool,
    /// Carries `node.cloudprovider.kubernetes.io/shutdown`.
    pub has_shutdown_taint: bool,
    /// Carries `node.kubernetes.io/out-of-service`.
    pub has_out_of_service_taint: bool,
}

impl NodeState {
    /// Reads readiness and taints from a Node (a cached one without materialising it).
    pub fn of(node: &dyn NodeView) -> Self {
        let ready = node.condition_status("Ready") == Some("True");
        let has = |key| node.has_taint(key);
        Self {
            ready,
            has_shutdown_taint: has(SHUTDOWN),
            has_out_of_service_taint: has(OUT_OF_SERVICE),
        }
    }
}

/// One answer of the cloud to a yes/no question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Answer {
    /// The cloud said yes.
    Yes,
    /// The cloud said no.
    No,
    /// The call failed (any `CloudError`, including throttling).
    Error,
    /// The question was not asked (not needed for this node).
    NotAsked,
}

impl Answer {
    /// Maps a provider result; any error is [`Answer::Error`].
    pub fn from_result<E>(result: &Result<bool, E>) -> Self {
        match result {
            Ok(true) => Self::Yes,
            Ok(false) => Self::No,
            Err(_) => Self::Error,
        }
    }
}

/// What the cloud said about the node's instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CloudState {
    /// `InstanceExists`.
    pub exists: Answer,
    /// `InstanceShutdown` (asked only when the instance exists).
    pub shutdown: Answer,
}

/// What the controller does to the node this period.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Decision {
    /// Delete the Node object (Event `DeletingNode` first).
    pub delete: bool,
    /// Taint keys to add.
    pub add_taints: Vec<&'static str>,
    /// Taint keys to remove.
    pub remove_taints: Vec<&'static str>,
}

/// Which cloud questions a node needs: none for a Ready node.
pub fn needs_cloud(state: &NodeState) -> bool {
    !state.ready
}

/// The decision table (migration.md 6.2, anchor-ccm.md 3.5-3.6):
/// - Ready: remove the shutdown and out-of-service taints; never delete, whatever the cloud says.
/// - NotReady, `exists` No: delete. `exists` Error/NotAsked: nothing from the cloud.
/// - NotReady, exists, `shutdown` Yes: add the shutdown taint.
/// - Azure rule: NotReady with the shutdown taint (present or added now) gets
///   `node.kubernetes.io/out-of-service:NoExecute`.
pub fn decide(state: &NodeState, cloud: &CloudState) -> Decision {
    let mut decision = Decision::default();
    if state.ready {
        if state.has_shutdown_taint {
            decision.remove_taints.push(SHUTDOWN);
        }
        if state.has_out_of_service_taint {
            decision.remove_taints.push(OUT_OF_SERVICE);
        }
        return decision;
    }
    if cloud.exists == Answer::No {
        decision.delete = true;
        return decision;
    }
    let mut shutdown_tainted = state.has_shutdown_taint;
    if cloud.exists == Answer::Yes && cloud.shutdown == Answer::Yes && !shutdown_tainted {
        decision.add_taints.push(SHUTDOWN);
        shutdown_tainted = true;
    }
    if shutdown_tainted && !state.has_out_of_service_taint {
        decision.add_taints.push(OUT_OF_SERVICE);
    }
    decision
}

/// The taint object written for a key this controller adds (no value, like upstream).
pub fn taint_for(key: &'static str) -> Taint {
    let effect = if key == OUT_OF_SERVICE {
        Effect::NoExecute
    } else {
        Effect::NoSchedule
    };
    Taint {
        key: key.to_owned(),
        effect: effect.as_str().to_owned(),
        ..Taint::default()
    }
}
