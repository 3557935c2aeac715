//! [`SlimNode`]: a Node as the controllers cache it, compact. A kubelet's Node is mostly what no
//! cloud controller reads (managedFields, images, nodeInfo, capacity, ...: skipped unread while
//! the JSON is decoded, see [`super::slim_decode`]); what is read is kept in a shape that costs
//! little per Node: labels and annotations as sorted slices of interned strings (shared by
//! every Node of a pool, [`super::interner`]), spec and status fields as boxed slices, no
//! `Node` struct (1.5 KiB inline, most of it status fields never kept).
//!
//! Code that needs a whole `Node` (cloud-node's update and patch logic, InstancesV2 calls, the
//! lifecycle decision for a NotReady Node, routes) calls [`SlimNode::to_node`] per use and drops
//! it; the load balancer path reads the cached Node through [`NodeView`] without materialising
//! one. `SlimNode::from(node).to_node()` equals [`super::slim()`] of the node: what the cache
//! kept before it was compact.

use std::sync::Arc;

use ccm_cloud::NodeView;
use k8s_openapi::api::core::v1::{
    Node, NodeAddress, NodeCondition, NodeConfigSource, NodeSpec, NodeStatus, Taint,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::jiff::Timestamp;
use serde::{Serialize, Serializer};

use super::interner::{Pair, Pairs, intern, intern_pair, lookup, pairs_of};

/// A Node as the controllers cache it (see the module docs). A kube `Resource` with Node's
/// group, version, kind and plural, so `Api<SlimNode>` and kube-runtime's watcher, reflector and
/// Controller serve it; its `ObjectMeta` holds every kept metadata field but the labels and
/// annotations (read them with [`SlimNode::labels`], [`NodeView::label`] and
/// [`SlimNode::annotation`], not through `ResourceExt`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SlimNode {
    pub(super) metadata: ObjectMeta,
    pub(super) labels: Option<Pairs>,
    pub(super) annotations: Option<Pairs>,
    pub(super) spec: Option<SlimSpec>,
    pub(super) status: Option<SlimStatus>,
}

/// The kept `spec`.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct SlimSpec {
    pub(super) provider_id: Option<Box<str>>,
    pub(super) pod_cidr: Option<Box<str>>,
    pub(super) pod_cidrs: Option<Box<[Box<str>]>>,
    pub(super) taints: Option<Box<[Taint]>>,
    pub(super) unschedulable: Option<bool>,
    /// Deprecated fields no controller reads, kept so [`SlimNode::to_node`] gives back what the
    /// cache kept before (almost always absent: one pointer).
    pub(super) legacy: Option<Box<LegacySpec>>,
}

/// `spec.configSource` and `spec.externalID` (deprecated).
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct LegacySpec {
    pub(super) config_source: Option<NodeConfigSource>,
    pub(super) external_id: Option<String>,
}

/// The kept `status`: addresses, phase, and the type and status of the conditions read.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct SlimStatus {
    /// `(type, address)`, the type interned.
    pub(super) addresses: Option<Box<[Address]>>,
    /// `(type, status)` of the conditions in [`super::slim::READ_CONDITIONS`], in input order.
    pub(super) conditions: Option<Pairs>,
    pub(super) phase: Option<Arc<str>>,
}

/// A `status.addresses` entry: its type (interned) and address.
pub(super) type Address = (Arc<str>, Box<str>);

fn boxed(text: Option<String>) -> Option<Box<str>> {
    text.map(String::into_boxed_str)
}

fn owned(text: &Option<Box<str>>) -> Option<String> {
    text.as_deref().map(str::to_owned)
}

fn map_of(pairs: &Option<Pairs>) -> Option<std::collections::BTreeMap<String, String>> {
    pairs.as_ref().map(|pairs| {
        pairs
            .iter()
            .map(|p| (p.key().to_owned(), p.value().to_owned()))
            .collect()
    })
}

impl SlimNode {
    /// The whole Node the cache stands for (what [`super::slim()`] keeps), built per use: for
    /// code that needs a `Node`; never cache it.
    pub fn to_node(&self) -> Node {
        Node {
            metadata: ObjectMeta {
                labels: map_of(&self.labels),
                annotations: map_of(&self.annotations),
                ..self.metadata.clone()
            },
            spec: self.spec.as_ref().map(|s| {
                let legacy = s.legacy.as_deref().cloned().unwrap_or_default();
                NodeSpec {
                    config_source: legacy.config_source,
                    external_id: legacy.external_id,
                    pod_cidr: owned(&s.pod_cidr),
                    pod_cidrs: s
                        .pod_cidrs
                        .as_ref()
                        .map(|c| c.iter().map(|c| c.to_string()).collect()),
                    provider_id: owned(&s.provider_id),
                    taints: s.taints.as_ref().map(|t| t.to_vec()),
                    unschedulable: s.unschedulable,
                }
            }),
            status: self.status.as_ref().map(|s| NodeStatus {
                addresses: s.addresses.as_ref().map(|a| {
                    a.iter()
                        .map(|(type_, address)| NodeAddress {
                            type_: type_.to_string(),
                            address: address.to_string(),
                        })
                        .collect()
                }),
                conditions: s.conditions.as_ref().map(|c| {
                    c.iter()
                        .map(|c| NodeCondition {
                            type_: c.key().to_owned(),
                            status: c.value().to_owned(),
                            ..NodeCondition::default()
                        })
                        .collect()
                }),
                phase: s.phase.as_deref().map(str::to_owned),
                ..NodeStatus::default()
            }),
        }
    }

