//! Node Events as the framework records them: core/v1 Events in `default`, named
//! `<node>.<hex nanoseconds>`, with `source.component` set to the controller's name, so
//! `kubectl describe node` and event-based checks read the same strings as with upstream.

use ccm_cloud::NodeView;
use k8s_openapi::api::core::v1::ObjectReference;
use kube::Client;

pub use crate::event_post::EventType;

/// Namespace upstream's recorder uses for events about cluster-scoped objects.
const EVENT_NAMESPACE: &str = "default";

/// Records Events about Nodes for one controller (the `source.component`).
#[derive(Clone)]
pub struct NodeEventRecorder {
    client: Client,
    component: &'static str,
}

impl NodeEventRecorder {
    /// A recorder whose events carry `component` as their source.
    pub fn new(client: Client, component: &'static str) -> Self {
        Self { client, component }
    }

    /// Posts one Event; a failure is logged, never fatal (events are best effort upstream too).
    pub async fn record(&self, node: &dyn NodeView, type_: EventType, reason: &str, message: &str) {
        let involved = ObjectReference {
            api_version: Some("v1".to_owned()),
            kind: Some("Node".to_owned()),
            name: Some(node.name().to_owned()),
            uid: node.uid().map(str::to_owned),
            ..ObjectReference::default()
        };
        crate::event_post::post(
            &self.client,
            self.component,
            EVENT_NAMESPACE,
            involved,
            type_,
            reason,
            message,
        )
        .await;
    }
}
