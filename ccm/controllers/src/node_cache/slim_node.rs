//! [`SlimNode`]: a Node decoded without what no controller reads. The JSON of a kubelet's Node is
//! read through a shadow of the Node that names only the kept fields; every other key
//! (managedFields, images, nodeInfo, capacity, allocatable, daemonEndpoints, volumes, config,
//! features, runtimeHandlers, the conditions no controller reads and every condition's reason,
//! message and times, and any field a newer server adds) is skipped by serde as `IgnoredAny`,
//! without building it. The result equals [`super::slim()`] of the whole decode.

use std::collections::BTreeMap;
use std::ops::Deref;

use k8s_openapi::api::core::v1::{Node, NodeAddress, NodeSpec, NodeStatus};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference, Time};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A Node as the controllers cache it; reads as a `&Node` (`Deref`), so the controllers and the
/// provider keep their `&Node` signatures. A kube `Resource` with Node's group, version, kind
/// and plural, so `Api<SlimNode>` and kube-runtime's watcher, reflector and Controller serve it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SlimNode(Node);

impl SlimNode {
    /// The cached Node.
    pub fn node(&self) -> &Node {
        &self.0
    }
}

impl From<Node> for SlimNode {
    /// Slims a whole Node (what decoding a [`SlimNode`] would have kept).
    fn from(mut node: Node) -> Self {
        super::slim(&mut node);
        SlimNode(node)
    }
}

impl Deref for SlimNode {
    type Target = Node;

    fn deref(&self) -> &Node {
        &self.0
    }
}

impl AsRef<Node> for SlimNode {
    fn as_ref(&self) -> &Node {
        &self.0
    }
}

impl k8s_openapi::Resource for SlimNode {
    const API_VERSION: &'static str = <Node as k8s_openapi::Resource>::API_VERSION;
    const GROUP: &'static str = <Node as k8s_openapi::Resource>::GROUP;
    const KIND: &'static str = <Node as k8s_openapi::Resource>::KIND;
    const VERSION: &'static str = <Node as k8s_openapi::Resource>::VERSION;
    const URL_PATH_SEGMENT: &'static str = <Node as k8s_openapi::Resource>::URL_PATH_SEGMENT;
    type Scope = <Node as k8s_openapi::Resource>::Scope;
}

impl k8s_openapi::Metadata for SlimNode {
    type Ty = ObjectMeta;

    fn metadata(&self) -> &ObjectMeta {
        &self.0.metadata
    }

    fn metadata_mut(&mut self) -> &mut ObjectMeta {
        &mut self.0.metadata
    }
}

impl Serialize for SlimNode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for SlimNode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let shadow = ShadowNode::deserialize(deserializer)?;
        Ok(SlimNode(Node {
            metadata: shadow.metadata.into(),
            spec: shadow.spec,
            status: shadow.status.map(Into::into),
        }))
    }
}

/// The kept part of a Node; `apiVersion`, `kind` and the rest are skipped unread.
#[derive(Deserialize)]
struct ShadowNode {
    #[serde(default)]
    metadata: ShadowMeta,
    spec: Option<NodeSpec>,
    status: Option<ShadowStatus>,
}

/// ObjectMeta without `managedFields` (skipped unread).
#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ShadowMeta {
    annotations: Option<BTreeMap<String, String>>,
    creation_timestamp: Option<Time>,
    deletion_grace_period_seconds: Option<i64>,
    deletion_timestamp: Option<Time>,
    finalizers: Option<Vec<String>>,
    generate_name: Option<String>,
    generation: Option<i64>,
    labels: Option<BTreeMap<String, String>>,
    name: Option<String>,
    namespace: Option<String>,
    owner_references: Option<Vec<OwnerReference>>,
    resource_version: Option<String>,
    self_link: Option<String>,
    uid: Option<String>,
}

impl From<ShadowMeta> for ObjectMeta {
    fn from(m: ShadowMeta) -> ObjectMeta {
        ObjectMeta {
            annotations: m.annotations,
            creation_timestamp: m.creation_timestamp,
            deletion_grace_period_seconds: m.deletion_grace_period_seconds,
            deletion_timestamp: m.deletion_timestamp,
            finalizers: m.finalizers,
            generate_name: m.generate_name,
            generation: m.generation,
            labels: m.labels,
            managed_fields: None,
            name: m.name,
            namespace: m.namespace,
            owner_references: m.owner_references,
            resource_version: m.resource_version,
            self_link: m.self_link,
            uid: m.uid,
        }
    }
}

/// The NodeStatus fields a controller or provider reads; the kubelet's inventory is skipped.
#[derive(Deserialize)]
struct ShadowStatus {
    addresses: Option<Vec<NodeAddress>>,
    conditions: Option<Vec<ShadowCondition>>,
    phase: Option<String>,
}

/// A condition's type and status; reason, message and times are skipped unread.
#[derive(Deserialize)]
struct ShadowCondition {
    #[serde(rename = "type")]
    type_: String,
    status: String,
}

impl From<ShadowStatus> for NodeStatus {
    fn from(s: ShadowStatus) -> NodeStatus {
        NodeStatus {
            addresses: s.addresses,
            conditions: s.conditions.map(|conditions| {
                conditions
                    .into_iter()
                    .filter_map(|c| super::slim::cached_condition(c.type_, c.status))
                    .collect()
            }),
            phase: s.phase,
            ..NodeStatus::default()
        }
    }
}

#[cfg(test)]
#[path = "slim_node_tests.rs"]
mod tests;
