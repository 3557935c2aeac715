//! Field sets as server-side apply tracks them: every leaf of an object named by a path of
//! `f:field`, `k:{"key":value}` (map-list element), `v:value` (set element) and `.` (the element
//! itself), encoded in `managedFields[].fieldsV1` as nested objects.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::schema::{ListKind, list_kind};

/// One encoded path.
pub type FieldPath = Vec<String>;
/// Paths owned by one manager.
pub type FieldSet = BTreeSet<FieldPath>;

/// Marker for "the list element itself".
pub const SELF: &str = ".";

/// Metadata fields that are never owned (identity and system-set fields).
const UNMANAGED_META: &[&str] = &[
    "name",
    "namespace",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "managedFields",
    "selfLink",
    "generateName",
];

/// Every owned leaf of `object` with its value (`Null` for `.` markers).
pub fn leaves(kind: &str, object: &Value) -> BTreeMap<FieldPath, Value> {
    let mut out = BTreeMap::new();
    let Some(map) = object.as_object() else {
        return out;
    };
    for (k, v) in map {
        match k.as_str() {
            "apiVersion" | "kind" => {}
            "metadata" => {
                if let Some(meta) = v.as_object() {
                    for (mk, mv) in meta {
                        if UNMANAGED_META.contains(&mk.as_str()) {
                            continue;
                        }
                        walk(
                            kind,
                            mv,
                            &mut vec!["metadata", mk],
                            &mut vec!["f:metadata".into(), format!("f:{mk}")],
                            &mut out,
                        );
                    }
                }
            }
            _ => walk(kind, v, &mut vec![k], &mut vec![format!("f:{k}")], &mut out),
        }
    }
    out
}

/// Walks every field of an object (a struct, or one element of a map-list) one level down.
fn walk_fields<'a>(
    kind: &str,
    map: &'a serde_json::Map<String, Value>,
    fields: &mut Vec<&'a str>,
    path: &mut FieldPath,
    out: &mut BTreeMap<FieldPath, Value>,
) {
    for (k, v) in map {
        fields.push(k);
        path.push(format!("f:{k}"));
        walk(kind, v, fields, path, out);
        path.pop();
        fields.pop();
    }
}

fn walk<'a>(
    kind: &str,
    value: &'a Value,
    fields: &mut Vec<&'a str>,
    path: &mut FieldPath,
    out: &mut BTreeMap<FieldPath, Value>,
) {
    match value {
        Value::Object(map) if !map.is_empty() => walk_fields(kind, map, fields, path, out),
        Value::Array(items) => match list_kind(kind, fields) {
            ListKind::Atomic => {
                out.insert(path.clone(), value.clone());
            }
            ListKind::Set => {
                for item in items {
                    path.push(format!("v:{item}"));
                    out.insert(path.clone(), item.clone());
                    path.pop();
                }
            }
            ListKind::Map { ssa_keys, .. } => {
                for item in items {
                    path.push(element_key(item, ssa_keys));
                    path.push(SELF.into());
                    out.insert(path.clone(), Value::Null);
                    path.pop();
                    if let Some(map) = item.as_object() {
                        walk_fields(kind, map, fields, path, out);
                    }
                    path.pop();
                }
            }
        },
        other => {
            out.insert(path.clone(), other.clone());
        }
    }
}

/// `k:{"port":80,"protocol":"TCP"}` for a map-list element (keys in listMapKey order). A missing
/// `protocol` key counts as its schema default `TCP`, as structured-merge-diff does, so an applied
/// `{port: 80}` addresses the stored `{port: 80, protocol: TCP}` element.
pub fn element_key(item: &Value, keys: &[&str]) -> String {
    let mut m = Map::new();
    for k in keys {
        match item.get(*k) {
            Some(v) if !v.is_null() => {
                m.insert((*k).to_string(), v.clone());
            }
            _ if *k == "protocol" => {
                m.insert((*k).to_string(), Value::String("TCP".into()));
            }
            _ => {}
        }
    }
    format!("k:{}", Value::Object(m))
}

/// Nested `fieldsV1` object for a set.
pub fn encode(set: &FieldSet) -> Value {
    let mut root = Map::new();
    for path in set {
        let mut cur = &mut root;
        for seg in path {
            let entry = cur
                .entry(seg.clone())
                .or_insert_with(|| Value::Object(Map::new()));
            match entry {
                Value::Object(m) => cur = m,
                _ => break,
            }
        }
    }
    Value::Object(root)
}

