//! Zero scalars of Go value fields: the real server stores an object as its Go type, where a
//! string, number or bool held by value (not by pointer) cannot tell `""`, `0` or `false` from
//! unset, and `omitempty` leaves it out when encoding (`spec.unschedulable: false` is stored as
//! no `unschedulable`). The field tables used to decode protobuf bodies already record which
//! fields Go holds by value, so the same tables decide here.

use serde_json::{Map, Value};

use super::schema::{Cardinality, Field, Kind, Message};
use super::tables;

/// JSON pointers of the zero scalars of value fields in `obj`, an object of `kind` in
/// `api_version` (children before the fields that hold them). Kinds without a table have none.
pub fn zero_value_pointers(api_version: &str, kind: &str, obj: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if let (Some(root), Some(map)) = (tables::root(api_version, kind), obj.as_object()) {
        walk(root, map, &mut String::new(), &mut out);
    }
    out
}

/// The field of `msg` (or of a message inlined in it) with JSON name `json`.
fn find(msg: &'static Message, json: &str) -> Option<&'static Field> {
    msg.fields.iter().find_map(|f| match f.kind {
        Kind::Inline(inner) => find(inner, json),
        _ => (f.json == json).then_some(f),
    })
}

fn is_zero_scalar(kind: Kind, v: &Value) -> bool {
    match (kind, v) {
        (Kind::Str | Kind::Bytes, Value::String(s)) => s.is_empty(),
        (Kind::Bool, Value::Bool(b)) => !b,
        (Kind::Int32 | Kind::Int64, Value::Number(n)) => n.as_f64() == Some(0.0),
        _ => false,
    }
}

fn push(pointer: &mut String, segment: &str) -> usize {
    let len = pointer.len();
    pointer.push('/');
    pointer.push_str(&segment.replace('~', "~0").replace('/', "~1"));
    len
}

fn walk(
    msg: &'static Message,
    map: &Map<String, Value>,
    pointer: &mut String,
    out: &mut Vec<String>,
) {
    for (key, value) in map {
        let Some(field) = find(msg, key) else {
            continue;
        };
        let len = push(pointer, key);
        match (field.cardinality, field.kind) {
            (Cardinality::Value, kind) if is_zero_scalar(kind, value) => out.push(pointer.clone()),
            (_, Kind::Msg(inner)) => match value {
                Value::Object(m) => walk(inner, m, pointer, out),
                Value::Array(items) => {
                    for (i, item) in items.iter().enumerate() {
                        if let Some(m) = item.as_object() {
                            let at = push(pointer, &i.to_string());
                            walk(inner, m, pointer, out);
                            pointer.truncate(at);
                        }
                    }
                }
                _ => {}
            },
            (Cardinality::Repeated, Kind::Map(Kind::Msg(inner))) => {
                if let Value::Object(m) = value {
                    for (k, item) in m {
                        if let Some(m) = item.as_object() {
                            let at = push(pointer, k);
                            walk(inner, m, pointer, out);
                            pointer.truncate(at);
                        }
                    }
                }
            }
            _ => {}
        }
        pointer.truncate(len);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn value_fields_are_named_pointer_fields_are_not() {
        let node = json!({"metadata": {"name": "n", "generateName": ""},
            "spec": {"unschedulable": false, "providerID": "",
                "taints": [{"key": "k", "value": "", "effect": "NoSchedule"}]}});
        assert_eq!(
            zero_value_pointers("v1", "Node", &node),
            [
                "/metadata/generateName",
                "/spec/unschedulable",
                "/spec/providerID",
                "/spec/taints/0/value"
            ]
        );
        // Deployment replicas is a pointer: 0 is a value the client chose.
        let d = json!({"spec": {"replicas": 0, "paused": false, "minReadySeconds": 0}});
        assert_eq!(
            zero_value_pointers("apps/v1", "Deployment", &d),
            ["/spec/paused", "/spec/minReadySeconds"]
        );
        let unknown = json!({"spec": {"x": false}});
        assert!(zero_value_pointers("example.com/v1", "Widget", &unknown).is_empty());
    }
}
