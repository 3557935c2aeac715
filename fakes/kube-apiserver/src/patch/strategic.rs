//! Strategic merge patch (`application/strategic-merge-patch+json`): JSON merge patch plus list
//! merging by `patchMergeKey` and the `$patch`, `$retainKeys`, `$deleteFromPrimitiveList` and
//! `$setElementOrder` directives that kubectl sends.

use serde_json::{Map, Value};

use super::schema::{ListKind, list_kind};

/// Applies `patch` to `original` for an object of `kind`.
pub fn apply(kind: &str, original: &Value, patch: &Value) -> Result<Value, String> {
    let mut out = original.clone();
    let Value::Object(patch) = patch else {
        return Err("strategic merge patch must be a JSON object".into());
    };
    merge_map(kind, &mut out, patch, &mut Vec::new())?;
    Ok(out)
}

fn merge_map(
    kind: &str,
    target: &mut Value,
    patch: &Map<String, Value>,
    path: &mut Vec<String>,
) -> Result<(), String> {
    match patch.get("$patch").and_then(Value::as_str) {
        Some("replace") => {
            *target = Value::Object(strip_directives(patch));
            return Ok(());
        }
        Some("delete") => {
            *target = Value::Null;
            return Ok(());
        }
        Some("merge") | None => {}
        Some(other) => {
            return Err(format!(
                "unknown patch type: {other:?} (accepted: replace, delete, merge)"
            ));
        }
    }
    if !target.is_object() {
        *target = Value::Object(Map::new());
    }
    for (key, value) in patch {
        if key == "$patch" || key == "$retainKeys" || key.starts_with("$setElementOrder/") {
            continue;
        }
        if let Some(field) = key.strip_prefix("$deleteFromPrimitiveList/") {
            let drop: Vec<Value> = value.as_array().cloned().unwrap_or_default();
            if let Some(list) = target.get_mut(field).and_then(Value::as_array_mut) {
                list.retain(|v| !drop.contains(v));
            }
            continue;
        }
        let Some(obj) = target.as_object_mut() else {
            continue;
        };
        match value {
            Value::Null => {
                obj.remove(key);
            }
            Value::Object(sub) => {
                path.push(key.clone());
                let slot = obj.entry(key.clone()).or_insert(Value::Null);
                merge_map(kind, slot, sub, path)?;
                if slot.is_null() {
                    obj.remove(key);
                }
                path.pop();
            }
            Value::Array(items) => {
                path.push(key.clone());
                let refs: Vec<&str> = path.iter().map(String::as_str).collect();
                let lk = list_kind(kind, &refs);
                let slot = obj.entry(key.clone()).or_insert(Value::Array(Vec::new()));
                merge_list(kind, slot, items, lk, path)?;
                path.pop();
            }
            scalar => {
                obj.insert(key.clone(), scalar.clone());
            }
        }
    }
    if let Some(retain) = patch.get("$retainKeys").and_then(Value::as_array)
        && let Some(obj) = target.as_object_mut()
    {
        let keep: Vec<&str> = retain.iter().filter_map(Value::as_str).collect();
        obj.retain(|k, _| keep.contains(&k.as_str()));
    }
    if let (Some(obj), Some(order)) = (target.as_object_mut(), Some(patch)) {
        for (key, value) in order {
            if let (Some(field), Some(order)) =
                (key.strip_prefix("$setElementOrder/"), value.as_array())
            {
                let refs: Vec<String> = path
                    .iter()
                    .cloned()
                    .chain(std::iter::once(field.to_string()))
                    .collect();
                let refs: Vec<&str> = refs.iter().map(String::as_str).collect();
                if let (Some(Value::Array(list)), ListKind::Map { smp_key, .. }) =
                    (obj.get_mut(field), list_kind(kind, &refs))
                {
                    reorder(list, order, smp_key);
                }
            }
        }
    }
    Ok(())
}

