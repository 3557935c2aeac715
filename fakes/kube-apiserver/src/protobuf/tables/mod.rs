//! Field tables of every kind this server serves, transcribed from the `generated.proto` files
//! of `k8s.io/api` and `k8s.io/apimachinery` as compiled into kubectl 1.33: field numbers and
//! JSON names from the proto, value-vs-pointer from the gogoproto `nullable` option, and the
//! `json:",inline"` embeddings (volume sources, probe handlers, `LocalObjectReference`, the
//! ephemeral container's common part) from the Go types.

mod apps;
mod autoscaling;
mod coordination;
mod core_container;
mod core_node;
mod core_objects;
mod core_pod;
mod core_volume;
mod discovery;
mod events;
mod meta;
mod policy;
mod rbac;
mod scheduling;

use super::schema::Message;

/// Top-level messages by `(apiVersion, kind)` as the envelope's `typeMeta` names them.
static ROOTS: &[(&str, &str, &Message)] = &[
    ("v1", "Namespace", &core_objects::NAMESPACE),
    ("v1", "Node", &core_node::NODE),
    ("v1", "Service", &core_objects::SERVICE),
    ("v1", "Endpoints", &core_objects::ENDPOINTS),
    ("v1", "Event", &core_objects::EVENT),
    ("v1", "ConfigMap", &core_objects::CONFIG_MAP),
    ("v1", "Secret", &core_objects::SECRET),
    ("v1", "ServiceAccount", &core_objects::SERVICE_ACCOUNT),
    ("v1", "Pod", &core_pod::POD),
    (
        "discovery.k8s.io/v1",
        "EndpointSlice",
        &discovery::ENDPOINT_SLICE,
    ),
    ("events.k8s.io/v1", "Event", &events::EVENT),
    ("coordination.k8s.io/v1", "Lease", &coordination::LEASE),
    ("rbac.authorization.k8s.io/v1", "Role", &rbac::ROLE),
    (
        "rbac.authorization.k8s.io/v1",
        "RoleBinding",
        &rbac::ROLE_BINDING,
    ),
    (
        "rbac.authorization.k8s.io/v1",
        "ClusterRole",
        &rbac::CLUSTER_ROLE,
    ),
    (
        "rbac.authorization.k8s.io/v1",
        "ClusterRoleBinding",
        &rbac::CLUSTER_ROLE_BINDING,
    ),
    ("apps/v1", "Deployment", &apps::DEPLOYMENT),
    ("apps/v1", "DaemonSet", &apps::DAEMON_SET),
    (
        "policy/v1",
        "PodDisruptionBudget",
        &policy::POD_DISRUPTION_BUDGET,
    ),
    (
        "scheduling.k8s.io/v1",
        "PriorityClass",
        &scheduling::PRIORITY_CLASS,
    ),
    ("autoscaling/v1", "Scale", &autoscaling::SCALE),
];

/// The schema of the object the envelope names, if this server can decode it.
///
/// `DeleteOptions` is registered in every group version, so typed clients send it under their
/// own (`v1`, `apps/v1`...) as well as `meta.k8s.io/v1`.
pub fn root(api_version: &str, kind: &str) -> Option<&'static Message> {
    if kind == "DeleteOptions" {
        let served = api_version == "meta.k8s.io/v1"
            || crate::kinds::KINDS
                .iter()
                .any(|k| k.api_version() == api_version);
        return served.then_some(&meta::DELETE_OPTIONS);
    }
    ROOTS
        .iter()
        .find(|(v, k, _)| *v == api_version && *k == kind)
        .map(|(_, _, m)| *m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protobuf::schema::Kind;

    #[test]
    fn every_served_kind_has_a_table() {
        for info in crate::kinds::KINDS {
            let root = root(&info.api_version(), info.kind);
            assert!(root.is_some(), "{} {}", info.api_version(), info.kind);
        }
        assert!(root("apps/v1", "DeleteOptions").is_some());
        assert!(root("example.com/v1", "DeleteOptions").is_none());
        assert!(root("v1", "LimitRange").is_none());
    }

    /// Walks every reachable message: field numbers unique, JSON names unique within the
    /// object they land in (inline embeddings included), maps keyed by scalars only.
    #[test]
    fn tables_are_consistent() {
        fn json_names(m: &'static Message, names: &mut Vec<&'static str>) {
            for f in m.fields {
                match f.kind {
                    Kind::Inline(inner) => json_names(inner, names),
                    _ => names.push(f.json),
                }
            }
        }
        let mut seen = Vec::new();
        let mut stack: Vec<&'static Message> = ROOTS.iter().map(|r| r.2).collect();
        stack.push(&meta::DELETE_OPTIONS);
        while let Some(m) = stack.pop() {
            if seen.iter().any(|s: &&Message| std::ptr::eq(*s, m)) {
                continue;
            }
            seen.push(m);
            let mut numbers: Vec<u32> = m.fields.iter().map(|f| f.number).collect();
            numbers.sort_unstable();
            numbers.dedup();
            assert_eq!(numbers.len(), m.fields.len(), "{}", m.name);
            let mut names = Vec::new();
            json_names(m, &mut names);
            let count = names.len();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), count, "{}", m.name);
            for f in m.fields {
                match f.kind {
                    Kind::Msg(inner) | Kind::Inline(inner) => stack.push(inner),
                    Kind::Map(value) => assert!(
                        !matches!(value, Kind::Msg(_) | Kind::Inline(_) | Kind::Map(_)),
                        "{}.{}",
                        m.name,
                        f.json
                    ),
                    _ => {}
                }
            }
        }
        assert!(seen.len() > 200, "{}", seen.len());
    }
}
