//! The real server decodes every body into its Go type, which drops fields the type does not
//! declare. The k8s-openapi types are generated from the same API definitions, so decoding into
//! them and encoding back yields the object with exactly the known fields; what a body has and
//! the round trip lacks is unknown. Type errors (a string where an integer belongs) fail here as
//! they fail the real decoder.

use k8s_openapi::api::{
    apps, autoscaling, coordination, core, discovery, events, policy, rbac, scheduling,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::kinds::KindInfo;

fn via<T: DeserializeOwned + Serialize>(obj: &Value) -> Result<Value, String> {
    let typed = T::deserialize(obj).map_err(|e| e.to_string())?;
    serde_json::to_value(&typed).map_err(|e| e.to_string())
}

/// `obj` decoded into the API type of `info` and encoded again; `Ok(None)` for a kind without a
/// typed model (nothing is then reported unknown).
pub fn round_trip(info: &KindInfo, obj: &Value) -> Result<Option<Value>, String> {
    use core::v1 as c;
    let out = match (info.group, info.kind) {
        ("", "Namespace") => via::<c::Namespace>(obj),
        ("", "Node") => via::<c::Node>(obj),
        ("", "Service") => via::<c::Service>(obj),
        ("", "Endpoints") => via::<c::Endpoints>(obj),
        ("", "Event") => via::<c::Event>(obj),
        ("", "ConfigMap") => via::<c::ConfigMap>(obj),
        ("", "Secret") => via::<c::Secret>(obj),
        ("", "ServiceAccount") => via::<c::ServiceAccount>(obj),
        ("", "Pod") => via::<c::Pod>(obj),
        ("discovery.k8s.io", "EndpointSlice") => via::<discovery::v1::EndpointSlice>(obj),
        ("events.k8s.io", "Event") => via::<events::v1::Event>(obj),
        ("coordination.k8s.io", "Lease") => via::<coordination::v1::Lease>(obj),
        ("rbac.authorization.k8s.io", "Role") => via::<rbac::v1::Role>(obj),
        ("rbac.authorization.k8s.io", "RoleBinding") => via::<rbac::v1::RoleBinding>(obj),
        ("rbac.authorization.k8s.io", "ClusterRole") => via::<rbac::v1::ClusterRole>(obj),
        ("rbac.authorization.k8s.io", "ClusterRoleBinding") => {
            via::<rbac::v1::ClusterRoleBinding>(obj)
        }
        ("apps", "Deployment") => via::<apps::v1::Deployment>(obj),
        ("apps", "DaemonSet") => via::<apps::v1::DaemonSet>(obj),
        ("policy", "PodDisruptionBudget") => via::<policy::v1::PodDisruptionBudget>(obj),
        ("scheduling.k8s.io", "PriorityClass") => via::<scheduling::v1::PriorityClass>(obj),
        ("autoscaling", "Scale") => via::<autoscaling::v1::Scale>(obj),
        _ => return Ok(None),
    };
    out.map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinds::{KINDS, by_kind};
    use serde_json::json;

    #[test]
    fn every_served_kind_has_a_typed_model() {
        for k in KINDS {
            let obj =
                json!({"apiVersion": k.api_version(), "kind": k.kind, "metadata": {"name": "x"}});
            let back = round_trip(k, &obj).unwrap();
            assert_eq!(back.unwrap()["metadata"]["name"], "x", "{}", k.kind);
        }
    }

    #[test]
    fn unknown_fields_vanish_and_type_errors_fail() {
        let k = KINDS[by_kind("apps/v1", "Deployment").unwrap()];
        let back = round_trip(&k, &json!({"spec": {"replicaz": 1, "replicas": 2,
            "template": {"spec": {"containers": [{"name": "c", "resources": {"limits": {"cpu": 1}}}]}}}}))
        .unwrap()
        .unwrap();
        assert_eq!(back["spec"]["replicas"], 2);
        assert!(back["spec"].get("replicaz").is_none());
        assert_eq!(
            back["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["cpu"],
            "1"
        );
        assert!(round_trip(&k, &json!({"spec": {"replicas": "two"}})).is_err());
    }
}
