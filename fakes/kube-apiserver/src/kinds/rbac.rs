//! Validation of the RBAC kinds. RBAC objects are stored,
//! not enforced (authorization is not modelled), but manifests must be rejected where the real
//! server rejects them: rules without verbs, bindings without a usable roleRef or subject.

use serde_json::{Value, json};

use crate::status::{Cause, invalid_value, not_supported, required};

/// Role and ClusterRole rules: verbs are required; resource rules need API groups; namespaced
/// Roles may not name non-resource URLs.
pub fn validate_role(kind: &str, obj: &Value) -> Vec<Cause> {
    let mut causes = Vec::new();
    for (i, rule) in obj["rules"].as_array().into_iter().flatten().enumerate() {
        let at = format!("rules[{i}]");
        let non_empty = |f: &str| rule[f].as_array().is_some_and(|a| !a.is_empty());
        if !non_empty("verbs") {
            causes.push(required(format!("{at}.verbs")));
        }
        if non_empty("nonResourceURLs") {
            if kind == "Role" {
                causes.push(invalid_value(
                    format!("{at}.nonResourceURLs"),
                    &rule["nonResourceURLs"],
                    "namespaced rules cannot apply to non-resource URLs",
                ));
            }
            if non_empty("resources") || non_empty("apiGroups") {
                causes.push(invalid_value(
                    format!("{at}.nonResourceURLs"),
                    &rule["nonResourceURLs"],
                    "rules cannot apply to both regular resources and non-resource URLs",
                ));
            }
        } else {
            if !non_empty("apiGroups") {
                causes.push(required(format!("{at}.apiGroups")));
            }
            if !non_empty("resources") {
                causes.push(required(format!("{at}.resources")));
            }
        }
    }
    causes
}

/// RoleBinding and ClusterRoleBinding: roleRef names a Role/ClusterRole and cannot change;
/// subjects have a supported kind and a name (ServiceAccounts also a namespace when cluster-scoped).
pub fn prepare_binding(kind: &str, obj: &mut Value, old: Option<&Value>) -> Vec<Cause> {
    let mut causes = Vec::new();
    let role_ref = &obj["roleRef"];
    let ref_kinds: &[&str] = if kind == "RoleBinding" {
        &["Role", "ClusterRole"]
    } else {
        &["ClusterRole"]
    };
    match role_ref["kind"].as_str().unwrap_or_default() {
        "" => causes.push(required("roleRef.kind")),
        k if !ref_kinds.contains(&k) => {
            causes.push(not_supported("roleRef.kind", k, ref_kinds));
        }
        _ => {}
    }
    if role_ref["apiGroup"].as_str().unwrap_or_default() != "rbac.authorization.k8s.io" {
        causes.push(not_supported(
            "roleRef.apiGroup",
            role_ref["apiGroup"].as_str().unwrap_or_default(),
            &["rbac.authorization.k8s.io"],
        ));
    }
    if role_ref["name"].as_str().unwrap_or_default().is_empty() {
        causes.push(required("roleRef.name"));
    }
    if let Some(old) = old
        && old["roleRef"] != obj["roleRef"]
    {
        causes.push(invalid_value(
            "roleRef",
            &obj["roleRef"],
            "cannot change roleRef",
        ));
    }
    let namespaced = kind == "RoleBinding";
    if let Some(subjects) = obj["subjects"].as_array_mut() {
        for (i, s) in subjects.iter_mut().enumerate() {
            let at = format!("subjects[{i}]");
            if s["name"].as_str().unwrap_or_default().is_empty() {
                causes.push(required(format!("{at}.name")));
            }
            match s["kind"].as_str().unwrap_or_default() {
                "ServiceAccount" => {
                    if s["namespace"].as_str().unwrap_or_default().is_empty() && !namespaced {
                        causes.push(required(format!("{at}.namespace")));
                    }
                    if s["apiGroup"].as_str().is_some_and(|g| !g.is_empty()) {
                        causes.push(not_supported(
                            format!("{at}.apiGroup"),
                            s["apiGroup"].as_str().unwrap_or_default(),
                            &[""],
                        ));
                    }
                }
                "User" | "Group" => {
                    if s["apiGroup"].is_null() {
                        s["apiGroup"] = json!("rbac.authorization.k8s.io");
                    }
                }
                other => causes.push(not_supported(
                    format!("{at}.kind"),
                    other,
                    &["ServiceAccount", "User", "Group"],
                )),
            }
        }
    }
    causes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn role_rules_need_verbs_and_groups() {
        let role = json!({"rules": [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["get"]},
            {"resources": ["pods"]}, {"nonResourceURLs": ["/healthz"], "verbs": ["get"]}]});
        assert_eq!(validate_role("ClusterRole", &role).len(), 2);
        let fields: Vec<String> = validate_role("Role", &role)
            .into_iter()
            .map(|c| c.field)
            .collect();
        assert_eq!(
            fields,
            vec![
                "rules[1].verbs",
                "rules[1].apiGroups",
                "rules[2].nonResourceURLs"
            ]
        );
    }

    #[test]
    fn bindings_check_role_ref_and_subjects() {
        let mut ok = json!({"roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "r"},
            "subjects": [{"kind": "ServiceAccount", "name": "sa", "namespace": "kube-system"}, {"kind": "User", "name": "u"}]});
        assert!(prepare_binding("ClusterRoleBinding", &mut ok, None).is_empty());
        assert_eq!(ok["subjects"][1]["apiGroup"], "rbac.authorization.k8s.io");
        let mut bad = json!({"roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "r"},
            "subjects": [{"kind": "ServiceAccount", "name": "sa"}]});
        let fields: Vec<String> = prepare_binding("ClusterRoleBinding", &mut bad, Some(&ok))
            .into_iter()
            .map(|c| c.field)
            .collect();
        assert_eq!(
            fields,
            vec!["roleRef.kind", "roleRef", "subjects[0].namespace"]
        );
    }
}
