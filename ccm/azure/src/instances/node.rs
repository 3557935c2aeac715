//! What the provider reads from a Node object: its name, resource group, whether ARM manages it,
//! its providerID and age.

use std::time::Duration;

use ccm_cloud::NodeView;

/// Label naming a node's resource group when it is not the config's (cross-resource-group nodes).
pub const RESOURCE_GROUP_LABEL: &str = "kubernetes.azure.com/resource-group";
/// Label marking a node ARM does not manage (`false`): no ARM lookups for it.
pub const MANAGED_LABEL: &str = "kubernetes.azure.com/managed";

/// The facts of one Node the provider resolves it by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeRef {
    /// `metadata.name`.
    pub name: String,
    /// Label [`RESOURCE_GROUP_LABEL`], else the config's `resourceGroup`.
    pub resource_group: String,
    /// False when labelled `kubernetes.azure.com/managed=false`.
    pub managed: bool,
    /// `spec.providerID`, when set and non-empty.
    pub provider_id: Option<String>,
    /// Age of the Node object, when it has a creation timestamp.
    pub age: Option<Duration>,
}

impl NodeRef {
    /// Reads `node` (a whole `Node` or a cached view), defaulting the resource group to
    /// `default_resource_group`.
    pub fn from_node(node: &dyn NodeView, default_resource_group: &str) -> NodeRef {
        let label = |key: &str| node.label(key);
        let age = node.creation_timestamp().map(|created| {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            let created = u64::try_from(created.as_second()).unwrap_or(0);
            Duration::from_secs(now.saturating_sub(created))
        });
        NodeRef {
            name: node.name().to_owned(),
            resource_group: label(RESOURCE_GROUP_LABEL)
                .filter(|rg| !rg.is_empty())
                .unwrap_or(default_resource_group)
                .to_string(),
            managed: !label(MANAGED_LABEL).is_some_and(|v| v.eq_ignore_ascii_case("false")),
            provider_id: node
                .provider_id()
                .filter(|p| !p.is_empty())
                .map(str::to_owned),
            age,
        }
    }

    /// True while the node is younger than `grace` (`nodeInstanceNotFoundGracePeriodInSeconds`).
    pub fn within_grace(&self, grace: Duration) -> bool {
        !grace.is_zero() && self.age.is_some_and(|age| age < grace)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::{Node, NodeSpec};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    fn node(labels: &[(&str, &str)], provider_id: Option<&str>) -> Node {
        Node {
            metadata: ObjectMeta {
                name: Some("n1".into()),
                labels: Some(
                    labels
                        .iter()
                        .map(|(k, v)| (k.to_string(), v.to_string()))
                        .collect(),
                ),
                ..Default::default()
            },
            spec: Some(NodeSpec {
                provider_id: provider_id.map(str::to_string),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    #[test]
    fn labels_pick_the_group_and_unmanaged_nodes() {
        let r = NodeRef::from_node(&node(&[], None), "cfg-rg");
        assert_eq!(r.resource_group, "cfg-rg");
        assert!(r.managed);
        let r = NodeRef::from_node(
            &node(
                &[(RESOURCE_GROUP_LABEL, "Other-RG"), (MANAGED_LABEL, "False")],
                Some(""),
            ),
            "cfg-rg",
        );
        assert_eq!(r.resource_group, "Other-RG");
        assert!(!r.managed);
        assert_eq!(r.provider_id, None);
        assert!(!r.within_grace(Duration::from_secs(60)), "no age, no grace");
    }
}
