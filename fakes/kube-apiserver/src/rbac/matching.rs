//! Whether one granted rule allows one request (`RuleAllows` and its helpers).

use k8s_openapi::api::rbac::v1::PolicyRule;

use super::{Call, Grant};

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

/// `NonResourceURLMatches`: `*`, exact, or a prefix ending in `*`.
fn url_matches(rule: &PolicyRule, path: &str) -> bool {
    rule.non_resource_urls
        .as_deref()
        .unwrap_or_default()
        .iter()
        .any(|u| u == "*" || u == path || u.strip_suffix('*').is_some_and(|p| path.starts_with(p)))
}

/// Whether `grant` allows `call`. Non-resource URLs are only granted cluster-wide (a RoleBinding
/// never grants them).
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
