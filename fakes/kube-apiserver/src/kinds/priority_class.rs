//! scheduling.k8s.io PriorityClass defaulting and validation (the manifests of the cloud node
//! manager reference priority classes, and the real server checks these rules on create).

use serde_json::{Value, json};

use crate::status::{Cause, invalid_value, not_supported};

/// PriorityClass: the `system-` prefix is reserved, `value` is immutable, and the preemption
/// policy defaults to `PreemptLowerPriority`.
pub fn prepare(obj: &mut Value, old: Option<&Value>) -> Vec<Cause> {
    let mut causes = Vec::new();
    if obj["preemptionPolicy"].is_null() {
        obj["preemptionPolicy"] = json!("PreemptLowerPriority");
    }
    let name = obj["metadata"]["name"].as_str().unwrap_or_default();
    let system = ["system-node-critical", "system-cluster-critical"];
    if old.is_none() && name.starts_with("system-") && !system.contains(&name) {
        causes.push(Cause {
            reason: "FieldValueForbidden".into(),
            message: "Forbidden: priority class names with 'system-' prefix are reserved".into(),
            field: "metadata.name".into(),
        });
    }
    if obj["value"].is_null() {
        // `value` is a plain int32 in the API types: absent means 0.
        obj["value"] = json!(0);
    }
    match &obj["value"] {
        Value::Number(n) if n.as_i64().is_some_and(|v| i32::try_from(v).is_ok()) => {}
        other => causes.push(invalid_value("value", other, "must be a 32-bit integer")),
    }
    if let Some(policy) = obj["preemptionPolicy"].as_str()
        && !["PreemptLowerPriority", "Never"].contains(&policy)
    {
        causes.push(not_supported(
            "preemptionPolicy",
            policy,
            &["Never", "PreemptLowerPriority"],
        ));
    }
    if let Some(old) = old
        && old["value"] != obj["value"]
    {
        causes.push(Cause {
            reason: "FieldValueForbidden".into(),
            message: "Forbidden: may not be changed in an update.".into(),
            field: "value".into(),
        });
    }
    causes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn priority_classes() {
        let mut pc = json!({"metadata": {"name": "high"}, "value": 1000});
        assert!(prepare(&mut pc, None).is_empty());
        assert_eq!(pc["preemptionPolicy"], "PreemptLowerPriority");
        let mut reserved = json!({"metadata": {"name": "system-mine"}, "value": 1});
        assert_eq!(prepare(&mut reserved, None)[0].field, "metadata.name");
        let mut changed = json!({"metadata": {"name": "high"}, "value": 1});
        assert_eq!(prepare(&mut changed, Some(&pc))[0].field, "value");
    }
}
