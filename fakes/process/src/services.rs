//! `type: LoadBalancer` Services as tests create them, and the address Azure gave them.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Service, ServicePort, ServiceSpec};
use kube::Api;
use kube::api::ObjectMeta;

/// A TCP port with a fixed node port.
pub fn tcp_port(name: &str, port: i32, node_port: i32) -> ServicePort {
    ServicePort {
        name: Some(name.to_string()),
        protocol: Some("TCP".to_string()),
        port,
        node_port: Some(node_port),
        ..Default::default()
    }
}

/// `default/<name>`, `type: LoadBalancer`, selecting `app: <name>`.
pub fn load_balancer_service(name: &str, ports: Vec<ServicePort>) -> Service {
    Service {
        metadata: ObjectMeta {
            name: Some(name.to_string()),
            namespace: Some("default".to_string()),
            ..Default::default()
        },
        spec: Some(ServiceSpec {
            type_: Some("LoadBalancer".to_string()),
            selector: Some(BTreeMap::from([("app".to_string(), name.to_string())])),
            ports: Some(ports),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// The first ingress IP in the Service's status, once the service controller set it.
pub async fn ingress_ip(services: &Api<Service>, name: &str) -> Option<String> {
    services
        .get(name)
        .await
        .ok()?
        .status?
        .load_balancer?
        .ingress?
        .first()?
        .ip
        .clone()
}

/// Whether the service controller has published an ingress address for the Service.
pub fn has_ingress(service: &Service) -> bool {
    service
        .status
        .as_ref()
        .and_then(|s| s.load_balancer.as_ref())
        .and_then(|lb| lb.ingress.as_ref())
        .is_some_and(|i| !i.is_empty())
}
