//! The Kubernetes half of a snapshot: Nodes, LoadBalancer Services, Events and kube-system Leases
//! reduced to the fields the parity checks compare (migration.md §3 "S"), each built from the API
//! object so the checks never see client types.

use std::collections::BTreeMap;

use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{Event, Node, Service};
use serde::{Deserialize, Serialize};

/// One Node as the checks see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeState {
    /// Name.
    pub name: String,
    /// UID (a changed UID means the Node was deleted and registered again, P4).
    pub uid: String,
    /// `spec.providerID` (P5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_id: Option<String>,
    /// Labels.
    pub labels: BTreeMap<String, String>,
    /// Annotations.
    pub annotations: BTreeMap<String, String>,
    /// Taints, sorted by key then effect.
    pub taints: Vec<TaintState>,
    /// `spec.podCIDRs` (or `spec.podCIDR` when only that is set), in API order.
    pub pod_cidrs: Vec<String>,
    /// `status.addresses` in API order (the order is part of P7).
    pub addresses: Vec<AddressState>,
    /// Conditions, sorted by type.
    pub conditions: Vec<ConditionState>,
    /// `metadata.creationTimestamp`, RFC 3339.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created: Option<String>,
}

impl NodeState {
    /// True when the Ready condition is `True`.
    pub fn ready(&self) -> bool {
        self.conditions
            .iter()
            .any(|c| c.type_ == "Ready" && c.status == "True")
    }

    /// True when the Node carries the taint `key`.
    pub fn has_taint(&self, key: &str) -> bool {
        self.taints.iter().any(|t| t.key == key)
    }

    /// The first `InternalIP` addresses of the Node (used to match backend pool members).
    pub fn internal_ips(&self) -> impl Iterator<Item = &str> {
        self.addresses
            .iter()
            .filter(|a| a.type_ == "InternalIP")
            .map(|a| a.address.as_str())
    }
}

/// A Node taint.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct TaintState {
    /// Key.
    pub key: String,
    /// Effect.
    pub effect: String,
    /// Value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

/// A Node address.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AddressState {
    /// `InternalIP`, `ExternalIP`, `Hostname`, ...
    #[serde(rename = "type")]
    pub type_: String,
    /// Value.
    pub address: String,
}

/// A Node condition (type, status, reason; times left out so snapshots diff quietly).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConditionState {
    /// Type.
    #[serde(rename = "type")]
    pub type_: String,
    /// `True`, `False`, `Unknown`.
    pub status: String,
    /// Reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// One LoadBalancer Service as the checks see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServiceState {
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
    /// UID (the cloud resources are named `a<uid without dashes>`).
    pub uid: String,
    /// Annotations.
    pub annotations: BTreeMap<String, String>,
    /// Finalizers, sorted.
    pub finalizers: Vec<String>,
    /// `spec.loadBalancerIP`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_balancer_ip: Option<String>,
    /// `spec.loadBalancerClass`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_balancer_class: Option<String>,
    /// Ports in spec order.
    pub ports: Vec<ServicePortState>,
    /// `status.loadBalancer.ingress` IPs (or hostnames), in status order.
    pub ingress: Vec<String>,
    /// `metadata.deletionTimestamp`, RFC 3339, while the Service is being deleted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletion_timestamp: Option<String>,
}

impl ServiceState {
    /// `namespace/name`.
    pub fn key(&self) -> String {
        format!("{}/{}", self.namespace, self.name)
    }

    /// The per-Service cloud resource base name: `a` + UID without dashes, cut to 32 characters
    /// (anchor-ccm.md §4.3).
    pub fn base_name(&self) -> String {
        base_name(&self.uid)
    }
}

/// `a` + `uid` without dashes, cut to 32 characters (anchor-ccm.md §4.3).
pub fn base_name(uid: &str) -> String {
    let mut name: String = std::iter::once('a')
        .chain(uid.chars().filter(|c| *c != '-'))
        .collect();
    name.truncate(32);
    name
}

/// A Service port.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServicePortState {
    /// Port name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `TCP`, `UDP`, `SCTP`.
    pub protocol: String,
    /// Port.
    pub port: i32,
    /// NodePort.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_port: Option<i32>,
    /// `appProtocol`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app_protocol: Option<String>,
}

/// One Event.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EventState {
    /// Namespace of the involved object.
    pub involved_namespace: String,
    /// Kind of the involved object.
    pub involved_kind: String,
    /// Name of the involved object.
    pub involved_name: String,
    /// Reason.
    pub reason: String,
    /// `Normal` or `Warning`.
    #[serde(rename = "type")]
    pub type_: String,
    /// `source.component` (or `reportingController`).
    pub source_component: String,
    /// Count.
    pub count: i32,
    /// Message.
    pub message: String,
    /// Event name (tie-breaker of the ordering).
    pub name: String,
}

/// One kube-system Lease.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LeaseState {
    /// Name.
    pub name: String,
    /// `holderIdentity` (empty when released).
    pub holder: String,
    /// `renewTime`, Unix epoch milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub renew_ms: Option<i64>,
    /// `leaseDurationSeconds`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_seconds: Option<i32>,
    /// `leaseTransitions`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transitions: Option<i32>,
}

