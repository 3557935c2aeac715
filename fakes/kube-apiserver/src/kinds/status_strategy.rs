//! What a write through the `/status` subresource may change, per kind, as each real status
//! strategy's `PrepareForUpdate` decides (kubernetes/kubernetes `pkg/registry/*/*/strategy.go`):
//! the spec always comes from the stored object, and metadata comes from the request except
//! where the strategy resets it.
//!
//! - Service (`serviceStatusStrategy`), Node (`nodeStatusStrategy`), Namespace
//!   (`namespaceStatusStrategy`), DaemonSet (`daemonSetStatusStrategy`) and PodDisruptionBudget
//!   (`podDisruptionBudgetStatusStrategy`): only `spec` is reset, so labels, annotations,
//!   finalizers and owner references sent to `/status` are stored. The cloud-provider service
//!   controller adds and removes `service.kubernetes.io/load-balancer-cleanup` this way.
//! - Pod (`podStatusStrategy`): `spec` and `metadata.ownerReferences` are reset.
//! - Deployment (`deploymentStatusStrategy`): `spec` and `metadata.labels` are reset.
//!
//! System metadata (uid, creationTimestamp, deletionTimestamp, ...) is kept by the generic update
//! path for every write, as `rest.BeforeUpdate` does.

use serde_json::Value;

/// Metadata fields a kind's status strategy takes from the stored object.
fn reset_metadata(kind: &str) -> &'static [&'static str] {
    match kind {
        "Pod" => &["ownerReferences"],
        "Deployment" => &["labels"],
        _ => &[],
    }
}

/// Turns the object sent to `/status` into what the real server would store: every top-level
/// field but `metadata` and `status` (the spec) from `old`, and the metadata fields the kind's
/// strategy resets from `old` too.
pub fn prepare_status_update(kind: &str, new: &mut Value, old: &Value) {
    let (Some(new_map), Some(old_map)) = (new.as_object_mut(), old.as_object()) else {
        return;
    };
    new_map.retain(|k, _| matches!(k.as_str(), "metadata" | "status" | "apiVersion" | "kind"));
    for (k, v) in old_map {
        if !matches!(k.as_str(), "metadata" | "status" | "apiVersion" | "kind") {
            new_map.insert(k.clone(), v.clone());
        }
    }
    if !new_map.get("metadata").is_some_and(Value::is_object) {
        new_map.insert("metadata".into(), Value::Object(Default::default()));
    }
    let Some(meta) = new_map.get_mut("metadata").and_then(Value::as_object_mut) else {
        return;
    };
    for field in reset_metadata(kind) {
        match old["metadata"].get(*field) {
            Some(v) => meta.insert((*field).to_string(), v.clone()),
            None => meta.remove(*field),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn spec_is_reset_and_metadata_follows_the_kind() {
        let old = json!({"metadata": {"name": "a", "labels": {"x": "1"}}, "spec": {"replicas": 1}});
        let sent = json!({"metadata": {"name": "a", "labels": {"x": "2"}, "finalizers": ["f"],
            "ownerReferences": [{"uid": "u"}]}, "spec": {"replicas": 5}, "status": {"replicas": 3}});
        for (kind, label, owners) in [
            ("Service", "2", true),
            ("Pod", "2", false),
            ("Deployment", "1", true),
        ] {
            let mut new = sent.clone();
            prepare_status_update(kind, &mut new, &old);
            assert_eq!(new["spec"], json!({"replicas": 1}), "{kind}");
            assert_eq!(new["status"]["replicas"], 3, "{kind}");
            assert_eq!(new["metadata"]["labels"]["x"], label, "{kind}");
            assert_eq!(new["metadata"]["finalizers"], json!(["f"]), "{kind}");
            assert_eq!(
                new["metadata"]["ownerReferences"].is_array(),
                owners,
                "{kind}"
            );
        }
    }
}
