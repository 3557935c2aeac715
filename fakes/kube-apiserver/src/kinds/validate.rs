//! Validation shared by all kinds (metadata) and the Node taint rules controllers depend on.

use serde_json::Value;

use super::KindInfo;
use super::names::{self, check_qualified_name};
use crate::status::{Cause, invalid_value, not_supported, required};

/// Node taint effects the API accepts.
const TAINT_EFFECTS: &[&str] = &["NoSchedule", "PreferNoSchedule", "NoExecute"];

/// Name, labels and annotations checks; `creating` enables the name rule (names are immutable).
pub fn metadata(kind: &KindInfo, obj: &Value, creating: bool) -> Vec<Cause> {
    let mut causes = Vec::new();
    let meta = &obj["metadata"];
    let name = meta["name"].as_str().unwrap_or_default();
    if name.is_empty() {
        causes.push(Cause {
            reason: "FieldValueRequired".into(),
            message: "Required value: name or generateName is required".into(),
            field: "metadata.name".into(),
        });
    } else if creating && let Err(why) = names::check(names::rule_for(kind.kind), name) {
        causes.push(invalid_value(
            "metadata.name",
            &Value::String(name.into()),
            &why,
        ));
    }
    if let Some(labels) = meta["labels"].as_object() {
        for (k, v) in labels {
            if let Err(why) = check_qualified_name(k) {
                causes.push(invalid_value(
                    "metadata.labels",
                    &Value::String(k.clone()),
                    &why,
                ));
            }
            let why = match v.as_str() {
                Some(text) => names::check_label_value(text).err(),
                None => Some("label values must be strings".to_string()),
            };
            if let Some(why) = why {
                causes.push(invalid_value("metadata.labels", v, &why));
            }
        }
    }
    if let Some(annotations) = meta["annotations"].as_object() {
        for (k, v) in annotations {
            if let Err(why) = check_qualified_name(k) {
                causes.push(invalid_value(
                    "metadata.annotations",
                    &Value::String(k.clone()),
                    &why,
                ));
            }
            if !v.is_string() {
                causes.push(invalid_value(
                    format!("metadata.annotations.{k}"),
                    v,
                    "annotation values must be strings",
                ));
            }
        }
    }
    causes
}

/// Taints need a qualified key, a known effect, and unique key+effect pairs.
pub fn taints(taints: &Value) -> Vec<Cause> {
    let mut causes = Vec::new();
    let mut seen: Vec<(String, String)> = Vec::new();
    for (i, t) in taints.as_array().into_iter().flatten().enumerate() {
        let key = t["key"].as_str().unwrap_or_default();
        if key.is_empty() {
            causes.push(required(format!("spec.taints[{i}].key")));
        } else if let Err(why) = check_qualified_name(key) {
            causes.push(invalid_value(
                format!("spec.taints[{i}].key"),
                &t["key"],
                &why,
            ));
        }
        if let Some(value) = t["value"].as_str()
            && let Err(why) = names::check_label_value(value)
        {
            causes.push(invalid_value(
                format!("spec.taints[{i}].value"),
                &t["value"],
                &why,
            ));
        }
        let effect = t["effect"].as_str().unwrap_or_default();
        if effect.is_empty() {
            causes.push(required(format!("spec.taints[{i}].effect")));
        } else if !TAINT_EFFECTS.contains(&effect) {
            causes.push(not_supported(
                format!("spec.taints[{i}].effect"),
                effect,
                TAINT_EFFECTS,
            ));
        }
        let pair = (key.to_string(), effect.to_string());
        if seen.contains(&pair) {
            causes.push(Cause {
                reason: "FieldValueDuplicate".into(),
                message: format!(
                    "Duplicate value: \"{key}\": taints must be unique by key and effect pair"
                ),
                field: format!("spec.taints[{i}]"),
            });
        }
        seen.push(pair);
    }
    causes
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn taint_rules() {
        let ok = json!([{"key": "node.cloudprovider.kubernetes.io/uninitialized", "value": "true", "effect": "NoSchedule"}]);
        assert!(taints(&ok).is_empty());
        let bad_value = json!([{"key": "k", "value": "not ok!", "effect": "NoSchedule"}]);
        let causes = taints(&bad_value);
        assert_eq!(causes.len(), 1);
        assert_eq!(causes[0].field, "spec.taints[0].value");
        let bad = json!([{"key": "a", "effect": "Sometimes"}, {"effect": "NoSchedule"}, {"key": "a", "effect": "Sometimes"}]);
        let fields: Vec<String> = taints(&bad).into_iter().map(|c| c.field).collect();
        assert_eq!(
            fields,
            vec![
                "spec.taints[0].effect",
                "spec.taints[1].key",
                "spec.taints[2].effect",
                "spec.taints[2]"
            ]
        );
    }

    #[test]
    fn bad_names_and_labels() {
        let kind = super::super::info(super::super::ids::namespaces());
        let causes = metadata(
            kind,
            &json!({"metadata": {"name": "Bad_Name", "labels": {"ok": "has space"}}}),
            true,
        );
        assert_eq!(causes.len(), 2);
        assert_eq!(causes[0].field, "metadata.name");
        for bad in ["-edge", "edge-", ".x"] {
            let causes = metadata(
                kind,
                &json!({"metadata": {"name": "ok", "labels": {"k": bad}}}),
                true,
            );
            assert_eq!(causes.len(), 1, "{bad}");
        }
    }
}