    /// The labels, sorted by key.
    pub fn labels(&self) -> &[Arc<Pair>] {
        self.labels.as_deref().unwrap_or_default()
    }

    /// The annotations, sorted by key.
    pub fn annotations(&self) -> &[Arc<Pair>] {
        self.annotations.as_deref().unwrap_or_default()
    }

    /// The value of annotation `key`.
    pub fn annotation(&self, key: &str) -> Option<&str> {
        lookup(self.annotations(), key)
    }

    /// `spec.podCIDR`.
    pub fn pod_cidr(&self) -> Option<&str> {
        self.spec.as_ref()?.pod_cidr.as_deref()
    }

    /// `spec.podCIDRs` (empty when unset).
    pub fn pod_cidrs(&self) -> impl Iterator<Item = &str> + '_ {
        self.spec
            .as_ref()
            .and_then(|s| s.pod_cidrs.as_deref())
            .unwrap_or_default()
            .iter()
            .map(|c| &**c)
    }

    /// `spec.taints` (empty when unset).
    pub fn taints(&self) -> &[Taint] {
        self.spec
            .as_ref()
            .and_then(|s| s.taints.as_deref())
            .unwrap_or_default()
    }
}

impl From<Node> for SlimNode {
    /// Slims a whole Node (what decoding a [`SlimNode`] would have kept).
    fn from(mut node: Node) -> Self {
        super::slim(&mut node);
        let labels = node.metadata.labels.take().map(|l| pairs_of(&l));
        let annotations = node.metadata.annotations.take().map(|a| pairs_of(&a));
        SlimNode {
            metadata: node.metadata,
            labels,
            annotations,
            spec: node.spec.map(|s| SlimSpec {
                provider_id: boxed(s.provider_id),
                pod_cidr: boxed(s.pod_cidr),
                pod_cidrs: s
                    .pod_cidrs
                    .map(|c| c.into_iter().map(String::into_boxed_str).collect()),
                taints: s.taints.map(Vec::into_boxed_slice),
                unschedulable: s.unschedulable,
                legacy: LegacySpec::of(s.config_source, s.external_id),
            }),
            status: node.status.map(|s| SlimStatus {
                addresses: s.addresses.map(|a| {
                    a.into_iter()
                        .map(|a| (intern(&a.type_), a.address.into_boxed_str()))
                        .collect()
                }),
                conditions: s.conditions.map(|c| {
                    c.iter()
                        .map(|c| intern_pair(intern(&c.type_), intern(&c.status)))
                        .collect()
                }),
                phase: s.phase.as_deref().map(intern),
            }),
        }
    }
}

impl LegacySpec {
    /// The deprecated fields, boxed when any is set.
    pub(super) fn of(
        config_source: Option<NodeConfigSource>,
        external_id: Option<String>,
    ) -> Option<Box<LegacySpec>> {
        (config_source.is_some() || external_id.is_some()).then(|| {
            Box::new(LegacySpec {
                config_source,
                external_id,
            })
        })
    }
}

impl NodeView for SlimNode {
    fn name(&self) -> &str {
        self.metadata.name.as_deref().unwrap_or_default()
    }

    fn uid(&self) -> Option<&str> {
        self.metadata.uid.as_deref()
    }

    fn label(&self, key: &str) -> Option<&str> {
        lookup(self.labels(), key)
    }

    fn provider_id(&self) -> Option<&str> {
        self.spec.as_ref()?.provider_id.as_deref()
    }

    fn address(&self, index: usize) -> Option<(&str, &str)> {
        let (type_, address) = self.status.as_ref()?.addresses.as_ref()?.get(index)?;
        Some((type_, address))
    }

    fn has_taint(&self, key: &str) -> bool {
        self.taints().iter().any(|t| t.key == key)
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
            .find(|c| c.key() == type_)
            .map(|c| c.value())
    }

    fn creation_timestamp(&self) -> Option<Timestamp> {
        self.metadata.creation_timestamp.as_ref().map(|t| t.0)
    }

    fn deletion_timestamp(&self) -> Option<Timestamp> {
        self.metadata.deletion_timestamp.as_ref().map(|t| t.0)
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
        &self.metadata
    }

    fn metadata_mut(&mut self) -> &mut ObjectMeta {
        &mut self.metadata
    }
}

impl Serialize for SlimNode {
    /// As the Node it stands for (rare: the watch only decodes).
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_node().serialize(serializer)
    }
}

#[cfg(test)]
#[path = "slim_node_tests.rs"]
mod tests;
