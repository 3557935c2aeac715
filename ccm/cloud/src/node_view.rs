//! [`NodeView`]: the read-only view of a Node that load balancer code needs, so a provider can
//! read the controllers' compact Node cache without a whole `k8s_openapi` `Node` being built per
//! reconcile (at 5000 Nodes that would be ~17 MB per Service reconcile).

use k8s_openapi::api::core::v1::Node;
use k8s_openapi::jiff::Timestamp;

/// What a provider reads of a Node: its identity, labels, providerID, addresses, taints, the
/// conditions a controller reads and its timestamps. Object safe (load balancer calls take
/// `&[&dyn NodeView]`); implemented by `Node` and by the controllers' cached Node. Every method
/// reads without allocating.
pub trait NodeView: Send + Sync {
    /// `metadata.name` (empty when unset).
    fn name(&self) -> &str;

    /// `metadata.uid`.
    fn uid(&self) -> Option<&str>;

    /// The value of label `key`.
    fn label(&self, key: &str) -> Option<&str>;

    /// `spec.providerID` as set (possibly empty).
    fn provider_id(&self) -> Option<&str>;

    /// The `index`-th of `status.addresses` as `(type, address)`; `None` past the last.
    fn address(&self, index: usize) -> Option<(&str, &str)>;

    /// Whether `spec.taints` holds a taint with key `key`.
    fn has_taint(&self, key: &str) -> bool;

    /// `spec.unschedulable` (false when unset).
    fn unschedulable(&self) -> bool;

    /// The status of the condition of type `type_`, when the Node reports it.
    fn condition_status(&self, type_: &str) -> Option<&str>;

    /// `metadata.creationTimestamp`.
    fn creation_timestamp(&self) -> Option<Timestamp>;

    /// `metadata.deletionTimestamp`: set once the Node is being deleted.
    fn deletion_timestamp(&self) -> Option<Timestamp>;
}

impl dyn NodeView + '_ {
    /// Every `status.addresses` entry as `(type, address)`, in order.
    pub fn addresses(&self) -> impl Iterator<Item = (&str, &str)> + '_ {
        (0..).map_while(move |index| self.address(index))
    }
}

impl NodeView for Node {
    fn name(&self) -> &str {
        self.metadata.name.as_deref().unwrap_or_default()
    }

    fn uid(&self) -> Option<&str> {
        self.metadata.uid.as_deref()
    }

    fn label(&self, key: &str) -> Option<&str> {
        self.metadata
            .labels
            .as_ref()
            .and_then(|labels| labels.get(key))
            .map(String::as_str)
    }

    fn provider_id(&self) -> Option<&str> {
        self.spec.as_ref().and_then(|s| s.provider_id.as_deref())
    }

    fn address(&self, index: usize) -> Option<(&str, &str)> {
        let address = self.status.as_ref()?.addresses.as_ref()?.get(index)?;
        Some((address.type_.as_str(), address.address.as_str()))
    }

    fn has_taint(&self, key: &str) -> bool {
        self.spec
            .as_ref()
            .and_then(|s| s.taints.as_ref())
            .is_some_and(|taints| taints.iter().any(|t| t.key == key))
    }

    fn unschedulable(&self) -> bool {
        self.spec
            .as_ref()
            .and_then(|s| s.unschedulable)
            .unwrap_or(false)
    }

    fn condition_status(&self, type_: &str) -> Option<&str> {
        self.status
            .as_ref()?
            .conditions
            .as_ref()?
            .iter()
            .find(|c| c.type_ == type_)
            .map(|c| c.status.as_str())
    }

    fn creation_timestamp(&self) -> Option<Timestamp> {
        self.metadata.creation_timestamp.as_ref().map(|t| t.0)
    }

    fn deletion_timestamp(&self) -> Option<Timestamp> {
        self.metadata.deletion_timestamp.as_ref().map(|t| t.0)
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::{NodeAddress, NodeCondition, NodeSpec, NodeStatus, Taint};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};

    use super::*;

    #[test]
    fn a_node_reads_through_the_view() {
        let node = Node {
            metadata: ObjectMeta {
                name: Some("n1".into()),
                uid: Some("u1".into()),
                labels: Some([("a".to_owned(), "b".to_owned())].into()),
                creation_timestamp: Some(Time(Timestamp::UNIX_EPOCH)),
                ..Default::default()
            },
            spec: Some(NodeSpec {
                provider_id: Some("azure:///x".into()),
                taints: Some(vec![Taint {
                    key: "t".into(),
                    effect: "NoSchedule".into(),
                    ..Default::default()
                }]),
                ..Default::default()
            }),
            status: Some(NodeStatus {
                addresses: Some(vec![
                    NodeAddress {
                        type_: "InternalIP".into(),
                        address: "10.0.0.4".into(),
                    },
                    NodeAddress {
                        type_: "Hostname".into(),
                        address: "n1".into(),
                    },
                ]),
                conditions: Some(vec![NodeCondition {
                    type_: "Ready".into(),
                    status: "True".into(),
                    ..Default::default()
                }]),
                ..Default::default()
            }),
        };
        let view: &dyn NodeView = &node;
        assert_eq!((view.name(), view.uid()), ("n1", Some("u1")));
        assert_eq!((view.label("a"), view.label("c")), (Some("b"), None));
        assert_eq!(view.provider_id(), Some("azure:///x"));
        assert_eq!(
            view.addresses().collect::<Vec<_>>(),
            [("InternalIP", "10.0.0.4"), ("Hostname", "n1")]
        );
        assert!(view.has_taint("t") && !view.has_taint("u"));
        assert!(!view.unschedulable());
        assert_eq!(view.condition_status("Ready"), Some("True"));
        assert_eq!(view.condition_status("NetworkUnavailable"), None);
        assert_eq!(view.creation_timestamp(), Some(Timestamp::UNIX_EPOCH));
        assert_eq!(view.deletion_timestamp(), None);
        let empty: &dyn NodeView = &Node::default();
        assert_eq!((empty.name(), empty.addresses().count()), ("", 0));
    }
}
