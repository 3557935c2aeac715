//! Which rules hold for a user: the bindings naming it (as a User, through a Group, or as a
//! ServiceAccount) and the roles they reference, stored or built in.

use k8s_openapi::api::rbac::v1::PolicyRule;
use serde_json::Value;

use super::bootstrap;

/// The user a decision is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subject {
    /// User name (`system:serviceaccount:<ns>:<name>` for a ServiceAccount).
    pub user: String,
    /// Groups, `system:authenticated` included when the user is authenticated.
    pub groups: Vec<String>,
}

impl Subject {
    /// A ServiceAccount with the groups the real token authenticator gives it.
    pub fn service_account(namespace: &str, name: &str) -> Self {
        Self {
            user: format!("system:serviceaccount:{namespace}:{name}"),
            groups: vec![
                "system:serviceaccounts".into(),
                format!("system:serviceaccounts:{namespace}"),
                "system:authenticated".into(),
            ],
        }
    }
}

/// A rule that holds for one subject, with where it holds and which object granted it.
#[derive(Debug, Clone)]
pub struct Grant {
    /// `ClusterRole azure:cloud-controller-manager`, `Role kube-system/...`, ...
    pub role: String,
    /// `ClusterRoleBinding "name"` or `RoleBinding "ns/name"`.
    pub binding: String,
    /// Namespace the rule is limited to (`None`: cluster-wide, through a ClusterRoleBinding).
    pub namespace: Option<String>,
    /// The rule.
    pub rule: PolicyRule,
    /// Whether the role is one of `docs` (else a built-in bootstrap role).
    pub generated: bool,
}

/// `appliesToUser`: whether one binding subject names `subject`.
fn names(s: &Value, subject: &Subject) -> bool {
    let name = s["name"].as_str().unwrap_or_default();
    match s["kind"].as_str() {
        Some("User") => name == subject.user,
        Some("Group") => subject.groups.iter().any(|g| g == name),
        Some("ServiceAccount") => {
            let ns = s["namespace"].as_str().unwrap_or_default();
            subject.user == format!("system:serviceaccount:{ns}:{name}")
        }
        _ => false,
    }
}

fn binds(binding: &Value, subject: &Subject) -> bool {
    binding["subjects"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|s| names(s, subject))
}

fn find_role(
    docs: &[Value],
    kind: &str,
    role: &str,
    ns: Option<&str>,
) -> Option<(Vec<PolicyRule>, bool)> {
    let stored = docs.iter().find(|d| {
        d["kind"] == kind
            && d["metadata"]["name"] == role
            && ns.is_none_or(|n| d["metadata"]["namespace"] == n)
    });
    match stored {
        // An unreadable rule list grants nothing, as a role that fails to decode.
        Some(d) => Some((
            serde_json::from_value(d["rules"].clone()).unwrap_or_default(),
            true,
        )),
        None => bootstrap::role(kind, role).map(|r| (r, false)),
    }
}

/// One binding of `subject`: its scope, the role reference and its own description.
struct Bound<'a> {
    scope: Option<String>,
    role_kind: &'a str,
    role_name: &'a str,
    role_ns: Option<String>,
    binding: String,
}

fn bindings<'a>(docs: &'a [Value], subject: &Subject) -> Vec<Bound<'a>> {
    let mut out = Vec::new();
    for (role, group) in bootstrap::GROUP_BINDINGS {
        if subject.groups.iter().any(|g| g == group) {
            out.push(Bound {
                scope: None,
                role_kind: "ClusterRole",
                role_name: role,
                role_ns: None,
                binding: format!("ClusterRoleBinding {role:?} (built-in)"),
            });
        }
    }
    for binding in docs.iter().filter(|d| binds(d, subject)) {
        let role_kind = binding["roleRef"]["kind"].as_str().unwrap_or_default();
        let role_name = binding["roleRef"]["name"].as_str().unwrap_or_default();
        let name = binding["metadata"]["name"].as_str().unwrap_or_default();
        match binding["kind"].as_str() {
            Some("ClusterRoleBinding") => out.push(Bound {
                scope: None,
                role_kind,
                role_name,
                role_ns: None,
                binding: format!("ClusterRoleBinding {name:?}"),
            }),
            Some("RoleBinding") => {
                let ns = binding["metadata"]["namespace"]
                    .as_str()
                    .unwrap_or("default")
                    .to_string();
                out.push(Bound {
                    scope: Some(ns.clone()),
                    role_kind,
                    role_name,
                    role_ns: (role_kind == "Role").then(|| ns.clone()),
                    binding: format!("RoleBinding \"{ns}/{name}\""),
                });
            }
            _ => {}
        }
    }
    out
}

/// Every rule the RBAC objects `docs` (plus the built-in roles and bindings) grant `subject`.
/// A binding whose role exists nowhere grants nothing ([`missing_roles`] names it).
pub fn grants_for(docs: &[Value], subject: &Subject) -> Vec<Grant> {
    let mut grants = Vec::new();
    for b in bindings(docs, subject) {
        let Some((rules, generated)) =
            find_role(docs, b.role_kind, b.role_name, b.role_ns.as_deref())
        else {
            continue;
        };
        let role = match &b.role_ns {
            Some(ns) => format!("{} {ns}/{}", b.role_kind, b.role_name),
            None => format!("{} {}", b.role_kind, b.role_name),
        };
        grants.extend(rules.into_iter().map(|rule| Grant {
            role: role.clone(),
            binding: b.binding.clone(),
            namespace: b.scope.clone(),
            rule,
            generated,
        }));
    }
    grants
}

/// The roles bound to `subject` that neither `docs` nor the built-in roles define.
pub fn missing_roles(docs: &[Value], subject: &Subject) -> Vec<String> {
    bindings(docs, subject)
        .into_iter()
        .filter(|b| find_role(docs, b.role_kind, b.role_name, b.role_ns.as_deref()).is_none())
        .map(|b| format!("{} {} (bound by {})", b.role_kind, b.role_name, b.binding))
        .collect()
}
