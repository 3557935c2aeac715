//! The body of the one write a sync makes to a Node's metadata and spec: a JSON merge patch
//! (RFC 7386) computed from the Node the controller already holds (its watch cache), so no read
//! precedes the write.
//!
//! The patch carries the `metadata.resourceVersion` of the Node it was computed from: the API
//! server answers 409 Conflict when the Node changed since (optimistic concurrency, as for an
//! Update), and the caller then reads the Node fresh and recomputes. It holds only what the
//! controller owns: the labels it sets (a merge patch of a map leaves the other keys alone),
//! `spec.providerID` (only ever set when empty) and, when the uninitialized taint goes,
//! `spec.taints`: a merge patch replaces a list whole, which is safe because the resourceVersion
//! guarantees the list it was computed from is the current one.
//!
//! Verified: RFC 7386 (maps merge key by key, `null` deletes, arrays are replaced); a Kubernetes
//! `PATCH` whose body sets `metadata.resourceVersion` is stored with that version as the
//! precondition, so it fails with 409 Conflict when the stored Node has another one
//! (kubernetes/kubernetes#63104, liggitt's description of the apiserver's patch handler; the same
//! mechanism as controller-runtime's `MergeFromWithOptimisticLock`). The embedded API server
//! (`fake-kube-apiserver` `handlers/patch.rs`) checks it the same way.

use ccm_names::taints::UNINITIALIZED;
use k8s_openapi::api::core::v1::Node;
use serde_json::{Map, Value};

use super::update::NodeUpdate;

/// The merge patch writing `update`'s metadata/spec part to `node` (the Node it was computed
/// from), or `None` when the update writes nothing there.
pub fn merge_patch(node: &Node, update: &NodeUpdate) -> Option<Value> {
    if !update.changes_object() {
        return None;
    }
    let mut metadata = Map::new();
    if let Some(version) = &node.metadata.resource_version {
        metadata.insert("resourceVersion".into(), Value::from(version.as_str()));
    }
    if !update.labels.is_empty() {
        let labels: Map<String, Value> = update
            .labels
            .iter()
            .map(|(k, v)| (k.clone(), Value::from(v.as_str())))
            .collect();
        metadata.insert("labels".into(), Value::Object(labels));
    }
    let mut spec = Map::new();
    if let Some(id) = &update.provider_id {
        spec.insert("providerID".into(), Value::from(id.as_str()));
    }
    if update.remove_uninitialized_taint {
        spec.insert("taints".into(), remaining_taints(node));
    }
    let mut patch = Map::new();
    patch.insert("metadata".into(), Value::Object(metadata));
    if !spec.is_empty() {
        patch.insert("spec".into(), Value::Object(spec));
    }
    Some(Value::Object(patch))
}

/// The node's taints without the uninitialized one, in their order; `null` (field removed, as the
/// API server stores an empty list) when none is left.
fn remaining_taints(node: &Node) -> Value {
    let kept: Vec<Value> = node
        .spec
        .as_ref()
        .and_then(|s| s.taints.as_ref())
        .into_iter()
        .flatten()
        .filter(|t| t.key != UNINITIALIZED)
        .filter_map(|t| serde_json::to_value(t).ok())
        .collect();
    if kept.is_empty() {
        Value::Null
    } else {
        Value::Array(kept)
    }
}
