//! A compact OpenAPI v3 description: one document per group-version listing each kind's PATCH
//! operation with its `x-kubernetes-group-version-kind` and the `fieldValidation` parameter.
//! That is what kubectl reads to decide that the server validates fields itself
//! (`--validate=strict` becomes `?fieldValidation=Strict`), so kubectl needs no client-side
//! schema; for strategic-merge patches kubectl then uses its compiled-in types. Schemas for
//! `kubectl explain` are not provided.

use axum::extract::Path;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use crate::handlers::json_response;
use crate::kinds::{KINDS, KindInfo};
use crate::status::ApiError;

fn gv_path(k: &KindInfo) -> String {
    if k.group.is_empty() {
        format!("api/{}", k.version)
    } else {
        format!("apis/{}/{}", k.group, k.version)
    }
}

/// `GET /openapi/v3`: the index of group-version documents.
pub async fn index() -> Response {
    let mut paths = Map::new();
    for k in KINDS {
        let p = gv_path(k);
        let url = format!("/openapi/v3/{p}?hash=fake{}", p.len());
        paths.insert(p, json!({"serverRelativeURL": url}));
    }
    json_response(StatusCode::OK, &json!({"paths": paths}))
}

/// `GET /openapi/v3/api/v1` and `/openapi/v3/apis/<group>/<version>`.
pub async fn group_version(Path(rest): Path<String>) -> Response {
    let wanted = rest.trim_matches('/').to_string();
    let kinds: Vec<&KindInfo> = KINDS.iter().filter(|k| gv_path(k) == wanted).collect();
    if kinds.is_empty() {
        return ApiError::no_route().into_response();
    }
    let mut paths = Map::new();
    for k in kinds {
        let prefix = format!("/{}", gv_path(k));
        let item = if k.namespaced {
            format!("{prefix}/namespaces/{{namespace}}/{}/{{name}}", k.plural)
        } else {
            format!("{prefix}/{}/{{name}}", k.plural)
        };
        let gvk = json!({"group": k.group, "version": k.version, "kind": k.kind});
        let params: Vec<Value> = ["dryRun", "fieldManager", "fieldValidation", "force"]
            .iter()
            .map(|n| json!({"name": n, "in": "query", "schema": {"type": if *n == "force" { "boolean" } else { "string" }}, "uniqueItems": true}))
            .collect();
        paths.insert(item, json!({
            "get": {"operationId": format!("read{}", k.kind), "x-kubernetes-group-version-kind": gvk, "x-kubernetes-action": "get", "responses": {"200": {"description": "OK"}}},
            "patch": {
                "operationId": format!("patch{}", k.kind),
                "x-kubernetes-group-version-kind": gvk,
                "x-kubernetes-action": "patch",
                "parameters": params,
                "responses": {"200": {"description": "OK"}}
            }
        }));
    }
    json_response(
        StatusCode::OK,
        &json!({
            "openapi": "3.0.0",
            "info": {"title": "Kubernetes", "version": format!("v{}.{}.0", crate::discovery::MAJOR, crate::discovery::MINOR)},
            "paths": paths,
            "components": {"schemas": {}},
        }),
    )
}
