//! Posting one core/v1 Event as client-go's recorder writes it: named
//! `<object>.<hex nanoseconds>`, `source.component` and `reportingComponent` set to the
//! controller's name, first/last timestamp now, count 1. Best effort: a failure is logged.

use std::time::{SystemTime, UNIX_EPOCH};

use k8s_openapi::api::core::v1::{Event, EventSource, ObjectReference};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use k8s_openapi::jiff::Timestamp;
use kube::Client;
use kube::api::{Api, PostParams};

/// Severity of an Event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventType {
    /// Expected progress (`Synced`, `DeletingNode`, `EnsuredLoadBalancer`).
    Normal,
    /// Something needs attention (init refused, delete failed, sync failed).
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

/// One Event about `involved` (whose `name` names the Event) in `namespace`.
pub async fn post(
    client: &Client,
    component: &'static str,
    namespace: &str,
    involved: ObjectReference,
    type_: EventType,
    reason: &str,
    message: &str,
) {
    let now = Timestamp::now();
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let name = involved.name.clone().unwrap_or_default();
    let event = Event {
        metadata: ObjectMeta {
            name: Some(format!("{name}.{nanos:x}")),
            namespace: Some(namespace.to_owned()),
            ..ObjectMeta::default()
        },
        involved_object: involved,
        reason: Some(reason.to_owned()),
        message: Some(message.to_owned()),
        type_: Some(type_.as_str().to_owned()),
        source: Some(EventSource {
            component: Some(component.to_owned()),
            host: None,
        }),
        first_timestamp: Some(Time(now)),
        last_timestamp: Some(Time(now)),
        count: Some(1),
        reporting_component: Some(component.to_owned()),
        ..Event::default()
    };
    let api: Api<Event> = Api::namespaced(client.clone(), namespace);
    if let Err(error) = api.create(&PostParams::default(), &event).await {
        tracing::warn!(object = %name, reason, %error, "could not record event");
    }
}
