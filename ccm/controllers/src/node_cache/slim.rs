//! What the controllers keep of a Node in their cache: the fields a cloud controller or provider
//! reads (metadata without managedFields, the whole spec, status addresses, phase, and of the
//! conditions only the type and status of `Ready` and `NetworkUnavailable`), not the kubelet's
//! image list, node info, capacity, its pressure conditions and messages, or the server's
//! managedFields. A real Node is mostly those (tens of KiB with managedFields).
//! [`super::SlimNode`] decodes exactly this subset; [`slim`] states it on a decoded Node (and
//! checks the decoder in tests).

use ccm_names::events::NETWORK_UNAVAILABLE;
use k8s_openapi::api::core::v1::{Node, NodeCondition};

/// The conditions a controller reads (node lifecycle: `Ready`; routes: `NetworkUnavailable`).
pub const READ_CONDITIONS: [&str; 2] = ["Ready", NETWORK_UNAVAILABLE];

/// A condition as cached: its type and status, when a controller reads that type.
pub fn cached_condition(type_: String, status: String) -> Option<NodeCondition> {
    READ_CONDITIONS
        .contains(&type_.as_str())
        .then(|| NodeCondition {
            type_,
            status,
            ..NodeCondition::default()
        })
}

/// Drops what no controller reads from a Node about to be cached.
pub fn slim(node: &mut Node) {
    node.metadata.managed_fields = None;
    if let Some(status) = node.status.as_mut() {
        status.images = None;
        status.node_info = None;
        status.capacity = None;
        status.allocatable = None;
        status.volumes_attached = None;
        status.volumes_in_use = None;
        status.daemon_endpoints = None;
        status.config = None;
        status.features = None;
        status.runtime_handlers = None;
        if let Some(conditions) = status.conditions.take() {
            status.conditions = Some(
                conditions
                    .into_iter()
                    .filter_map(|c| cached_condition(c.type_, c.status))
                    .collect(),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use k8s_openapi::api::core::v1::{
        ContainerImage, NodeAddress, NodeCondition, NodeSpec, NodeStatus, NodeSystemInfo, Taint,
    };
    use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ManagedFieldsEntry, ObjectMeta};

    use super::*;

    #[test]
    fn keeps_what_controllers_read_and_drops_the_kubelets_inventory() {
        let mut node = Node {
            metadata: ObjectMeta {
                name: Some("n1".into()),
                uid: Some("u1".into()),
                resource_version: Some("7".into()),
                labels: Some(BTreeMap::from([("a".into(), "b".into())])),
                annotations: Some(BTreeMap::from([("c".into(), "d".into())])),
                managed_fields: Some(vec![ManagedFieldsEntry::default()]),
                ..Default::default()
            },
            spec: Some(NodeSpec {
                provider_id: Some("azure:///x".into()),
                pod_cidrs: Some(vec!["10.244.0.0/24".into()]),
                taints: Some(vec![Taint {
                    key: "k".into(),
                    effect: "NoSchedule".into(),
                    ..Default::default()
                }]),
                ..Default::default()
            }),
            status: Some(NodeStatus {
                addresses: Some(vec![NodeAddress {
                    type_: "InternalIP".into(),
                    address: "10.0.0.4".into(),
                }]),
                conditions: Some(vec![NodeCondition {
                    type_: "Ready".into(),
                    status: "True".into(),
                    ..Default::default()
                }]),
                images: Some(vec![ContainerImage::default()]),
                node_info: Some(NodeSystemInfo::default()),
                capacity: Some(BTreeMap::from([("cpu".into(), Quantity("8".into()))])),
                allocatable: Some(BTreeMap::from([("cpu".into(), Quantity("8".into()))])),
                ..Default::default()
            }),
        };
        let kept_spec = node.spec.clone();
        let kept_addresses = node.status.as_ref().and_then(|s| s.addresses.clone());
        let kept_conditions = node.status.as_ref().and_then(|s| s.conditions.clone());
        slim(&mut node);
        assert_eq!(node.spec, kept_spec);
        assert_eq!(node.metadata.name.as_deref(), Some("n1"));
        assert!(node.metadata.labels.is_some() && node.metadata.annotations.is_some());
        assert_eq!(node.metadata.managed_fields, None);
        let status = node.status.expect("status kept");
        assert_eq!(status.addresses, kept_addresses);
        assert_eq!(status.conditions, kept_conditions);
        assert_eq!(status.images, None);
        assert_eq!(status.node_info, None);
        assert_eq!(status.capacity, None);
        assert_eq!(status.allocatable, None);
    }

    #[test]
    fn keeps_only_the_type_and_status_of_the_conditions_controllers_read() {
        let condition = |type_: &str, status: &str| NodeCondition {
            type_: type_.into(),
            status: status.into(),
            reason: Some("KubeletReady".into()),
            message: Some("kubelet is posting ready status".into()),
            last_heartbeat_time: Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
                k8s_openapi::jiff::Timestamp::UNIX_EPOCH,
            )),
            ..Default::default()
        };
        let mut node = Node {
            status: Some(NodeStatus {
                conditions: Some(vec![
                    condition("MemoryPressure", "False"),
                    condition("Ready", "True"),
                    condition("NetworkUnavailable", "False"),
                    condition("DiskPressure", "False"),
                ]),
                ..Default::default()
            }),
            ..Default::default()
        };
        slim(&mut node);
        let kept = node.status.and_then(|s| s.conditions).expect("conditions");
        let bare = |type_: &str, status: &str| NodeCondition {
            type_: type_.into(),
            status: status.into(),
            ..Default::default()
        };
        assert_eq!(
            kept,
            vec![bare("Ready", "True"), bare("NetworkUnavailable", "False")]
        );
    }
}
