//! The built-in roles and bindings every cluster has (kubernetes
//! `plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go` and `namespace_policy.go`), for the
//! ones the CCM's RBAC and its tests reference. Stored objects of the same name win.

use k8s_openapi::api::rbac::v1::PolicyRule;

fn owned(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn rule(groups: &[&str], resources: &[&str], names: &[&str], verbs: &[&str]) -> PolicyRule {
    PolicyRule {
        api_groups: Some(owned(groups)),
        resources: Some(owned(resources)),
        resource_names: (!names.is_empty()).then(|| owned(names)),
        verbs: owned(verbs),
        non_resource_urls: None,
    }
}

fn urls(urls: &[&str]) -> PolicyRule {
    PolicyRule {
        non_resource_urls: Some(owned(urls)),
        verbs: owned(&["get"]),
        ..Default::default()
    }
}

/// Rules of a built-in role, `kind` being `Role` or `ClusterRole`.
pub fn role(kind: &str, name: &str) -> Option<Vec<PolicyRule>> {
    match (kind, name) {
        ("ClusterRole", "system:auth-delegator") => Some(vec![
            rule(
                &["authentication.k8s.io"],
                &["tokenreviews"],
                &[],
                &["create"],
            ),
            rule(
                &["authorization.k8s.io"],
                &["subjectaccessreviews"],
                &[],
                &["create"],
            ),
        ]),
        ("Role", "extension-apiserver-authentication-reader") => Some(vec![rule(
            &[""],
            &["configmaps"],
            &["extension-apiserver-authentication"],
            &["get", "list", "watch"],
        )]),
        ("ClusterRole", "cluster-admin") => Some(vec![
            rule(&["*"], &["*"], &[], &["*"]),
            PolicyRule {
                non_resource_urls: Some(owned(&["*"])),
                verbs: owned(&["*"]),
                ..Default::default()
            },
        ]),
        ("ClusterRole", "system:discovery") => Some(vec![urls(&[
            "/api",
            "/api/*",
            "/apis",
            "/apis/*",
            "/healthz",
            "/livez",
            "/openapi",
            "/openapi/*",
            "/readyz",
            "/version",
            "/version/",
        ])]),
        ("ClusterRole", "system:public-info-viewer") => Some(vec![urls(&[
            "/healthz",
            "/livez",
            "/readyz",
            "/version",
            "/version/",
        ])]),
        _ => None,
    }
}

/// Built-in ClusterRoleBindings to groups: (role, group).
pub const GROUP_BINDINGS: &[(&str, &str)] = &[
    ("system:discovery", "system:authenticated"),
    ("system:public-info-viewer", "system:authenticated"),
    ("system:public-info-viewer", "system:unauthenticated"),
    ("cluster-admin", "system:masters"),
];
