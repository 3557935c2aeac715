//! The kinds this server stores, with the discovery facts clients read (scope, verbs, short names,
//! categories, subresources) and the server behaviour that differs per kind.

/// Static description of one served resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KindInfo {
    /// API group, "" for core.
    pub group: &'static str,
    /// API version.
    pub version: &'static str,
    /// Kind, e.g. `Service`.
    pub kind: &'static str,
    /// Resource plural, the URL segment.
    pub plural: &'static str,
    /// Singular name for discovery.
    pub singular: &'static str,
    /// Short names kubectl expands (`svc`, `no`).
    pub short_names: &'static [&'static str],
    /// Categories (`all`) kubectl uses for `kubectl get all`.
    pub categories: &'static [&'static str],
    /// Whether objects live in a namespace.
    pub namespaced: bool,
    /// Whether a `/status` subresource exists (status is then ignored on the main resource).
    pub has_status: bool,
    /// Whether `metadata.generation` is maintained (bumped when anything but status/metadata changes).
    pub tracks_generation: bool,
    /// Field-selector labels the real server accepts besides metadata.name/metadata.namespace.
    pub field_labels: &'static [&'static str],
}

impl KindInfo {
    /// `v1` or `apps/v1`.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.to_string()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// `ServiceList`.
    pub fn list_kind(&self) -> String {
        format!("{}List", self.kind)
    }
}

const NONE: &[&str] = &[];
const ALL: &[&str] = &["all"];

const fn kind(
    group: &'static str,
    version: &'static str,
    kind: &'static str,
    plural: &'static str,
    singular: &'static str,
    namespaced: bool,
) -> KindInfo {
    KindInfo {
        group,
        version,
        kind,
        plural,
        singular,
        short_names: NONE,
        categories: NONE,
        namespaced,
        has_status: false,
        tracks_generation: false,
        field_labels: NONE,
    }
}

const fn short(mut k: KindInfo, names: &'static [&'static str]) -> KindInfo {
    k.short_names = names;
    k
}

const fn status(mut k: KindInfo) -> KindInfo {
    k.has_status = true;
    k
}

const fn all(mut k: KindInfo) -> KindInfo {
    k.categories = ALL;
    k
}

const fn generation(mut k: KindInfo) -> KindInfo {
    k.tracks_generation = true;
    k
}

const fn fields(mut k: KindInfo, labels: &'static [&'static str]) -> KindInfo {
    k.field_labels = labels;
    k
}

const EVENT_FIELDS: &[&str] = &[
    "involvedObject.kind",
    "involvedObject.namespace",
    "involvedObject.name",
    "involvedObject.uid",
    "involvedObject.apiVersion",
    "involvedObject.resourceVersion",
    "involvedObject.fieldPath",
    "reason",
    "reportingComponent",
    "source",
    "type",
];