impl NodeState {
    /// The checks' view of an API Node.
    pub fn from_api(node: &Node) -> Self {
        let meta = &node.metadata;
        let spec = node.spec.clone().unwrap_or_default();
        let status = node.status.clone().unwrap_or_default();
        let mut taints: Vec<TaintState> = spec
            .taints
            .unwrap_or_default()
            .into_iter()
            .map(|t| TaintState {
                key: t.key,
                effect: t.effect,
                value: t.value,
            })
            .collect();
        taints.sort();
        let pod_cidrs = match spec.pod_cidrs {
            Some(list) if !list.is_empty() => list,
            _ => spec.pod_cidr.into_iter().collect(),
        };
        let mut conditions: Vec<ConditionState> = status
            .conditions
            .unwrap_or_default()
            .into_iter()
            .map(|c| ConditionState {
                type_: c.type_,
                status: c.status,
                reason: c.reason,
            })
            .collect();
        conditions.sort_by(|a, b| a.type_.cmp(&b.type_));
        Self {
            name: meta.name.clone().unwrap_or_default(),
            uid: meta.uid.clone().unwrap_or_default(),
            provider_id: spec.provider_id,
            labels: meta.labels.clone().unwrap_or_default(),
            annotations: meta.annotations.clone().unwrap_or_default(),
            taints,
            pod_cidrs,
            addresses: status
                .addresses
                .unwrap_or_default()
                .into_iter()
                .map(|a| AddressState {
                    type_: a.type_,
                    address: a.address,
                })
                .collect(),
            conditions,
            created: meta.creation_timestamp.as_ref().map(|t| t.0.to_string()),
        }
    }
}

impl ServiceState {
    /// The checks' view of an API Service; `None` unless it is `type: LoadBalancer`.
    pub fn from_api(service: &Service) -> Option<Self> {
        let spec = service.spec.clone().unwrap_or_default();
        if spec.type_.as_deref() != Some("LoadBalancer") {
            return None;
        }
        let meta = &service.metadata;
        let mut finalizers = meta.finalizers.clone().unwrap_or_default();
        finalizers.sort();
        let ingress = service
            .status
            .as_ref()
            .and_then(|s| s.load_balancer.as_ref())
            .and_then(|lb| lb.ingress.clone())
            .unwrap_or_default()
            .into_iter()
            .filter_map(|i| i.ip.or(i.hostname))
            .collect();
        Some(Self {
            namespace: meta.namespace.clone().unwrap_or_default(),
            name: meta.name.clone().unwrap_or_default(),
            uid: meta.uid.clone().unwrap_or_default(),
            annotations: meta.annotations.clone().unwrap_or_default(),
            finalizers,
            load_balancer_ip: spec.load_balancer_ip,
            load_balancer_class: spec.load_balancer_class,
            ports: spec
                .ports
                .unwrap_or_default()
                .into_iter()
                .map(|p| ServicePortState {
                    name: p.name,
                    protocol: p.protocol.unwrap_or_else(|| "TCP".to_owned()),
                    port: p.port,
                    node_port: p.node_port,
                    app_protocol: p.app_protocol,
                })
                .collect(),
            ingress,
            deletion_timestamp: meta.deletion_timestamp.as_ref().map(|t| t.0.to_string()),
        })
    }
}

impl EventState {
    /// The checks' view of a core/v1 Event.
    pub fn from_api(event: &Event) -> Self {
        let involved = &event.involved_object;
        let source_component = event
            .source
            .as_ref()
            .and_then(|s| s.component.clone())
            .or_else(|| event.reporting_component.clone())
            .unwrap_or_default();
        Self {
            involved_namespace: involved.namespace.clone().unwrap_or_default(),
            involved_kind: involved.kind.clone().unwrap_or_default(),
            involved_name: involved.name.clone().unwrap_or_default(),
            reason: event.reason.clone().unwrap_or_default(),
            type_: event.type_.clone().unwrap_or_default(),
            source_component,
            count: event.count.unwrap_or(1),
            message: event.message.clone().unwrap_or_default(),
            name: event.metadata.name.clone().unwrap_or_default(),
        }
    }
}

impl LeaseState {
    /// The checks' view of a Lease.
    pub fn from_api(lease: &Lease) -> Self {
        let spec = lease.spec.clone().unwrap_or_default();
        Self {
            name: lease.metadata.name.clone().unwrap_or_default(),
            holder: spec.holder_identity.unwrap_or_default(),
            renew_ms: spec.renew_time.map(|t| t.0.as_millisecond()),
            duration_seconds: spec.lease_duration_seconds,
            transitions: spec.lease_transitions,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_name_drops_dashes_and_cuts_to_32() {
        assert_eq!(
            base_name("1a2b3c4d-1111-2222-3333-444455556666"),
            "a1a2b3c4d111122223333444455556666"[..32].to_string()
        );
        assert_eq!(base_name("x-y"), "axy");
    }
}
