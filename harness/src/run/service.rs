//! Scenario Services as Kubernetes objects: the LoadBalancer Service a [`ServicePlan`] describes and
//! a [`ServiceUpdate`] applied to an existing one. Pure, so both are snapshot-tested.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Service, ServicePort, ServiceSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use crate::scenario::{PortSpec, Protocol, ServicePlan, ServiceUpdate, TrafficPolicy};

/// Label every workload Service selects on (the harness runs no pods: the cloud controllers never
/// look at endpoints, only at the Service and the nodes).
pub const APP_LABEL: &str = "app.kubernetes.io/name";

fn ports(specs: &[PortSpec]) -> Vec<ServicePort> {
    specs
        .iter()
        .map(|p| ServicePort {
            name: p.name.clone(),
            port: i32::from(p.port),
            protocol: Some(
                match p.protocol {
                    Protocol::TCP => "TCP",
                    Protocol::UDP => "UDP",
                }
                .to_owned(),
            ),
            target_port: Some(IntOrString::Int(i32::from(p.target_port.unwrap_or(p.port)))),
            app_protocol: p.app_protocol.clone(),
            ..ServicePort::default()
        })
        .collect()
}

fn policy(p: TrafficPolicy) -> String {
    match p {
        TrafficPolicy::Cluster => "Cluster",
        TrafficPolicy::Local => "Local",
    }
    .to_owned()
}

/// The Service to create for `plan`.
pub fn service(plan: &ServicePlan) -> Service {
    Service {
        metadata: ObjectMeta {
            name: Some(plan.name.clone()),
            namespace: Some(plan.namespace.clone()),
            annotations: (!plan.annotations.is_empty()).then(|| plan.annotations.clone()),
            labels: Some(BTreeMap::from([(APP_LABEL.to_owned(), plan.name.clone())])),
            ..ObjectMeta::default()
        },
        spec: Some(ServiceSpec {
            type_: Some("LoadBalancer".to_owned()),
            selector: Some(BTreeMap::from([(APP_LABEL.to_owned(), plan.name.clone())])),
            ports: Some(ports(&plan.ports)),
            external_traffic_policy: Some(policy(plan.external_traffic_policy)),
            load_balancer_ip: plan.load_balancer_ip.clone(),
            load_balancer_class: plan.load_balancer_class.clone(),
            load_balancer_source_ranges: (!plan.load_balancer_source_ranges.is_empty())
                .then(|| plan.load_balancer_source_ranges.clone()),
            ..ServiceSpec::default()
        }),
        status: None,
    }
}

/// `existing` with `change` applied (annotations merged then removed, ports replaced keeping the
/// node ports the API server allocated for ports that stay, traffic policy set).
pub fn updated(existing: &Service, change: &ServiceUpdate) -> Service {
    let mut next = existing.clone();
    next.status = None;
    let annotations = next.metadata.annotations.get_or_insert_with(BTreeMap::new);
    annotations.extend(change.annotations.clone());
    for key in &change.remove_annotations {
        annotations.remove(key);
    }
    let spec = next.spec.get_or_insert_with(ServiceSpec::default);
    if let Some(new_ports) = &change.ports {
        let old = spec.ports.clone().unwrap_or_default();
        let mut fresh = ports(new_ports);
        for port in &mut fresh {
            port.node_port = old
                .iter()
                .find(|o| o.port == port.port && o.protocol == port.protocol)
                .and_then(|o| o.node_port);
        }
        spec.ports = Some(fresh);
    }
    if let Some(p) = change.external_traffic_policy {
        spec.external_traffic_policy = Some(policy(p));
        if p == TrafficPolicy::Cluster {
            spec.health_check_node_port = None;
        }
    }
    next
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Phase;

    fn plan() -> ServicePlan {
        ServicePlan {
            namespace: "default".into(),
            name: "web".into(),
            annotations: BTreeMap::from([(
                "service.beta.kubernetes.io/azure-dns-label-name".into(),
                "web".into(),
            )]),
            ports: vec![
                PortSpec {
                    name: Some("http".into()),
                    port: 80,
                    protocol: Protocol::TCP,
                    target_port: Some(8080),
                    app_protocol: Some("http".into()),
                },
                PortSpec {
                    name: Some("dns".into()),
                    port: 53,
                    protocol: Protocol::UDP,
                    target_port: None,
                    app_protocol: None,
                },
            ],
            external_traffic_policy: TrafficPolicy::Local,
            load_balancer_ip: Some("10.0.0.9".into()),
            load_balancer_class: None,
            load_balancer_source_ranges: vec!["10.0.0.0/8".into()],
        }
    }

    #[test]
    fn a_plan_becomes_a_load_balancer_service() {
        insta::assert_yaml_snapshot!(service(&plan()));
    }

    #[test]
    fn an_update_merges_annotations_and_keeps_node_ports() {
        let mut existing = service(&plan());
        if let Some(ports) = existing.spec.as_mut().and_then(|s| s.ports.as_mut()) {
            ports[0].node_port = Some(31080);
        }
        existing.spec.as_mut().unwrap().health_check_node_port = Some(32000);
        let change = ServiceUpdate {
            phase: Phase::After,
            annotations: BTreeMap::from([("a".into(), "1".into())]),
            remove_annotations: vec!["service.beta.kubernetes.io/azure-dns-label-name".into()],
            ports: Some(vec![PortSpec {
                name: Some("http".into()),
                port: 80,
                protocol: Protocol::TCP,
                target_port: None,
                app_protocol: None,
            }]),
            external_traffic_policy: Some(TrafficPolicy::Cluster),
        };
        let next = updated(&existing, &change);
        assert_eq!(
            next.metadata.annotations,
            Some(BTreeMap::from([("a".into(), "1".into())]))
        );
        let spec = next.spec.unwrap();
        let ports = spec.ports.unwrap();
        assert_eq!(ports.len(), 1);
        assert_eq!(ports[0].node_port, Some(31080));
        assert_eq!(spec.external_traffic_policy.as_deref(), Some("Cluster"));
        assert_eq!(spec.health_check_node_port, None);
    }
}