/// Every kind served, in discovery order.
pub static KINDS: &[KindInfo] = &[
    fields(
        status(short(
            kind("", "v1", "Namespace", "namespaces", "namespace", false),
            &["ns"],
        )),
        &["status.phase"],
    ),
    fields(
        status(short(
            kind("", "v1", "Node", "nodes", "node", false),
            &["no"],
        )),
        &["spec.unschedulable"],
    ),
    fields(
        all(status(short(
            kind("", "v1", "Service", "services", "service", true),
            &["svc"],
        ))),
        &["spec.clusterIP", "spec.type"],
    ),
    short(
        kind("", "v1", "Endpoints", "endpoints", "endpoints", true),
        &["ep"],
    ),
    fields(
        short(kind("", "v1", "Event", "events", "event", true), &["ev"]),
        EVENT_FIELDS,
    ),
    short(
        kind("", "v1", "ConfigMap", "configmaps", "configmap", true),
        &["cm"],
    ),
    fields(
        kind("", "v1", "Secret", "secrets", "secret", true),
        &["type"],
    ),
    short(
        kind(
            "",
            "v1",
            "ServiceAccount",
            "serviceaccounts",
            "serviceaccount",
            true,
        ),
        &["sa"],
    ),
    fields(
        all(status(short(
            kind("", "v1", "Pod", "pods", "pod", true),
            &["po"],
        ))),
        &[
            "spec.nodeName",
            "spec.restartPolicy",
            "spec.schedulerName",
            "spec.serviceAccountName",
            "spec.hostNetwork",
            "status.phase",
            "status.podIP",
            "status.nominatedNodeName",
        ],
    ),
    kind(
        "discovery.k8s.io",
        "v1",
        "EndpointSlice",
        "endpointslices",
        "endpointslice",
        true,
    ),
    fields(
        short(
            kind("events.k8s.io", "v1", "Event", "events", "event", true),
            &["ev"],
        ),
        EVENT_FIELDS,
    ),
    kind(
        "coordination.k8s.io",
        "v1",
        "Lease",
        "leases",
        "lease",
        true,
    ),
    kind(
        "rbac.authorization.k8s.io",
        "v1",
        "Role",
        "roles",
        "role",
        true,
    ),
    kind(
        "rbac.authorization.k8s.io",
        "v1",
        "RoleBinding",
        "rolebindings",
        "rolebinding",
        true,
    ),
    kind(
        "rbac.authorization.k8s.io",
        "v1",
        "ClusterRole",
        "clusterroles",
        "clusterrole",
        false,
    ),
    kind(
        "rbac.authorization.k8s.io",
        "v1",
        "ClusterRoleBinding",
        "clusterrolebindings",
        "clusterrolebinding",
        false,
    ),
    all(generation(status(short(
        kind(
            "apps",
            "v1",
            "Deployment",
            "deployments",
            "deployment",
            true,
        ),
        &["deploy"],
    )))),
    all(generation(status(short(
        kind("apps", "v1", "DaemonSet", "daemonsets", "daemonset", true),
        &["ds"],
    )))),
    generation(status(short(
        kind(
            "policy",
            "v1",
            "PodDisruptionBudget",
            "poddisruptionbudgets",
            "poddisruptionbudget",
            true,
        ),
        &["pdb"],
    ))),
    short(
        kind(
            "scheduling.k8s.io",
            "v1",
            "PriorityClass",
            "priorityclasses",
            "priorityclass",
            false,
        ),
        &["pc"],
    ),
];

/// Index of a kind in [`KINDS`]; cheap to copy into store keys and watch registrations.
pub type KindId = usize;

/// Finds the kind served at `/api[s]/<group>/<version>/<plural>`.
pub fn by_resource(group: &str, version: &str, plural: &str) -> Option<KindId> {
    KINDS
        .iter()
        .position(|k| k.group == group && k.version == version && k.plural == plural)
}

/// Finds a kind by apiVersion + kind, as written in a request body.
pub fn by_kind(api_version: &str, kind: &str) -> Option<KindId> {
    KINDS
        .iter()
        .position(|k| k.api_version() == api_version && k.kind == kind)
}

/// The kind description for an id returned by this module.
pub fn info(id: KindId) -> &'static KindInfo {
    &KINDS[id]
}

/// Groups in discovery order with their single served version.
pub fn groups() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for k in KINDS {
        if !k.group.is_empty() && !out.contains(&k.group) {
            out.push(k.group);
        }
    }
    out
}

/// Well-known kind ids used by server logic.
pub mod ids {
    use super::{KindId, by_resource};

    /// Namespaces.
    pub fn namespaces() -> KindId {
        by_resource("", "v1", "namespaces").unwrap_or_default()
    }
    /// Services.
    pub fn services() -> KindId {
        by_resource("", "v1", "services").unwrap_or_default()
    }
    /// ServiceAccounts.
    pub fn service_accounts() -> KindId {
        by_resource("", "v1", "serviceaccounts").unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_agree() {
        let svc = by_resource("", "v1", "services").unwrap();
        assert_eq!(info(svc).short_names, &["svc"]);
        assert_eq!(by_kind("v1", "Service"), Some(svc));
        assert_eq!(
            by_kind("coordination.k8s.io/v1", "Lease"),
            by_resource("coordination.k8s.io", "v1", "leases")
        );
        assert_eq!(ids::namespaces(), 0);
        assert!(groups().contains(&"apps"));
    }
}
