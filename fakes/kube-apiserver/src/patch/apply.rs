//! Server-side apply (`application/apply-patch+yaml`). Subset implemented: per-manager field
//! ownership over the list semantics in `schema.rs`, conflicts when another manager owns a field
//! the applier sets to a different value (409 with the real message and causes), `force` to take
//! ownership, removal of fields the applier stopped setting when nobody else owns them, and
//! shared ownership of equal values. Not implemented: unions, defaulting-aware comparisons,
//! per-version field conversion.

use serde_json::{Map, Value};

use super::fieldset::{self, FieldPath, FieldSet, SELF};
use super::managed::{self, Entry};
use super::schema::{ListKind, list_kind};

/// A field another manager owns with a different value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    /// `"m"` or `"m" using v1`.
    pub manager: String,
    /// `.spec.replicas`.
    pub path: String,
}

/// Applies `applied` as `manager` onto `live` (None when creating); returns the new object.
pub fn apply(
    kind: &str,
    live: Option<&Value>,
    applied: &Value,
    manager: &str,
    force: bool,
    now: &str,
) -> Result<Value, Vec<Conflict>> {
    let mut entries = live.map(managed::read).unwrap_or_default();
    let applied_leaves = fieldset::leaves(kind, applied);
    let applied_set: FieldSet = applied_leaves.keys().cloned().collect();
    let live_leaves = live.map(|l| fieldset::leaves(kind, l)).unwrap_or_default();

    let mut conflicts = Vec::new();
    for e in &mut entries {
        if e.manager == manager && e.operation == "Apply" {
            continue;
        }
        let clashing: Vec<FieldPath> = e
            .fields
            .intersection(&applied_set)
            .filter(|p| p.last().is_none_or(|s| s != SELF))
            .filter(|p| live_leaves.get(*p) != applied_leaves.get(*p))
            .cloned()
            .collect();
        if force {
            for p in &clashing {
                e.fields.remove(p);
            }
        } else {
            conflicts.extend(clashing.iter().map(|p| Conflict {
                manager: e.describe(),
                path: fieldset::display(p),
            }));
        }
    }
    if !conflicts.is_empty() {
        return Err(conflicts);
    }

    let mut object = live.cloned().unwrap_or_else(|| Value::Object(Map::new()));
    let previous: FieldSet = entries
        .iter()
        .find(|e| e.manager == manager && e.operation == "Apply")
        .map(|e| e.fields.clone())
        .unwrap_or_default();
    let others: FieldSet = entries
        .iter()
        .filter(|e| !(e.manager == manager && e.operation == "Apply"))
        .flat_map(|e| e.fields.iter().cloned())
        .collect();
    // Remove element markers last so field removals inside an element still find it.
    let mut dropped: Vec<&FieldPath> = previous
        .difference(&applied_set)
        .filter(|p| !others.contains(*p))
        .collect();
    dropped.sort_by_key(|p| p.last().is_some_and(|s| s == SELF));
    for p in dropped {
        fieldset::remove(&mut object, p);
    }
    merge(kind, &mut object, applied, &mut Vec::new());

    entries.retain(|e| !(e.manager == manager && e.operation == "Apply"));
    let api_version = applied["apiVersion"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    entries.push(Entry {
        manager: manager.to_string(),
        operation: "Apply".into(),
        api_version,
        time: now.to_string(),
        subresource: None,
        fields: applied_set,
    });
    let result_leaves = fieldset::leaves(kind, &object);
    for e in &mut entries {
        e.fields.retain(|p| result_leaves.contains_key(p));
    }
    managed::write(&mut object, entries);
    Ok(object)
}

/// Structural merge of an applied configuration into the live object.
fn merge(kind: &str, target: &mut Value, applied: &Value, path: &mut Vec<String>) {
    let Value::Object(src) = applied else {
        *target = applied.clone();
        return;
    };
    if !target.is_object() {
        *target = Value::Object(Map::new());
    }
    let Some(dst) = target.as_object_mut() else {
        return;
    };
    for (k, v) in src {
        if path.is_empty() && k == "metadata" {
            // managedFields in an applied config is ignored; identity fields come from the request.
        }
        path.push(k.clone());
        match v {
            Value::Object(_) => {
                let slot = dst.entry(k.clone()).or_insert(Value::Null);
                merge(kind, slot, v, path);
            }
            Value::Array(items) => {
                let refs: Vec<&str> = path.iter().map(String::as_str).collect();
                match list_kind(kind, &refs) {
                    ListKind::Atomic => {
                        dst.insert(k.clone(), v.clone());
                    }
                    ListKind::Set => {
                        let slot = dst.entry(k.clone()).or_insert(Value::Array(Vec::new()));
                        if let Some(list) = slot.as_array_mut() {
                            for i in items {
                                if !list.contains(i) {
                                    list.push(i.clone());
                                }
                            }
                        }
                    }
                    ListKind::Map { ssa_keys, .. } => {
                        let slot = dst.entry(k.clone()).or_insert(Value::Array(Vec::new()));
                        if !slot.is_array() {
                            *slot = Value::Array(Vec::new());
                        }
                        if let Some(list) = slot.as_array_mut() {
                            for item in items {
                                let key = fieldset::element_key(item, ssa_keys);
                                match list
                                    .iter_mut()
                                    .find(|e| fieldset::element_key(e, ssa_keys) == key)
                                {
                                    Some(existing) => merge(kind, existing, item, path),
                                    None => list.push(item.clone()),
                                }
                            }
                        }
                    }
                }
            }
            scalar => {
                dst.insert(k.clone(), scalar.clone());
            }
        }
        path.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn deploy(replicas: i64, image: &str) -> Value {
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
            "spec": {"replicas": replicas, "template": {"spec": {"containers": [{"name": "c", "image": image}]}}}})
    }

    #[test]
    fn second_manager_conflicts_unless_forced() {
        let first = apply("Deployment", None, &deploy(1, "a"), "alice", false, "t").unwrap();
        let conflicts = apply(
            "Deployment",
            Some(&first),
            &deploy(2, "a"),
            "bob",
            false,
            "t",
        )
        .unwrap_err();
        assert_eq!(
            conflicts,
            vec![Conflict {
                manager: "\"alice\"".into(),
                path: ".spec.replicas".into()
            }]
        );
        let shared = apply(
            "Deployment",
            Some(&first),
            &deploy(1, "a"),
            "bob",
            false,
            "t",
        )
        .unwrap();
        assert_eq!(managed::read(&shared).len(), 2);
        let forced = apply(
            "Deployment",
            Some(&first),
            &deploy(2, "a"),
            "bob",
            true,
            "t",
        )
        .unwrap();
        assert_eq!(forced["spec"]["replicas"], 2);
        let alice = managed::read(&forced)
            .into_iter()
            .find(|e| e.manager == "alice")
            .unwrap();
        assert!(
            !alice
                .fields
                .iter()
                .any(|p| fieldset::display(p) == ".spec.replicas")
        );
    }

    #[test]
    fn fields_no_longer_applied_are_removed() {
        let mut with_label = deploy(1, "a");
        with_label["metadata"]["labels"] = json!({"x": "1"});
        let first = apply("Deployment", None, &with_label, "alice", false, "t").unwrap();
        let second = apply(
            "Deployment",
            Some(&first),
            &deploy(1, "b"),
            "alice",
            false,
            "t",
        )
        .unwrap();
        assert!(second["metadata"]["labels"].get("x").is_none());
        assert_eq!(
            second["spec"]["template"]["spec"]["containers"][0]["image"],
            "b"
        );
    }
}
