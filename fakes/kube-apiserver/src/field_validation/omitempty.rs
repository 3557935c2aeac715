//! Go's `omitempty` on the typed round trip: the real server decodes every write into its Go type
//! and encodes it back, so an empty optional list or map (`spec.taints: []`, `metadata.labels: {}`),
//! an explicit `null` and the zero of a scalar Go holds by value (`spec.unschedulable: false`)
//! are not stored. An empty struct (`status.loadBalancer: {}`, `emptyDir: {}`) is kept: Go encodes
//! a non-nil struct even when it is empty; so is a pointer scalar's zero (`spec.replicas: 0`).
//!
//! Value-or-pointer comes from the protobuf field tables (`crate::protobuf`), transcribed from
//! k8s.io/api's `generated.proto`.
//!
//! Which fields are optional lists and maps is read from the typed model itself (the k8s-openapi
//! types generated from the same API definitions): a field the model accepts without is optional,
//! and an object the model keeps an arbitrary key in is a map. `[infer]` every optional list and
//! map of the served kinds carries `omitempty` in k8s.io/api (the API conventions ask for it).

use serde_json::{Map, Value};

use super::typed::round_trip;
use crate::kinds::KindInfo;

/// A key no API type declares, used to tell maps (which keep it) from structs (which drop it).
const PROBE: &str = "omitempty.probe.invalid";

/// Removes from `obj` every zero value scalar, empty optional list or map and `null` the typed
/// round trip of `info`'s kind would drop.
pub fn drop_empty(info: &KindInfo, obj: &mut Value) {
    let zeros = crate::protobuf::zero_value_pointers(&info.api_version(), info.kind, obj);
    if !zeros.is_empty() {
        let mut trimmed = obj.clone();
        for pointer in &zeros {
            remove(&mut trimmed, pointer);
        }
        // A zero the model writes back by itself (a required `Port` of a daemon endpoint) stays.
        if let Ok(Some(back)) = round_trip(info, &trimmed) {
            for pointer in zeros.iter().filter(|p| back.pointer(p).is_none()) {
                remove(obj, pointer);
            }
        }
    }
    let mut found = Vec::new();
    collect(obj, &mut String::new(), &mut found);
    // Pre-order collection: reversed, children come before their parents.
    for pointer in found.into_iter().rev() {
        if omitted(info, obj, &pointer) {
            remove(obj, &pointer);
        }
    }
}

/// JSON pointers of the empty lists, empty objects and nulls held in object fields.
fn collect(value: &Value, pointer: &mut String, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                if k == "managedFields" {
                    continue;
                }
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&k.replace('~', "~0").replace('/', "~1"));
                if is_empty(v) {
                    out.push(pointer.clone());
                } else {
                    collect(v, pointer, out);
                }
                pointer.truncate(len);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&i.to_string());
                collect(v, pointer, out);
                pointer.truncate(len);
            }
        }
        _ => {}
    }
}

fn is_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Array(a) => a.is_empty(),
        Value::Object(m) => m.is_empty(),
        _ => false,
    }
}

/// Whether the typed round trip drops the empty value at `pointer`.
fn omitted(info: &KindInfo, obj: &Value, pointer: &str) -> bool {
    let Some(value) = obj.pointer(pointer) else {
        return false;
    };
    if value.is_null() {
        return true;
    }
    let mut without = obj.clone();
    remove(&mut without, pointer);
    // Optional: the model accepts the object without it and does not write it back by itself.
    match round_trip(info, &without) {
        Ok(Some(back)) if back.pointer(pointer).is_none() => {}
        _ => return false,
    }
    if value.is_array() {
        return true;
    }
    let mut probed = obj.clone();
    if let Some(slot) = probed.pointer_mut(pointer) {
        let mut m = Map::new();
        m.insert(PROBE.into(), Value::String(String::new()));
        *slot = Value::Object(m);
    }
    let probe_path = format!("{pointer}/{PROBE}");
    matches!(round_trip(info, &probed), Ok(Some(back)) if back.pointer(&probe_path).is_some())
}

fn remove(obj: &mut Value, pointer: &str) {
    let Some((parent, last)) = pointer.rsplit_once('/') else {
        return;
    };
    let key = last.replace("~1", "/").replace("~0", "~");
    if let Some(Value::Object(m)) = obj.pointer_mut(parent) {
        m.remove(&key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinds::{KINDS, by_kind};
    use serde_json::json;

    fn kind(api_version: &str, kind: &str) -> &'static KindInfo {
        &KINDS[by_kind(api_version, kind).unwrap()]
    }

    #[test]
    fn empty_optional_lists_maps_and_nulls_go_structs_stay() {
        let mut node = json!({"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": "n", "labels": {}, "annotations": {"a/b": "x"}, "finalizers": null},
            "spec": {"taints": [], "podCIDRs": ["10.0.0.0/24"], "unschedulable": false},
            "status": {}});
        drop_empty(kind("v1", "Node"), &mut node);
        assert_eq!(
            node,
            json!({"apiVersion": "v1", "kind": "Node",
                "metadata": {"name": "n", "annotations": {"a/b": "x"}},
                "spec": {"podCIDRs": ["10.0.0.0/24"]}, "status": {}})
        );
        let mut svc = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"},
            "spec": {"selector": {}, "ports": [{"port": 80}]}, "status": {"loadBalancer": {}}});
        drop_empty(kind("v1", "Service"), &mut svc);
        assert!(svc["spec"].get("selector").is_none(), "{svc}");
        assert_eq!(svc["status"], json!({"loadBalancer": {}}));
        let mut pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"containers": [{"name": "c", "resources": {"limits": {}}}],
                "volumes": [{"name": "v", "emptyDir": {}}]}});
        drop_empty(kind("v1", "Pod"), &mut pod);
        assert_eq!(pod["spec"]["containers"][0]["resources"], json!({}));
        assert_eq!(pod["spec"]["volumes"][0]["emptyDir"], json!({}));
    }

    #[test]
    fn zeros_the_model_requires_stay() {
        let mut node = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"},
            "spec": {"unschedulable": false},
            "status": {"daemonEndpoints": {"kubeletEndpoint": {"Port": 0}}}});
        drop_empty(kind("v1", "Node"), &mut node);
        assert_eq!(
            node["status"]["daemonEndpoints"]["kubeletEndpoint"]["Port"],
            0
        );
    }

    #[test]
    fn required_lists_stay_even_when_empty() {
        let mut slice = json!({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {"name": "s"}, "addressType": "IPv4", "endpoints": []});
        drop_empty(kind("discovery.k8s.io/v1", "EndpointSlice"), &mut slice);
        assert_eq!(slice["endpoints"], json!([]));
    }
}
