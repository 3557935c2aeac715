//! How a [`SlimNode`] is decoded from the API server's JSON without building a `Node`: the JSON
//! is read through a shadow of the Node that names only the kept fields; every other key
//! (managedFields, images, nodeInfo, capacity, allocatable, daemonEndpoints, volumes, config,
//! features, runtimeHandlers, the conditions no controller reads and every condition's reason,
//! message and times, and any field a newer server adds) is skipped by serde as `IgnoredAny`,
//! without building it. Labels, annotations, address types and condition texts are interned as
//! they are read. The result equals `SlimNode::from` of the whole decode.

use k8s_openapi::api::core::v1::{NodeConfigSource, Taint};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference, Time};
use serde::{Deserialize, Deserializer};

use super::interner::{Interned, InternedPairs, intern_pair};
use super::slim::READ_CONDITIONS;
use super::slim_node::{LegacySpec, SlimNode, SlimSpec, SlimStatus};

impl<'de> Deserialize<'de> for SlimNode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let shadow = ShadowNode::deserialize(deserializer)?;
        let meta = shadow.metadata;
        Ok(SlimNode {
            metadata: ObjectMeta {
                annotations: None,
                creation_timestamp: meta.creation_timestamp,
                deletion_grace_period_seconds: meta.deletion_grace_period_seconds,
                deletion_timestamp: meta.deletion_timestamp,
                finalizers: meta.finalizers,
                generate_name: meta.generate_name,
                generation: meta.generation,
                labels: None,
                managed_fields: None,
                name: meta.name,
                namespace: meta.namespace,
                owner_references: meta.owner_references,
                resource_version: meta.resource_version,
                self_link: meta.self_link,
                uid: meta.uid,
            },
            labels: meta.labels.map(|l| l.0),
            annotations: meta.annotations.map(|a| a.0),
            spec: shadow.spec.map(Into::into),
            status: shadow.status.map(Into::into),
        })
    }
}

/// The kept part of a Node; `apiVersion`, `kind` and the rest are skipped unread.
#[derive(Deserialize)]
struct ShadowNode {
    #[serde(default)]
    metadata: ShadowMeta,
    spec: Option<ShadowSpec>,
    status: Option<ShadowStatus>,
}

/// ObjectMeta without `managedFields` (skipped unread).
#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ShadowMeta {
    annotations: Option<InternedPairs>,
    creation_timestamp: Option<Time>,
    deletion_grace_period_seconds: Option<i64>,
    deletion_timestamp: Option<Time>,
    finalizers: Option<Vec<String>>,
    generate_name: Option<String>,
    generation: Option<i64>,
    labels: Option<InternedPairs>,
    name: Option<String>,
    namespace: Option<String>,
    owner_references: Option<Vec<OwnerReference>>,
    resource_version: Option<String>,
    self_link: Option<String>,
    uid: Option<String>,
}

/// NodeSpec, its strings boxed.
#[derive(Deserialize)]
struct ShadowSpec {
    #[serde(rename = "configSource")]
    config_source: Option<NodeConfigSource>,
    #[serde(rename = "externalID")]
    external_id: Option<String>,
    #[serde(rename = "podCIDR")]
    pod_cidr: Option<Box<str>>,
    #[serde(rename = "podCIDRs")]
    pod_cidrs: Option<Box<[Box<str>]>>,
    #[serde(rename = "providerID")]
    provider_id: Option<Box<str>>,
    taints: Option<Box<[Taint]>>,
    unschedulable: Option<bool>,
}

impl From<ShadowSpec> for SlimSpec {
    fn from(s: ShadowSpec) -> SlimSpec {
        SlimSpec {
            provider_id: s.provider_id,
            pod_cidr: s.pod_cidr,
            pod_cidrs: s.pod_cidrs,
            taints: s.taints,
            unschedulable: s.unschedulable,
            legacy: LegacySpec::of(s.config_source, s.external_id),
        }
    }
}

/// The NodeStatus fields a controller or provider reads; the kubelet's inventory is skipped.
#[derive(Deserialize)]
struct ShadowStatus {
    addresses: Option<Vec<ShadowAddress>>,
    conditions: Option<Vec<ShadowCondition>>,
    phase: Option<Interned>,
}

/// A NodeAddress, its type interned.
#[derive(Deserialize)]
struct ShadowAddress {
    #[serde(rename = "type")]
    type_: Interned,
    address: Box<str>,
}

/// A condition's type and status; reason, message and times are skipped unread.
#[derive(Deserialize)]
struct ShadowCondition {
    #[serde(rename = "type")]
    type_: Interned,
    status: Interned,
}

impl From<ShadowStatus> for SlimStatus {
    fn from(s: ShadowStatus) -> SlimStatus {
        SlimStatus {
            addresses: s.addresses.map(|addresses| {
                addresses
                    .into_iter()
                    .map(|a| (a.type_.0, a.address))
                    .collect()
            }),
            conditions: s.conditions.map(|conditions| {
                conditions
                    .into_iter()
                    .filter(|c| READ_CONDITIONS.contains(&&*c.type_.0))
                    .map(|c| intern_pair(c.type_.0, c.status.0))
                    .collect()
            }),
            phase: s.phase.map(|p| p.0),
        }
    }
}
