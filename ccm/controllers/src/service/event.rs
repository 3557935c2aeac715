//! Service Events as client-go's recorder writes them: core/v1 Events in the Service's
//! namespace, named `<service>.<hex nanoseconds>`, `source.component` `service-controller`.

use k8s_openapi::api::core::v1::{ObjectReference, Service};
use kube::{Client, ResourceExt};

use crate::event_post::EventType;

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
        let namespace = service.namespace().unwrap_or_else(|| "default".to_owned());
        let involved = ObjectReference {
            api_version: Some("v1".to_owned()),
            kind: Some("Service".to_owned()),
            name: Some(service.name_any()),
            namespace: Some(namespace.clone()),
            uid: service.metadata.uid.clone(),
            resource_version: service.metadata.resource_version.clone(),
            ..ObjectReference::default()
        };
        crate::event_post::post(
            &self.client,
            self.component,
            &namespace,
            involved,
            type_,
            reason,
            message,
        )
        .await;
    }
}
