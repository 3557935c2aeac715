//! How each list field of the supported kinds merges: the `patchMergeKey`/`patchStrategy` tags
//! strategic merge patch reads and the `listType`/`listMapKey` markers server-side apply reads,
//! taken from the Kubernetes API types (k8s.io/api) for the fields these kinds have.

/// Merge behaviour of one list field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListKind {
    /// Replaced as a whole (no strategy in the API types).
    Atomic,
    /// Elements merged by `smp_key`; server-side apply identifies them by `ssa_keys`.
    Map {
        /// `patchMergeKey`.
        smp_key: &'static str,
        /// `listMapKey` entries.
        ssa_keys: &'static [&'static str],
    },
    /// Primitive list merged as a set (`patchStrategy:"merge"` on scalars, `listType=set`).
    Set,
}

const fn map(smp_key: &'static str, ssa_keys: &'static [&'static str]) -> ListKind {
    ListKind::Map { smp_key, ssa_keys }
}

/// Lists inside a PodSpec, relative to it.
const POD_SPEC: &[(&str, ListKind)] = &[
    ("containers", map("name", &["name"])),
    ("initContainers", map("name", &["name"])),
    ("ephemeralContainers", map("name", &["name"])),
    ("volumes", map("name", &["name"])),
    ("imagePullSecrets", map("name", &["name"])),
    ("hostAliases", map("ip", &["ip"])),
    (
        "topologySpreadConstraints",
        map("topologyKey", &["topologyKey", "whenUnsatisfiable"]),
    ),
    ("resourceClaims", map("name", &["name"])),
    ("schedulingGates", map("name", &["name"])),
];

/// Lists inside a Container, relative to it.
const CONTAINER: &[(&str, ListKind)] = &[
    (
        "ports",
        map("containerPort", &["containerPort", "protocol"]),
    ),
    ("env", map("name", &["name"])),
    ("volumeMounts", map("mountPath", &["mountPath"])),
    ("volumeDevices", map("devicePath", &["devicePath"])),
];

const CONDITIONS: ListKind = map("type", &["type"]);

/// The merge behaviour of the list at `path` (field names from the object root, list
/// positions left out) in an object of `kind`.
pub fn list_kind(kind: &str, path: &[&str]) -> ListKind {
    match path {
        ["metadata", "finalizers"] => return ListKind::Set,
        ["metadata", "ownerReferences"] => return map("uid", &["uid"]),
        _ => {}
    }
    let pod_spec_at: &[&str] = match kind {
        "Pod" => &["spec"],
        "Deployment" | "DaemonSet" => &["spec", "template", "spec"],
        _ => &[],
    };
    if !pod_spec_at.is_empty()
        && let Some(rest) = path.strip_prefix(pod_spec_at)
    {
        return pod_spec_list(rest);
    }
    match (kind, path) {
        ("Pod", ["status", "conditions"]) => CONDITIONS,
        ("Pod", ["status", "podIPs"] | ["status", "hostIPs"]) => map("ip", &["ip"]),
        ("Service", ["spec", "ports"]) => map("port", &["port", "protocol"]),
        // patchMergeKey=name without a listType: server-side apply keys it by the merge key.
        ("ServiceAccount", ["secrets"]) => map("name", &["name"]),
        ("Service", ["status", "conditions"]) => CONDITIONS,
        ("Node", ["status", "conditions"]) => CONDITIONS,
        ("Node", ["status", "addresses"]) => map("type", &["type"]),
        ("Node", ["spec", "podCIDRs"]) => ListKind::Set,
        (
            "Namespace" | "Deployment" | "DaemonSet" | "PodDisruptionBudget",
            ["status", "conditions"],
        ) => CONDITIONS,
        _ => ListKind::Atomic,
    }
}

fn pod_spec_list(rest: &[&str]) -> ListKind {
    match rest {
        [field] => lookup(POD_SPEC, field),
        [
            "containers" | "initContainers" | "ephemeralContainers",
            field,
        ] => lookup(CONTAINER, field),
        _ => ListKind::Atomic,
    }
}

fn lookup(table: &[(&str, ListKind)], field: &str) -> ListKind {
    table
        .iter()
        .find(|(f, _)| *f == field)
        .map_or(ListKind::Atomic, |(_, k)| *k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_keys_follow_the_api_types() {
        assert_eq!(
            list_kind("Deployment", &["spec", "template", "spec", "containers"]),
            map("name", &["name"])
        );
        assert_eq!(
            list_kind("Pod", &["spec", "containers", "ports"]),
            map("containerPort", &["containerPort", "protocol"])
        );
        assert_eq!(
            list_kind("Service", &["spec", "ports"]),
            map("port", &["port", "protocol"])
        );
        assert_eq!(list_kind("Node", &["spec", "taints"]), ListKind::Atomic);
        assert_eq!(
            list_kind("ServiceAccount", &["secrets"]),
            map("name", &["name"])
        );
        assert_eq!(
            list_kind("ServiceAccount", &["imagePullSecrets"]),
            ListKind::Atomic
        );
        assert_eq!(
            list_kind("Node", &["metadata", "finalizers"]),
            ListKind::Set
        );
        assert_eq!(list_kind("EndpointSlice", &["endpoints"]), ListKind::Atomic);
    }
}
