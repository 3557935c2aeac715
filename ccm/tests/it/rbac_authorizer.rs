//! The RBAC authorizer, for tests: reads the calls a user made from the embedded API server's
//! audit log and decides, as kube-apiserver's RBAC authorizer does
//! (`plugin/pkg/auth/authorizer/rbac/rbac.go` and `rbac/v1/evaluation_helpers.go`: `VerbMatches`,
//! `APIGroupMatches`, `ResourceMatches` with `resource/subresource` and `*`, `ResourceNameMatches`,
//! `NonResourceURLMatches`), whether the roles bound to a ServiceAccount allow each of them.

use std::collections::BTreeSet;
use std::fmt;
use std::path::Path;

use k8s_openapi::api::rbac::v1::PolicyRule;
use serde_json::Value;

/// One request as the authorizer sees it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Call {
    /// Kubernetes verb.
    pub verb: String,
    /// API group ("" = core).
    pub group: String,
    /// Resource plural ("" for a non-resource request).
    pub resource: String,
    /// Subresource, "" when none.
    pub subresource: String,
    /// Namespace, "" for cluster-scoped or all-namespaces requests.
    pub namespace: String,
    /// Object name ("" for collections without a `metadata.name` field selector).
    pub name: String,
    /// Path of a non-resource request ("" for resource requests).
    pub path: String,
}

impl fmt::Display for Call {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.path.is_empty() {
            return write!(f, "{} {}", self.verb, self.path);
        }
        let group = if self.group.is_empty() {
            "core"
        } else {
            &self.group
        };
        write!(f, "{} {group}/{}", self.verb, self.resource)?;
        if !self.subresource.is_empty() {
            write!(f, "/{}", self.subresource)?;
        }
        if !self.namespace.is_empty() {
            write!(f, " in {}", self.namespace)?;
        }
        if !self.name.is_empty() {
            write!(f, " name={}", self.name)?;
        }
        Ok(())
    }
}

/// Every distinct call `username` made, from the audit log's JSON lines.
pub fn calls_by(log: &Path, username: &str) -> BTreeSet<Call> {
    let text = std::fs::read_to_string(log).expect("audit log");
    let field = |v: &Value, k: &str| v[k].as_str().unwrap_or_default().to_string();
    text.lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("audit event JSON"))
        .filter(|e| e["user"]["username"] == username)
        .map(|e| {
            let o = &e["objectRef"];
            let path = if o.is_object() {
                String::new()
            } else {
                field(&e, "requestURI")
                    .split('?')
                    .next()
                    .unwrap_or_default()
                    .to_string()
            };
            Call {
                verb: field(&e, "verb"),
                group: field(o, "apiGroup"),
                resource: field(o, "resource"),
                subresource: field(o, "subresource"),
                namespace: field(o, "namespace"),
                name: field(o, "name"),
                path,
            }
        })
        .collect()
}

/// A rule that holds for one subject, with where it holds and which object granted it.
#[derive(Debug, Clone)]
pub struct Grant {
    /// `ClusterRole azure:cloud-controller-manager`, `Role kube-system/...`, ...
    pub role: String,
    /// Namespace the rule is limited to (`None`: cluster-wide, through a ClusterRoleBinding).
    pub namespace: Option<String>,
    /// The rule.
    pub rule: PolicyRule,
    /// Whether the role is one of the generated manifests (else a built-in bootstrap role).
    pub generated: bool,
}

fn rule(groups: &[&str], resources: &[&str], names: &[&str], verbs: &[&str]) -> PolicyRule {
    let owned = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    PolicyRule {
        api_groups: Some(owned(groups)),
        resources: Some(owned(resources)),
        resource_names: (!names.is_empty()).then(|| owned(names)),
        verbs: owned(verbs),
        non_resource_urls: None,
    }
}

/// Rules of the bootstrap roles the manifests bind to (kubernetes
/// `plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go` and `namespace_policy.go`).
fn builtin(kind: &str, name: &str) -> Option<Vec<PolicyRule>> {
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
        _ => None,
    }
}

/// What `system:discovery` grants every authenticated user (bootstrap ClusterRoleBinding to
/// `system:authenticated`): discovery, OpenAPI and version reads.
fn discovery() -> Grant {
    Grant {
        role: "ClusterRole system:discovery (built-in)".to_string(),
        namespace: None,
        rule: PolicyRule {
            non_resource_urls: Some(
                [
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
                ]
                .iter()
                .map(|s| s.to_string())
                .collect(),
            ),
            verbs: vec!["get".to_string()],
            ..Default::default()
        },
        generated: false,
    }
}

fn binds(binding: &Value, namespace: &str, name: &str) -> bool {
    binding["subjects"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|s| {
            (s["kind"] == "ServiceAccount" && s["name"] == name && s["namespace"] == namespace)
                || (s["kind"] == "User"
                    && s["name"] == format!("system:serviceaccount:{namespace}:{name}"))
                || (s["kind"] == "Group"
                    && (s["name"] == "system:serviceaccounts"
                        || s["name"] == format!("system:serviceaccounts:{namespace}")))
        })
}

