//! HTTP surface: one fallback handler that dispatches ARM paths (resources, collections, instance views,
//! operation-status URLs) to the store and renders ARM headers (ETag, Azure-AsyncOperation, Location).

use crate::ForceLroFailure;
use crate::api_version;
use crate::error::ArmError;
use crate::error_codes;
use crate::etag::Preconditions;
use crate::id::{ArmPath, key_of};
use crate::kinds::{KindId, Provider};
use crate::lro::{OpKind, OpStatus};
use crate::paging;
use crate::state::{ArmState, addressed_kind, child_of, with_instance_view};
use crate::store::{Target, not_found};
use crate::write::WriteCtx;
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Query, State};
use axum::http::{HeaderMap, Method, Request, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use std::collections::HashMap;

/// Builds the router.
pub(crate) fn router(state: ArmState) -> Router {
    Router::new().fallback(handle).with_state(state)
}

fn json_response(status: StatusCode, body: Vec<u8>) -> axum::http::response::Builder {
    let _ = body;
    Response::builder()
        .status(status)
        .header("content-type", "application/json; charset=utf-8")
        .header("cache-control", "no-cache")
}

fn respond(status: StatusCode, body: &Value, headers: Vec<(&'static str, String)>) -> Response {
    let bytes = serde_json::to_vec(body).unwrap_or_default();
    let mut b = json_response(status, Vec::new());
    for (k, v) in headers {
        b = b.header(k, v);
    }
    b.body(Body::from(bytes))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

async fn handle(
    State(state): State<ArmState>,
    Query(query): Query<HashMap<String, String>>,
    req: Request<Body>,
) -> Response {
    let (parts, body) = req.into_parts();
    let bytes = match axum::body::to_bytes(body, 8 * 1024 * 1024).await {
        Ok(b) => b,
        Err(_) => {
            return ArmError::new(
                error_codes::REQUEST_TOO_LARGE,
                "The request body is too large.",
            )
            .into_response();
        }
    };
    let fail = parts.extensions.get::<ForceLroFailure>().cloned();
    let base = fake_tls::request_origin(&parts.uri, &parts.headers, "management.azure.com");
    match dispatch(
        &state,
        &parts.method,
        parts.uri.path(),
        &query,
        &parts.headers,
        &base,
        bytes,
        fail,
    ) {
        Ok(r) => r,
        Err(e) => e.into_response(),
    }
}

fn header(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(String::from)
}

#[allow(clippy::too_many_arguments)]
fn dispatch(
    state: &ArmState,
    method: &Method,
    path: &str,
    query: &HashMap<String, String>,
    headers: &HeaderMap,
    base: &str,
    body: Bytes,
    fail: Option<ForceLroFailure>,
) -> Result<Response, ArmError> {
    let base = base.to_string();
    let api = query.get("api-version").map(String::as_str);
    if let Some(doc) = crate::providers::serve(path, api) {
        if method != Method::GET {
            return Err(ArmError::new(
                error_codes::METHOD_NOT_ALLOWED,
                "Only GET is supported on provider registrations in this fake.",
            ));
        }
        return Ok(respond(StatusCode::OK, &doc?, Vec::new()));
    }
    let lower = path.to_ascii_lowercase();
    if lower.contains("/operations/") || lower.contains("/operationresults/") {
        return operation_status(state, method, path, query, &base);
    }
    let (path, instance_view) = match lower.strip_suffix("/instanceview") {
        Some(_) => (&path[..path.len() - "/instanceView".len()], true),
        None => (path, false),
    };
    let parsed = ArmPath::parse(path)?;
    let kind = addressed_kind(&parsed)?;
    let location = {
        let store = state.inner.store.read();
        let display = store.display_id(&parsed, kind);
        store
            .owner_key(&key_of(&display))
            .and_then(|k| store.entries.get(&k).map(|e| e.location().to_string()))
            .filter(|l| !l.is_empty())
    };
    api_version::check(
        api,
        kind,
        location
            .as_deref()
            .unwrap_or(&state.inner.config.default_location),
    )?;
    if parsed.is_collection() {
        if method != Method::GET {
            return Err(ArmError::new(
                error_codes::METHOD_NOT_ALLOWED,
                "Only GET is supported on collections.",
            ));
        }
        return list(state, &parsed, query, &base, path);
    }
    if instance_view {
        if method != Method::GET || !matches!(kind.id, KindId::Vm | KindId::VmssVm) {
            return Err(ArmError::new(
                error_codes::METHOD_NOT_ALLOWED,
                "Only GET is supported on instanceView.",
            ));
        }
        let iv = state.instance_view(path)?;
        return Ok(respond(StatusCode::OK, &iv, Vec::new()));
    }
    let pre = Preconditions {
        if_match: header(headers, "if-match"),
        if_none_match: header(headers, "if-none-match"),
    };
    let cx = WriteCtx {
        cfg: &state.inner.config,
        base: &base,
        sync: false,
        api_version: api.unwrap_or_default().to_string(),
        fail: fail.map(|f| {
            ArmError::injected(StatusCode::OK, f.code, f.message).with_details(Vec::new())
        }),
        pre,
    };
    match *method {
        Method::GET => get(state, &parsed, kind, query),
        Method::PUT | Method::PATCH => {
            let body: Value = if body.is_empty() {
                json!({})
            } else {
                serde_json::from_slice(&body).map_err(|e| {
                    ArmError::new(
                        error_codes::INVALID_REQUEST_CONTENT,
                        format!(
                            "The request content was invalid and could not be deserialized: '{e}'."
                        ),
                    )
                })?
            };
            let mut store = state.inner.store.write();
            state.settle(&mut store);
            let out = if *method == Method::PUT {
                store.put(&parsed, kind, body, &cx)?
            } else {
                store.patch(&parsed, kind, body, &cx)?
            };
            let mut hdrs = Vec::new();
            if let Some(tag) = out.body.get("etag").and_then(Value::as_str) {
                hdrs.push(("etag", tag.to_string()));
            }
            if let Some(op) = out.op.as_ref().and_then(|o| store.ops.get(o)) {
                if let Some(p) = op.async_path() {
                    hdrs.push(("azure-asyncoperation", format!("{base}{p}")));
                }
                hdrs.push(("azure-asyncnotification", "Enabled".into()));
                if let Some(ra) = state.retry_after() {
                    hdrs.push(("retry-after", ra));
                }
            }
            Ok(respond(out.status, &out.body, hdrs))
        }
        Method::DELETE => {
            let mut store = state.inner.store.write();
            state.settle(&mut store);
            let out = store.delete(&parsed, kind, &cx)?;
            let mut b = Response::builder().status(out.status);
            if let Some(op) = out.op.as_ref().and_then(|o| store.ops.get(o)) {
                if let Some(p) = op.async_path() {
                    b = b.header("azure-asyncoperation", format!("{base}{p}"));
                }
                if out.status == StatusCode::ACCEPTED {
                    b = b.header("location", format!("{base}{}", op.location_path()));
                    if let Some(ra) = state.retry_after() {
                        b = b.header("retry-after", ra);
                    }
                }
            }
            Ok(b.body(Body::empty())
                .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response()))
        }
        _ => Err(ArmError::new(
            error_codes::METHOD_NOT_ALLOWED,
            format!("The requested method '{method}' is not allowed."),
        )),
    }
}

fn get(
    state: &ArmState,
    path: &ArmPath,
    kind: &'static crate::kinds::Kind,
    query: &HashMap<String, String>,
) -> Result<Response, ArmError> {
    {
        // Age-based completion needs the write lock; only taken when an operation is pending.
        let age = *state.inner.lro_max_age.read();
        let due = state.inner.store.read().settle_due(age);
        if due {
            let mut store = state.inner.store.write();
            state.settle(&mut store);
        }
    }
    let store = state.inner.store.read();
    if kind.id != KindId::ResourceGroup {
        store.require_rg(path)?;
    }
    let display = store.display_id(path, kind);
    let key = key_of(&display);
    let expand = query
        .get("$expand")
        .is_some_and(|e| e.eq_ignore_ascii_case("instanceView"));
    match store.locate(&key) {
        Some(Target::Entry(k)) => {
            let Some(e) = store.entries.get(&k) else {
                return Err(not_found(&store, path, kind, &display));
            };
            let mut b = Response::builder()
                .status(StatusCode::OK)
                .header("content-type", "application/json; charset=utf-8")
                .header("cache-control", "no-cache");
            if let Some(tag) = e.etag() {
                b = b.header("etag", tag);
            }
            let body = if expand && e.instance_view.is_some() {
                Bytes::from(serde_json::to_vec(&with_instance_view(e)).unwrap_or_default())
            } else {
                e.body()
            };
            Ok(b.body(Body::from(body))
                .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response()))
        }
        Some(Target::Child(owner, coll, name)) => {
            let child = child_of(&store, &owner, coll, &name)
                .cloned()
                .unwrap_or(Value::Null);
            let mut hdrs = Vec::new();
            if let Some(tag) = child.get("etag").and_then(Value::as_str) {
                hdrs.push(("etag", tag.to_string()));
            }
            Ok(respond(StatusCode::OK, &child, hdrs))
        }
        None => Err(not_found(&store, path, kind, &display)),
    }
}

fn parse_vmss_filter(filter: &str) -> Option<String> {
    // 'virtualMachineScaleSet/id' eq '<id>'
    let (lhs, rhs) = filter.split_once(" eq ")?;
    if !lhs
        .trim()
        .trim_matches('\'')
        .eq_ignore_ascii_case("virtualMachineScaleSet/id")
    {
        return None;
    }
    Some(rhs.trim().trim_matches('\'').to_string())
}

fn list(
    state: &ArmState,
    path: &ArmPath,
    query: &HashMap<String, String>,
    base: &str,
    raw_path: &str,
) -> Result<Response, ArmError> {
    let expand = query
        .get("$expand")
        .is_some_and(|e| e.eq_ignore_ascii_case("instanceView"));
    let filter = match query.get("$filter") {
        Some(f) => Some(parse_vmss_filter(f).ok_or_else(|| {
            ArmError::invalid_parameter(format!("The value '{f}' of parameter '$filter' is not supported. Supported: 'virtualMachineScaleSet/id' eq '<id>'."), "$filter")
        })?),
        None => None,
    };
    let store = state.inner.store.read();
    let items = paging::collect(&store, path, expand, filter.as_deref())?;
    drop(store);
    let (values, next) = paging::page(
        items,
        query.get("$skipToken").map(String::as_str),
        state.inner.config.page_size,
    )?;
    let mut body = json!({ "value": values });
    if let Some(token) = next {
        let mut q: Vec<(String, String)> = query
            .iter()
            .filter(|(k, _)| k.as_str() != "$skipToken")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        q.sort();
        q.push(("$skipToken".into(), token));
        let qs: Vec<String> = q
            .iter()
            .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
            .collect();
        body["nextLink"] = json!(format!("{base}{raw_path}?{}", qs.join("&")));
    }
    Ok(respond(StatusCode::OK, &body, Vec::new()))
}

fn encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~$".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn operation_status(
    state: &ArmState,
    method: &Method,
    path: &str,
    query: &HashMap<String, String>,
    base: &str,
) -> Result<Response, ArmError> {
    if method != Method::GET {
        return Err(ArmError::new(
            error_codes::METHOD_NOT_ALLOWED,
            "Only GET is supported on operation URLs.",
        ));
    }
    let lower = path.to_ascii_lowercase();
    let provider = if lower.contains("/providers/microsoft.compute/") {
        Provider::Compute
    } else if lower.contains("/providers/microsoft.network/") {
        Provider::Network
    } else {
        Provider::Resources
    };
    api_version::check_provider(query.get("api-version").map(String::as_str), provider)?;
    let op_id = path
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    let is_result =
        lower.contains("/operationresults/") || query.get("monitor").is_some_and(|m| m == "true");
    let mut store = state.inner.store.write();
    let op = store.poll(&op_id).ok_or_else(|| {
        ArmError::new(
            error_codes::OPERATION_NOT_FOUND,
            format!("The operation '{op_id}' could not be found."),
        )
    })?;
    if !is_result {
        return Ok(respond(StatusCode::OK, &op.status_body(), Vec::new()));
    }
    match &op.status {
        OpStatus::InProgress => {
            let mut b = Response::builder()
                .status(StatusCode::ACCEPTED)
                .header("location", format!("{base}{}", op.location_path()));
            if let Some(ra) = state.retry_after() {
                b = b.header("retry-after", ra);
            }
            Ok(b.body(Body::empty())
                .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response()))
        }
        OpStatus::Failed(e) | OpStatus::Canceled(e) => Err(e.clone().into_location_poll_answer()),
        OpStatus::Succeeded => match &op.kind {
            OpKind::Delete { .. } if op.rg_delete => Ok(Response::builder()
                .status(StatusCode::OK)
                .body(Body::empty())
                .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())),
            OpKind::Delete { .. } => Ok(Response::builder()
                .status(StatusCode::NO_CONTENT)
                .body(Body::empty())
                .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())),
            OpKind::Put { .. } => {
                let doc = store
                    .entries
                    .get(&op.entry_key)
                    .map(|e| e.doc.clone())
                    .unwrap_or(Value::Null);
                Ok(respond(StatusCode::OK, &doc, Vec::new()))
            }
        },
    }
}
