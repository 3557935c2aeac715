//! Per-kind knowledge: the registry of served kinds and the defaulting and validation the real
//! server applies before storing an object.

mod container_ports;
pub mod names;
mod priority_class;
mod rbac;
mod registry;
mod service;
pub mod service_alloc;
mod service_update;
pub mod status_strategy;
mod validate;
mod workload;

pub use registry::{KINDS, KindId, KindInfo, by_kind, by_resource, groups, ids, info};

use serde_json::{Value, json};

use crate::status::ApiError;
use crate::store::{State, key_of};

/// Sets `obj[field]` when it is absent or null, as the server's defaulting functions do: a value
/// the client chose is kept.
fn set_default(obj: &mut Value, field: &str, value: Value) {
    if obj[field].is_null() {
        obj[field] = value;
    }
}

/// Applies defaults and validation for `kind` before `obj` is stored; `old` is the stored object
/// on updates. Allocations (cluster IPs, node ports) are claimed here, inside the write lock.
pub fn prepare(
    kind: KindId,
    obj: &mut Value,
    old: Option<&Value>,
    state: &mut State,
) -> Result<(), ApiError> {
    let k = info(kind);
    let name = obj["metadata"]["name"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let mut causes = validate::metadata(k, obj, old.is_none());
    match k.kind {
        "Node" => causes.extend(validate::taints(&obj["spec"]["taints"])),
        "Namespace" => {
            if obj["spec"]["finalizers"].is_null() {
                obj["spec"]["finalizers"] = json!(["kubernetes"]);
            }
            if obj["status"]["phase"].is_null() {
                obj["status"]["phase"] = json!("Active");
            }
        }
        "Pod" => {
            if obj["status"]["phase"].is_null() {
                obj["status"]["phase"] = json!("Pending");
            }
            causes.extend(workload::prepare_pod(obj));
        }
        "Deployment" | "DaemonSet" => causes.extend(workload::prepare_workload(k.kind, obj, old)),
        "PodDisruptionBudget" => causes.extend(workload::prepare_pdb(obj)),
        "Role" | "ClusterRole" => causes.extend(rbac::validate_role(k.kind, obj)),
        "RoleBinding" | "ClusterRoleBinding" => {
            causes.extend(rbac::prepare_binding(k.kind, obj, old));
        }
        "PriorityClass" => causes.extend(priority_class::prepare(obj, old)),
        "Secret" if obj["type"].is_null() => {
            obj["type"] = json!("Opaque");
        }
        _ => {}
    }
    if !causes.is_empty() {
        return Err(ApiError::invalid(k.group, k.kind, &name, causes));
    }
    if k.kind == "Service" {
        let key = key_of(obj);
        service::prepare(&mut state.services, &key, obj, old)
            .map_err(|causes| ApiError::invalid(k.group, k.kind, &name, causes))?;
    }
    Ok(())
}