/// Every rule the documents (plus the built-in roles they reference) grant the ServiceAccount.
pub fn grants_for(docs: &[Value], namespace: &str, name: &str) -> Vec<Grant> {
    let find_role = |kind: &str, role: &str, ns: Option<&str>| -> Option<(Vec<PolicyRule>, bool)> {
        let generated = docs.iter().find(|d| {
            d["kind"] == kind
                && d["metadata"]["name"] == role
                && ns.is_none_or(|n| d["metadata"]["namespace"] == n)
        });
        match generated {
            Some(d) => {
                let rules = serde_json::from_value(d["rules"].clone()).expect("rules");
                Some((rules, true))
            }
            None => builtin(kind, role).map(|r| (r, false)),
        }
    };
    let mut grants = vec![discovery()];
    for binding in docs.iter().filter(|d| binds(d, namespace, name)) {
        let role_kind = binding["roleRef"]["kind"].as_str().unwrap_or_default();
        let role_name = binding["roleRef"]["name"].as_str().unwrap_or_default();
        let (scope, role_ns) = match binding["kind"].as_str() {
            Some("ClusterRoleBinding") => (None, None),
            Some("RoleBinding") => {
                let ns = binding["metadata"]["namespace"]
                    .as_str()
                    .unwrap_or("default");
                (Some(ns.to_string()), (role_kind == "Role").then_some(ns))
            }
            _ => continue,
        };
        let (rules, generated) = find_role(role_kind, role_name, role_ns)
            .unwrap_or_else(|| panic!("{role_kind} {role_name} is bound but defined nowhere"));
        let role = match role_ns {
            Some(ns) => format!("{role_kind} {ns}/{role_name}"),
            None => format!("{role_kind} {role_name}"),
        };
        grants.extend(rules.into_iter().map(|rule| Grant {
            role: role.clone(),
            namespace: scope.clone(),
            rule,
            generated,
        }));
    }
    grants
}

fn listed(values: &[String], wanted: &str) -> bool {
    values.iter().any(|v| v == "*" || v == wanted)
}

/// `ResourceMatches`: `*`, `resource`, `resource/subresource`, or `*/subresource`.
fn resource_matches(rule: &PolicyRule, call: &Call) -> bool {
    let combined = if call.subresource.is_empty() {
        call.resource.clone()
    } else {
        format!("{}/{}", call.resource, call.subresource)
    };
    rule.resources
        .as_deref()
        .unwrap_or_default()
        .iter()
        .any(|r| {
            r == "*"
                || *r == combined
                || (!call.subresource.is_empty()
                    && r.strip_prefix("*/") == Some(call.subresource.as_str()))
        })
}

/// `NonResourceURLMatches`: exact, or a prefix ending in `*`.
fn url_matches(rule: &PolicyRule, path: &str) -> bool {
    rule.non_resource_urls
        .as_deref()
        .unwrap_or_default()
        .iter()
        .any(|u| u == "*" || u == path || u.strip_suffix('*').is_some_and(|p| path.starts_with(p)))
}

/// Whether `grant` allows `call`.
pub fn allows(grant: &Grant, call: &Call) -> bool {
    let rule = &grant.rule;
    if !listed(&rule.verbs, &call.verb) {
        return false;
    }
    if !call.path.is_empty() {
        return grant.namespace.is_none() && url_matches(rule, &call.path);
    }
    if let Some(ns) = &grant.namespace
        && *ns != call.namespace
    {
        return false;
    }
    let names = rule.resource_names.as_deref().unwrap_or_default();
    listed(rule.api_groups.as_deref().unwrap_or_default(), &call.group)
        && resource_matches(rule, call)
        && (names.is_empty() || names.contains(&call.name))
}

/// One verb on one resource (and object name) of a generated rule: the unit of "never used".
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Permission {
    /// Role that grants it.
    pub role: String,
    /// API group.
    pub group: String,
    /// `resource` or `resource/subresource`.
    pub resource: String,
    /// Verb.
    pub verb: String,
    /// Restricted to this name, "" when any.
    pub name: String,
}

impl fmt::Display for Permission {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let group = if self.group.is_empty() {
            "core"
        } else {
            &self.group
        };
        write!(f, "{}: {} {group}/{}", self.role, self.verb, self.resource)?;
        if !self.name.is_empty() {
            write!(f, " name={}", self.name)?;
        }
        Ok(())
    }
}

/// Permissions of the generated roles that no call used.
pub fn unused(grants: &[Grant], calls: &BTreeSet<Call>) -> Vec<Permission> {
    let mut out = Vec::new();
    for grant in grants.iter().filter(|g| g.generated) {
        let r = &grant.rule;
        let names = r
            .resource_names
            .clone()
            .unwrap_or_else(|| vec![String::new()]);
        for group in r.api_groups.iter().flatten() {
            for resource in r.resources.iter().flatten() {
                for verb in &r.verbs {
                    for name in &names {
                        let (res, sub) = resource.split_once('/').unwrap_or((resource, ""));
                        let used = calls.iter().any(|c| {
                            c.path.is_empty()
                                && c.verb == *verb
                                && c.group == *group
                                && c.resource == res
                                && c.subresource == sub
                                && (name.is_empty() || c.name == *name)
                                && allows(grant, c)
                        });
                        if !used {
                            out.push(Permission {
                                role: grant.role.clone(),
                                group: group.clone(),
                                resource: resource.clone(),
                                verb: verb.clone(),
                                name: name.clone(),
                            });
                        }
                    }
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}
