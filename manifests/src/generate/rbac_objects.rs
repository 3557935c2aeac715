//! ServiceAccount, (Cluster)Role and binding objects around the rules computed in `rbac`.

use k8s_openapi::api::core::v1::ServiceAccount;
use k8s_openapi::api::rbac::v1::{
    ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, RoleRef, Subject,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::pod::kube_system_meta;
use super::yaml::{RenderError, to_yaml};

/// ServiceAccount in kube-system.
pub fn service_account(name: &str) -> ServiceAccount {
    ServiceAccount {
        metadata: kube_system_meta(name, &[("k8s-app", name)]),
        ..Default::default()
    }
}

/// ClusterRole with the given rules.
pub fn cluster_role(name: &str, app: &str, rules: Vec<PolicyRule>) -> ClusterRole {
    ClusterRole {
        metadata: ObjectMeta {
            name: Some(name.to_string()),
            labels: super::pod::labels_map(&[("k8s-app", app)]),
            ..Default::default()
        },
        rules: Some(rules),
        aggregation_rule: None,
    }
}

/// Role in kube-system with the given rules.
pub fn role(name: &str, app: &str, rules: Vec<PolicyRule>) -> Role {
    Role {
        metadata: kube_system_meta(name, &[("k8s-app", app)]),
        rules: Some(rules),
    }
}

/// Subject for a kube-system ServiceAccount.
pub fn sa_subject(name: &str) -> Subject {
    Subject {
        kind: "ServiceAccount".to_string(),
        name: name.to_string(),
        namespace: Some(azure_ccm::names::leases::NAMESPACE.to_string()),
        api_group: None,
    }
}

/// Subject for a user (KCM authenticates as `system:kube-controller-manager`).
pub fn user_subject(name: &str) -> Subject {
    Subject {
        kind: "User".to_string(),
        name: name.to_string(),
        namespace: None,
        api_group: Some("rbac.authorization.k8s.io".to_string()),
    }
}

fn role_ref(kind: &str, name: &str) -> RoleRef {
    RoleRef {
        api_group: "rbac.authorization.k8s.io".to_string(),
        kind: kind.to_string(),
        name: name.to_string(),
    }
}

/// Binds a ClusterRole cluster-wide.
pub fn cluster_role_binding(
    name: &str,
    app: &str,
    cluster_role: &str,
    subject: Subject,
) -> ClusterRoleBinding {
    ClusterRoleBinding {
        metadata: ObjectMeta {
            name: Some(name.to_string()),
            labels: super::pod::labels_map(&[("k8s-app", app)]),
            ..Default::default()
        },
        role_ref: role_ref("ClusterRole", cluster_role),
        subjects: Some(vec![subject]),
    }
}

/// Binds a Role (kind given) inside kube-system.
pub fn role_binding(
    name: &str,
    app: &str,
    kind: &str,
    role: &str,
    subject: Subject,
) -> RoleBinding {
    RoleBinding {
        metadata: kube_system_meta(name, &[("k8s-app", app)]),
        role_ref: role_ref(kind, role),
        subjects: Some(vec![subject]),
    }
}

/// A component's cluster-wide identity, rendered: its ServiceAccount, the ClusterRole
/// `azure:<app>` holding `rules`, and the binding between them (every component needs all three).
pub fn identity_documents(app: &str, rules: Vec<PolicyRule>) -> Result<Vec<String>, RenderError> {
    let cluster_role_name = format!("azure:{app}");
    Ok(vec![
        to_yaml("ServiceAccount", &service_account(app))?,
        to_yaml("ClusterRole", &cluster_role(&cluster_role_name, app, rules))?,
        to_yaml(
            "ClusterRoleBinding",
            &cluster_role_binding(&cluster_role_name, app, &cluster_role_name, sa_subject(app)),
        )?,
    ])
}

/// The bindings, rendered, that let a component's secure port hand authentication and
/// authorization of its callers to the API server (`system:auth-delegator` and
/// `extension-apiserver-authentication-reader`).
pub fn delegated_auth_documents(app: &str) -> Result<Vec<String>, RenderError> {
    Ok(vec![
        to_yaml(
            "ClusterRoleBinding",
            &cluster_role_binding(
                &format!("azure:{app}:auth-delegator"),
                app,
                "system:auth-delegator",
                sa_subject(app),
            ),
        )?,
        to_yaml(
            "RoleBinding",
            &role_binding(
                &format!("azure:{app}:authentication-reader"),
                app,
                "Role",
                "extension-apiserver-authentication-reader",
                sa_subject(app),
            ),
        )?,
    ])
}
