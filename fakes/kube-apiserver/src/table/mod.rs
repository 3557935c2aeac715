//! `meta.k8s.io/v1` Table responses: kubectl asks for them on get and watch and prints the
//! columns the server chooses, so each kind gets the columns of the real printers.

mod printers;

use std::sync::Arc;

use serde_json::{Value, json};

use crate::kinds::KindInfo;
pub use printers::{Column, columns};

/// What each row's `object` holds (`includeObject` parameter).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IncludeObject {
    /// Nothing.
    None,
    /// A `PartialObjectMetadata` (the default).
    Metadata,
    /// The full object.
    Object,
}

/// Reads `includeObject`.
pub fn include_object(param: Option<&str>) -> IncludeObject {
    match param {
        Some("None") => IncludeObject::None,
        Some("Object") => IncludeObject::Object,
        _ => IncludeObject::Metadata,
    }
}

/// A Table of `objects`; `with_columns = false` leaves out column definitions (watch events after
/// the first, like the real server).
pub fn render(
    info: &KindInfo,
    objects: &[Arc<Value>],
    include: IncludeObject,
    rv: &str,
    next: Option<&str>,
    with_columns: bool,
) -> Value {
    let cols = columns(info);
    let definitions: Vec<Value> = if with_columns {
        cols.iter()
            .map(|c| json!({"name": c.name, "type": c.ty, "format": c.format, "description": c.description, "priority": c.priority}))
            .collect()
    } else {
        Vec::new()
    };
    let rows: Vec<Value> = objects.iter().map(|o| row(info, o, include)).collect();
    let mut meta = json!({"resourceVersion": rv});
    if let Some(c) = next {
        meta["continue"] = json!(c);
    }
    json!({"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": meta, "columnDefinitions": definitions, "rows": rows})
}

fn row(info: &KindInfo, obj: &Value, include: IncludeObject) -> Value {
    let cells = printers::cells(info, obj);
    let mut r = json!({"cells": cells});
    match include {
        IncludeObject::None => {}
        IncludeObject::Object => r["object"] = obj.clone(),
        IncludeObject::Metadata => {
            let mut meta = obj["metadata"].clone();
            if let Some(m) = meta.as_object_mut() {
                m.remove("managedFields");
            }
            r["object"] = json!({"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": meta});
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinds::{by_resource, info};

    #[test]
    fn every_row_has_one_cell_per_column() {
        for (plural, obj) in [
            (
                "nodes",
                json!({"metadata": {"name": "n1", "labels": {"node-role.kubernetes.io/control-plane": ""}, "creationTimestamp": "2020-01-01T00:00:00Z"},
                "status": {"conditions": [{"type": "Ready", "status": "True"}], "nodeInfo": {"kubeletVersion": "v1.32.0"}, "addresses": [{"type": "InternalIP", "address": "10.1.0.4"}]}}),
            ),
            (
                "services",
                json!({"metadata": {"name": "web"}, "spec": {"type": "LoadBalancer", "clusterIP": "10.0.0.5", "ports": [{"port": 80, "nodePort": 30080, "protocol": "TCP"}]}, "status": {"loadBalancer": {}}}),
            ),
            (
                "pods",
                json!({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}]}, "status": {"phase": "Running"}}),
            ),
        ] {
            let k = info(by_resource("", "v1", plural).unwrap());
            let t = render(
                k,
                &[Arc::new(obj)],
                IncludeObject::Metadata,
                "5",
                None,
                true,
            );
            assert_eq!(
                t["rows"][0]["cells"].as_array().unwrap().len(),
                t["columnDefinitions"].as_array().unwrap().len(),
                "{plural}"
            );
        }
    }
}
