//! What the controllers keep of a Node in their cache: the fields a cloud controller or provider
//! reads (metadata without managedFields, the whole spec, status addresses, conditions and
//! phase), not the kubelet's image list, node info, capacity or the server's managedFields. A
//! real Node is mostly those (tens of KiB with managedFields). [`super::SlimNode`] decodes
//! exactly this subset; [`slim`] states it on a decoded Node (and checks the decoder in tests).

use k8s_openapi::api::core::v1::Node;

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
}
