//! Node Events as the framework records them: core/v1 Events in `default`, named
//! `<node>.<hex nanoseconds>`, with `source.component` set to the controller's name, so
//! `kubectl describe node` and event-based checks read the same strings as with upstream.

use std::time::{SystemTime, UNIX_EPOCH};

use k8s_openapi::api::core::v1::{Event, EventSource, Node, ObjectReference};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, PostParams};
use kube::{Client, ResourceExt};

/// Namespace upstream's recorder uses for events about cluster-scoped objects.
const EVENT_NAMESPACE: &str = "default";

/// Severity of a node Event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventType {
    /// Expected progress (`Synced`, `DeletingNode`).
    Normal,
    /// Something needs attention (init refused, delete failed).
    Warning,
}

impl EventType {
    /// `Normal` or `Warning`, as stored in `Event.type`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Normal => "Normal",
            Self::Warning => "Warning",
        }
    }
}

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
    pub async fn record(&self, node: &Node, type_: EventType, reason: &str, message: &str) {
        let now = Timestamp::now();
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        let name = node.name_any();
        let event = Event {
            metadata: ObjectMeta {
                name: Some(format!("{name}.{nanos:x}")),
                namespace: Some(EVENT_NAMESPACE.to_owned()),
                ..ObjectMeta::default()
            },
            involved_object: ObjectReference {
                api_version: Some("v1".to_owned()),
                kind: Some("Node".to_owned()),
                name: Some(name.clone()),
                uid: node.metadata.uid.clone(),
                ..ObjectReference::default()
            },
            reason: Some(reason.to_owned()),
            message: Some(message.to_owned()),
            type_: Some(type_.as_str().to_owned()),
            source: Some(EventSource {
                component: Some(self.component.to_owned()),
                host: None,
            }),
            first_timestamp: Some(Time(now)),
            last_timestamp: Some(Time(now)),
            count: Some(1),
            reporting_component: Some(self.component.to_owned()),
            ..Event::default()
        };
        let api: Api<Event> = Api::namespaced(self.client.clone(), EVENT_NAMESPACE);
        if let Err(error) = api.create(&PostParams::default(), &event).await {
            tracing::warn!(node = %name, reason, %error, "could not record event");
        }
    }
}