fn merge_list(
    kind: &str,
    target: &mut Value,
    items: &[Value],
    lk: ListKind,
    path: &mut Vec<String>,
) -> Result<(), String> {
    let replace_all = items
        .iter()
        .any(|i| i.get("$patch").and_then(Value::as_str) == Some("replace"));
    if replace_all || matches!(lk, ListKind::Atomic) {
        let kept: Vec<Value> = items
            .iter()
            .filter(|i| i.get("$patch").is_none())
            .map(|i| match i {
                Value::Object(m) => Value::Object(strip_directives(m)),
                other => other.clone(),
            })
            .collect();
        *target = Value::Array(kept);
        return Ok(());
    }
    if !target.is_array() {
        *target = Value::Array(Vec::new());
    }
    let Some(list) = target.as_array_mut() else {
        return Ok(());
    };
    match lk {
        ListKind::Set => {
            for item in items {
                if !list.contains(item) {
                    list.push(item.clone());
                }
            }
        }
        ListKind::Map { smp_key, .. } => {
            for item in items {
                let Value::Object(patch_item) = item else {
                    return Err(format!(
                        "list {} must hold objects with key {smp_key:?}",
                        path.join(".")
                    ));
                };
                let key = patch_item.get(smp_key).cloned().unwrap_or(Value::Null);
                let pos = list.iter().position(|e| e.get(smp_key) == Some(&key));
                if patch_item.get("$patch").and_then(Value::as_str) == Some("delete") {
                    list.retain(|e| e.get(smp_key) != Some(&key));
                    continue;
                }
                match pos {
                    Some(i) => merge_map(kind, &mut list[i], patch_item, path)?,
                    None => {
                        let mut fresh = Value::Object(Map::new());
                        merge_map(kind, &mut fresh, patch_item, path)?;
                        list.push(fresh);
                    }
                }
            }
        }
        ListKind::Atomic => {}
    }
    Ok(())
}

/// Sorts elements named in `order` into that order, keeping the others after them.
fn reorder(list: &mut [Value], order: &[Value], key: &str) {
    let rank = |v: &Value| {
        order
            .iter()
            .position(|o| o.get(key) == v.get(key))
            .unwrap_or(usize::MAX)
    };
    list.sort_by_key(rank);
}

fn strip_directives(map: &Map<String, Value>) -> Map<String, Value> {
    map.iter()
        .filter(|(k, _)| !k.starts_with('$'))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn merges_containers_by_name_and_ports_by_container_port() {
        let original = json!({"spec": {"containers": [
            {"name": "a", "image": "a:1", "ports": [{"containerPort": 80}, {"containerPort": 81}]},
            {"name": "b", "image": "b:1"}
        ]}});
        let patch = json!({"spec": {"containers": [
            {"name": "a", "image": "a:2", "ports": [{"containerPort": 81, "$patch": "delete"}, {"containerPort": 82}]},
            {"name": "c", "image": "c:1"}
        ]}});
        let out = apply("Pod", &original, &patch).unwrap();
        assert_eq!(
            out,
            json!({"spec": {"containers": [
                {"name": "a", "image": "a:2", "ports": [{"containerPort": 80}, {"containerPort": 82}]},
                {"name": "b", "image": "b:1"},
                {"name": "c", "image": "c:1"}
            ]}})
        );
    }

    #[test]
    fn atomic_lists_replace_and_directives_work() {
        let original = json!({"metadata": {"finalizers": ["a"], "labels": {"x": "1", "y": "2"}}, "spec": {"taints": [{"key": "a", "effect": "NoSchedule"}]}});
        let patch = json!({
            "metadata": {"finalizers": ["b"], "labels": {"x": null}, "$deleteFromPrimitiveList/finalizers": ["a"]},
            "spec": {"taints": [{"key": "b", "effect": "NoExecute"}]}
        });
        let out = apply("Node", &original, &patch).unwrap();
        assert_eq!(out["metadata"]["finalizers"], json!(["b"]));
        assert_eq!(out["metadata"]["labels"], json!({"y": "2"}));
        assert_eq!(
            out["spec"]["taints"],
            json!([{"key": "b", "effect": "NoExecute"}])
        );
        let replaced = apply(
            "Node",
            &out,
            &json!({"metadata": {"labels": {"$patch": "replace", "z": "3"}}}),
        )
        .unwrap();
        assert_eq!(replaced["metadata"]["labels"], json!({"z": "3"}));
        let list_replace = apply(
            "Service",
            &json!({"spec": {"ports": [{"port": 1}]}}),
            &json!({"spec": {"ports": [{"$patch": "replace"}, {"port": 2}]}}),
        )
        .unwrap();
        assert_eq!(list_replace["spec"]["ports"], json!([{"port": 2}]));
    }

    #[test]
    fn set_element_order_reorders() {
        let original = json!({"spec": {"ports": [{"port": 1}, {"port": 2}]}});
        let patch = json!({"spec": {"$setElementOrder/ports": [{"port": 2}, {"port": 1}], "ports": [{"port": 1, "name": "x"}]}});
        let out = apply("Service", &original, &patch).unwrap();
        assert_eq!(
            out["spec"]["ports"],
            json!([{"port": 2}, {"port": 1, "name": "x"}])
        );
    }
}
