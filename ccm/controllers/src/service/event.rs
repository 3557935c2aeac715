//! Service Events as client-go's recorder writes them: core/v1 Events in the Service's
//! namespace, named `<service>.<hex nanoseconds>`, `source.component` `service-controller`.

use std::time::{SystemTime, UNIX_EPOCH};

use k8s_openapi::api::core::v1::{Event, EventSource, ObjectReference, Service};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, PostParams};
use kube::{Client, ResourceExt};

use crate::node::event::EventType;

/// Records Events about Services for one controller (the `source.component`).
#[derive(Clone)]
pub struct ServiceEventRecorder {
    client: Client,
    component: &'static str,
}

impl ServiceEventRecorder {
    /// A recorder whose events carry `component` as their source.
    pub fn new(client: Client, component: &'static str) -> Self {
        Self { client, component }
    }

    /// Posts one Event; a failure is logged, never fatal (events are best effort upstream too).
    pub async fn record(&self, service: &Service, type_: EventType, reason: &str, message: &str) {
        let now = Timestamp::now();
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        let name = service.name_any();
        let namespace = service.namespace().unwrap_or_else(|| "default".to_owned());
        let event = Event {
            metadata: ObjectMeta {
                name: Some(format!("{name}.{nanos:x}")),
                namespace: Some(namespace.clone()),
                ..ObjectMeta::default()
            },
            involved_object: ObjectReference {
                api_version: Some("v1".to_owned()),
                kind: Some("Service".to_owned()),
                name: Some(name.clone()),
                namespace: Some(namespace.clone()),
                uid: service.metadata.uid.clone(),
                resource_version: service.metadata.resource_version.clone(),
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
        let api: Api<Event> = Api::namespaced(self.client.clone(), &namespace);
        if let Err(error) = api.create(&PostParams::default(), &event).await {
            tracing::warn!(service = %name, reason, %error, "could not record event");
        }
    }
}