/// Reads a `fieldsV1` object back into a set.
pub fn decode(value: &Value) -> FieldSet {
    let mut out = FieldSet::new();
    let mut path = Vec::new();
    decode_into(value, &mut path, &mut out);
    out
}

fn decode_into(value: &Value, path: &mut FieldPath, out: &mut FieldSet) {
    let Some(map) = value.as_object() else { return };
    for (k, v) in map {
        path.push(k.clone());
        if v.as_object().is_some_and(Map::is_empty) {
            out.insert(path.clone());
        } else {
            decode_into(v, path, out);
        }
        path.pop();
    }
}

/// The path as the real server prints it in conflicts: `.spec.ports[port=80,protocol="TCP"].name`.
pub fn display(path: &FieldPath) -> String {
    let mut s = String::new();
    for seg in path {
        if let Some(f) = seg.strip_prefix("f:") {
            s.push('.');
            s.push_str(f);
        } else if let Some(k) = seg.strip_prefix("k:") {
            let parsed: Map<String, Value> = serde_json::from_str(k).unwrap_or_default();
            let parts: Vec<String> = parsed.iter().map(|(k, v)| format!("{k}={v}")).collect();
            s.push_str(&format!("[{}]", parts.join(",")));
        } else if let Some(v) = seg.strip_prefix("v:") {
            s.push_str(&format!("[={v}]"));
        }
    }
    s
}

/// Removes the field a path names from `object` (elements for `.`/`v:` paths).
pub fn remove(object: &mut Value, path: &[String]) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    if last == SELF {
        // Remove the list element named by the previous segment.
        if let Some((elem, list_path)) = parents.split_last()
            && let Some(Value::Array(items)) = navigate(object, list_path)
            && let Some(k) = elem.strip_prefix("k:")
        {
            let key: Map<String, Value> = serde_json::from_str(k).unwrap_or_default();
            items.retain(|i| !key.iter().all(|(kk, kv)| i.get(kk) == Some(kv)));
        }
        return;
    }
    if let Some(v) = last.strip_prefix("v:") {
        let value: Value = serde_json::from_str(v).unwrap_or(Value::Null);
        if let Some(Value::Array(items)) = navigate(object, parents) {
            items.retain(|i| *i != value);
        }
        return;
    }
    if let (Some(f), Some(Value::Object(map))) =
        (last.strip_prefix("f:"), navigate(object, parents))
    {
        map.remove(f);
    }
}

fn navigate<'a>(object: &'a mut Value, path: &[String]) -> Option<&'a mut Value> {
    let mut cur = object;
    for seg in path {
        if let Some(f) = seg.strip_prefix("f:") {
            cur = cur.get_mut(f)?;
        } else if let Some(k) = seg.strip_prefix("k:") {
            let key: Map<String, Value> = serde_json::from_str(k).ok()?;
            cur = cur
                .as_array_mut()?
                .iter_mut()
                .find(|i| key.iter().all(|(kk, kv)| i.get(kk) == Some(kv)))?;
        } else {
            return None;
        }
    }
    Some(cur)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn leaves_encode_decode_and_display() {
        let svc = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "a", "labels": {"app": "x"}},
            "spec": {"ports": [{"port": 80, "protocol": "TCP", "name": "http"}], "selector": {"app": "x"}}});
        let l = leaves("Service", &svc);
        let set: FieldSet = l.keys().cloned().collect();
        let fields = encode(&set);
        assert_eq!(
            fields,
            json!({
                "f:metadata": {"f:labels": {"f:app": {}}},
                "f:spec": {"f:ports": {"k:{\"port\":80,\"protocol\":\"TCP\"}": {".": {}, "f:name": {}, "f:port": {}, "f:protocol": {}}}, "f:selector": {"f:app": {}}}
            })
        );
        assert_eq!(decode(&fields), set);
        let name = set
            .iter()
            .find(|p| p.last().is_some_and(|s| s == "f:name"))
            .unwrap();
        assert_eq!(display(name), ".spec.ports[port=80,protocol=\"TCP\"].name");
        let mut obj = svc.clone();
        remove(
            &mut obj,
            &[
                "f:spec".into(),
                "f:ports".into(),
                "k:{\"port\":80,\"protocol\":\"TCP\"}".into(),
                ".".into(),
            ],
        );
        assert_eq!(obj["spec"]["ports"], json!([]));
        remove(
            &mut obj,
            &["f:metadata".into(), "f:labels".into(), "f:app".into()],
        );
        assert_eq!(obj["metadata"]["labels"], json!({}));
    }
}
