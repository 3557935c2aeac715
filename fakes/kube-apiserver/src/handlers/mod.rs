//! Resource endpoints: parses `/api/v1/...` and `/apis/<group>/<version>/...` paths into a kind,
//! namespace, name and subresource, then dispatches by HTTP method to get/list/watch/create/
//! update/patch/delete.

mod delete;
mod patch;
mod read;
mod scale;
mod watch;
pub mod write;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use crate::kinds::{self, KindId, KindInfo};
use crate::protobuf;
use crate::status::ApiError;
use crate::store::Store;

/// Shared state of all request handlers.
#[derive(Debug, Clone)]
pub struct AppState {
    /// The object store.
    pub store: Arc<Store>,
    /// How often watches that allow bookmarks receive one.
    pub bookmark_interval: Duration,
    /// Watch duration when the client sets no `timeoutSeconds`.
    pub default_watch_timeout: Duration,
}

/// A parsed resource URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// Kind addressed.
    pub kind: KindId,
    /// Namespace from the URL (`None` for cluster-scoped or all-namespaces requests).
    pub namespace: Option<String>,
    /// Object name, when the URL names one.
    pub name: Option<String>,
    /// `status` (or another subresource name).
    pub subresource: Option<String>,
}

impl Target {
    /// The kind's static description.
    pub fn info(&self) -> &'static KindInfo {
        kinds::info(self.kind)
    }

    /// Namespace as stored ("" for cluster-scoped).
    pub fn ns(&self) -> &str {
        self.namespace.as_deref().unwrap_or_default()
    }
}

/// Parses the path below `/api` or `/apis`; `None` when it names no served resource.
pub fn parse_path(path: &str) -> Option<Target> {
    let segs: Vec<&str> = path.trim_matches('/').split('/').collect();
    let (group, version, rest) = match segs.as_slice() {
        ["api", version, rest @ ..] => ("", *version, rest),
        ["apis", group, version, rest @ ..] => (*group, *version, rest),
        _ => return None,
    };
    let resolve = |plural: &str| kinds::by_resource(group, version, plural);
    let target = |kind, namespace: Option<&str>, name: Option<&&str>, sub: Option<&&str>| Target {
        kind,
        namespace: namespace.map(str::to_string),
        name: name.map(|n| (*n).to_string()),
        subresource: sub.map(|s| (*s).to_string()),
    };
    match rest {
        ["namespaces", ns, plural, tail @ ..] if tail.len() <= 2 => {
            if let Some(kind) = resolve(plural).filter(|k| kinds::info(*k).namespaced) {
                return Some(target(kind, Some(ns), tail.first(), tail.get(1)));
            }
            // `/api/v1/namespaces/<name>/status|finalize`.
            let ns_kind = resolve("namespaces")?;
            tail.is_empty()
                .then(|| target(ns_kind, None, Some(ns), Some(plural)))
        }
        [plural, tail @ ..] if tail.len() <= 2 => {
            let kind = resolve(plural)?;
            Some(target(kind, None, tail.first(), tail.get(1)))
        }
        _ => None,
    }
}

/// Query parameters of a request.
pub type Params = HashMap<String, String>;

/// Entry point for every `/api/...` and `/apis/...` resource request.
pub async fn resource(State(app): State<AppState>, request: Request) -> Response {
    match handle(app, request).await {
        Ok(r) => r,
        Err(e) => e.into_response(),
    }
}

async fn handle(app: AppState, request: Request) -> Result<Response, ApiError> {
    let path = request.uri().path().to_string();
    let target = parse_path(&path).ok_or_else(ApiError::no_route)?;
    let params: Params = Query::<Params>::try_from_uri(request.uri())
        .map(|q| q.0)
        .unwrap_or_default();
    let method = request.method().clone();
    let headers = request.headers().clone();
    if let Some(sub) = &target.subresource
        && !(sub == "status" && target.info().has_status)
        && !(sub == "finalize" && target.info().kind == "Namespace")
        && !scale::serves(&target)
    {
        return Err(ApiError::no_route());
    }
    let limit = 64 * 1024 * 1024;
    let body = axum::body::to_bytes(request.into_body(), limit)
        .await
        .map_err(|e| ApiError::bad_request(format!("reading body: {e}")))?;
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    // Typed client-go clients (kubectl's imperative commands) send built-in kinds as protobuf;
    // they continue as the JSON the same object encodes to. Patches are never protobuf.
    let body = if !body.is_empty() && method != Method::PATCH && protobuf::is_protobuf(content_type)
    {
        protobuf::request_body_to_json(content_type, &body)?.into()
    } else {
        body
    };
    if scale::serves(&target) {
        return scale::handle(&app, &target, &method, &params, &headers, &body);
    }
    let is_watch = params.get("watch").is_some_and(|w| w == "true" || w == "1");
    match (method, target.name.is_some()) {
        (Method::GET, _) if is_watch => watch::watch(&app, &target, &params, &headers),
        (Method::GET, true) => read::get(&app, &target, &params, &headers),
        (Method::GET, false) => read::list(&app, &target, &params, &headers),
        (Method::POST, false) => write::create(&app, &target, &params, &headers, &body),
        (Method::PUT, true) => write::update(&app, &target, &params, &headers, &body),
        (Method::PATCH, true) => patch::patch(&app, &target, &params, &headers, &body),
        (Method::DELETE, true) => delete::delete(&app, &target, &params, &body),
        (Method::DELETE, false) => delete::delete_collection(&app, &target, &params, &body),
        (m, _) => Err(ApiError::method_not_allowed(
            m.as_str(),
            target.info().plural,
        )),
    }
}

/// Whether the client asked for a `meta.k8s.io/v1` Table.
pub fn wants_table(headers: &HeaderMap) -> bool {
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| {
            a.split(',')
                .next()
                .is_some_and(|first| first.contains("as=Table") && first.contains("v=v1"))
        })
}

/// A JSON response with the given status.
pub fn json_response(code: StatusCode, value: &Value) -> Response {
    json_bytes(code, serde_json::to_vec(value).unwrap_or_default())
}

/// A JSON response from pre-serialised bytes.
pub fn json_bytes(code: StatusCode, bytes: Vec<u8>) -> Response {
    let mut r = (code, Body::from(bytes)).into_response();
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

/// Body as JSON, or the real server's decode error.
pub fn parse_json(body: &[u8]) -> Result<Value, ApiError> {
    serde_json::from_slice(body)
        .map_err(|e| ApiError::bad_request(format!("error decoding request body: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths() {
        let t = parse_path("/api/v1/namespaces/default/services/web/status").unwrap();
        assert_eq!(t.info().plural, "services");
        assert_eq!(
            (t.ns(), t.name.as_deref(), t.subresource.as_deref()),
            ("default", Some("web"), Some("status"))
        );
        let ns = parse_path("/api/v1/namespaces/kube-system").unwrap();
        assert_eq!(
            (ns.info().kind, ns.name.as_deref(), ns.namespace.as_deref()),
            ("Namespace", Some("kube-system"), None)
        );
        let fin = parse_path("/api/v1/namespaces/x/finalize").unwrap();
        assert_eq!(fin.subresource.as_deref(), Some("finalize"));
        let all = parse_path("/apis/coordination.k8s.io/v1/leases").unwrap();
        assert_eq!(
            (all.namespace.as_deref(), all.name.as_deref()),
            (None, None)
        );
        assert!(parse_path("/apis/apps/v1/namespaces/d/widgets").is_none());
        let node = parse_path("/api/v1/nodes/n1/status").unwrap();
        assert_eq!(node.subresource.as_deref(), Some("status"));
    }
}
