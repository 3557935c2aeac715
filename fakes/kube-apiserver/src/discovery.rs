//! Discovery documents: `/version`, `/api`, `/apis`, `/apis/<group>` and the per-version resource
//! lists (legacy discovery, which kube-rs and kubectl both accept; kubectl falls back to it when
//! the answer is not an aggregated discovery document).

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::handlers::{AppState, json_response};
use crate::kinds::{self, KINDS, KindInfo};
use crate::reviews::RESOURCES;
use crate::status::ApiError;

/// Kubernetes version this server claims to be (the kube 5 / k8s-openapi `v1_33` baseline).
pub const MAJOR: &str = "1";
/// Minor version.
pub const MINOR: &str = "33";

const VERBS: &[&str] = &[
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "update",
    "watch",
];

/// `GET /version`.
pub async fn version() -> Response {
    json_response(
        StatusCode::OK,
        &json!({
            "major": MAJOR,
            "minor": MINOR,
            "gitVersion": format!("v{MAJOR}.{MINOR}.0-fake"),
            "gitCommit": "0000000000000000000000000000000000000000",
            "gitTreeState": "clean",
            "buildDate": "2025-01-01T00:00:00Z",
            "goVersion": "go1.24.0",
            "compiler": "gc",
            "platform": "linux/amd64",
        }),
    )
}

/// `GET /api`.
pub async fn core_versions() -> Response {
    json_response(
        StatusCode::OK,
        &json!({
            "kind": "APIVersions",
            "versions": ["v1"],
            "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": ""}],
        }),
    )
}

fn group_doc(group: &str) -> Value {
    let version = KINDS
        .iter()
        .find(|k| k.group == group)
        .map(|k| k.version)
        .or_else(|| {
            RESOURCES
                .iter()
                .find(|r| r.group == group)
                .map(|r| r.version)
        })
        .unwrap_or("v1");
    let gv = json!({"groupVersion": format!("{group}/{version}"), "version": version});
    json!({"name": group, "versions": [gv.clone()], "preferredVersion": gv})
}

/// The stored kinds' groups, then the review-only groups.
fn all_groups() -> Vec<&'static str> {
    let mut groups = kinds::groups();
    for r in RESOURCES {
        if !groups.contains(&r.group) {
            groups.push(r.group);
        }
    }
    groups
}

/// `GET /apis`.
pub async fn group_list() -> Response {
    let groups: Vec<Value> = all_groups().into_iter().map(group_doc).collect();
    json_response(
        StatusCode::OK,
        &json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}),
    )
}

/// `GET /apis/<group>`.
pub async fn group(Path(group): Path<String>) -> Response {
    if !all_groups().contains(&group.as_str()) {
        return ApiError::no_route().into_response();
    }
    let mut doc = group_doc(&group);
    doc["kind"] = json!("APIGroup");
    doc["apiVersion"] = json!("v1");
    json_response(StatusCode::OK, &doc)
}

/// `GET /api/v1`.
pub async fn core_resources(State(_): State<AppState>) -> Response {
    resource_list("", "v1")
}

/// `GET /apis/<group>/<version>`.
pub async fn group_resources(Path((group, version)): Path<(String, String)>) -> Response {
    resource_list(&group, &version)
}

fn resource_list(group: &str, version: &str) -> Response {
    let kinds: Vec<&KindInfo> = KINDS
        .iter()
        .filter(|k| k.group == group && k.version == version)
        .collect();
    let reviews: Vec<_> = RESOURCES
        .iter()
        .filter(|r| r.group == group && r.version == version)
        .collect();
    if kinds.is_empty() && reviews.is_empty() {
        return ApiError::no_route().into_response();
    }
    let mut resources: Vec<Value> = reviews
        .iter()
        .map(|r| json!({"name": r.plural, "singularName": r.singular, "namespaced": false, "kind": r.kind, "verbs": ["create"]}))
        .collect();
    for k in kinds {
        let mut r = json!({
            "name": k.plural,
            "singularName": k.singular,
            "namespaced": k.namespaced,
            "kind": k.kind,
            "verbs": VERBS,
        });
        if !k.short_names.is_empty() {
            r["shortNames"] = json!(k.short_names);
        }
        if !k.categories.is_empty() {
            r["categories"] = json!(k.categories);
        }
        resources.push(r);
        if k.has_status {
            resources.push(json!({"name": format!("{}/status", k.plural), "singularName": "", "namespaced": k.namespaced, "kind": k.kind, "verbs": ["get", "patch", "update"]}));
        }
        if k.kind == "Deployment" {
            resources.push(json!({"name": "deployments/scale", "singularName": "", "namespaced": true, "group": "autoscaling", "version": "v1", "kind": "Scale", "verbs": ["get", "patch", "update"]}));
        }
        if k.kind == "Namespace" {
            resources.push(json!({"name": "namespaces/finalize", "singularName": "", "namespaced": false, "kind": "Namespace", "verbs": ["update"]}));
        }
    }
    let gv = if group.is_empty() {
        version.to_string()
    } else {
        format!("{group}/{version}")
    };
    json_response(
        StatusCode::OK,
        &json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": resources}),
    )
}
