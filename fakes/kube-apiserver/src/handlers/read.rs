//! get and list, with label/field selectors, `limit`/`continue` paging over a consistent
//! snapshot, resourceVersion semantics, and Table output for kubectl.

use std::sync::Arc;

use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use base64::Engine;
use serde_json::{Value, json};

use super::{AppState, Params, Target, json_bytes, json_response, wants_table};
use crate::selectors::{FieldSelector, LabelSelector};
use crate::status::ApiError;
use crate::store::{EXPIRED_CONTINUE, ObjectKey};
use crate::table;

/// GET of one object.
pub fn get(
    app: &AppState,
    target: &Target,
    params: &Params,
    headers: &HeaderMap,
) -> Result<Response, ApiError> {
    let info = target.info();
    let name = target.name.as_deref().unwrap_or_default();
    let wanted = minimum_rv(params);
    let obj = app
        .store
        .read(|s| {
            check_not_ahead(wanted, s.rv())?;
            Ok(s.get(target.kind, target.ns(), name))
        })?
        .ok_or_else(|| ApiError::not_found(info.group, info.plural, name))?;
    if wants_table(headers) {
        let rv = obj["metadata"]["resourceVersion"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let t = table::render(
            info,
            std::slice::from_ref(&obj),
            table::include_object(params.get("includeObject").map(String::as_str)),
            &rv,
            None,
            true,
        );
        return Ok(json_response(StatusCode::OK, &t));
    }
    Ok(json_response(StatusCode::OK, &obj))
}

/// A numeric `resourceVersion` the answer must be at least as new as ("" and "0" ask for
/// nothing in particular).
fn minimum_rv(params: &Params) -> Option<u64> {
    params
        .get("resourceVersion")
        .filter(|rv| !rv.is_empty() && *rv != "0")
        .and_then(|rv| rv.parse().ok())
}

/// A version the server has not reached yet: the real watch cache waits for it, then answers
/// 504 with `ResourceVersionTooLarge`; nothing here would make the version appear, so answer now.
fn check_not_ahead(wanted: Option<u64>, current: u64) -> Result<(), ApiError> {
    match wanted {
        Some(rv) if rv > current => Err(ApiError::resource_version_too_large(rv, current)),
        _ => Ok(()),
    }
}

/// Selectors of a list or watch request.
#[derive(Debug, Clone, Default)]
pub struct Selectors {
    /// `labelSelector`.
    pub labels: LabelSelector,
    /// `fieldSelector`.
    pub fields: FieldSelector,
}

impl Selectors {
    /// Parses both selectors from the query; bad input is a 400 naming the parameter.
    pub fn from_params(target: &Target, params: &Params) -> Result<Self, ApiError> {
        let labels = LabelSelector::parse(
            params
                .get("labelSelector")
                .map(String::as_str)
                .unwrap_or_default(),
        )
        .map_err(|e| {
            ApiError::bad_request(format!("unable to parse requirement: labelSelector: {e}"))
        })?;
        let fields = FieldSelector::parse(
            params
                .get("fieldSelector")
                .map(String::as_str)
                .unwrap_or_default(),
            target.info(),
        )
        .map_err(|e| ApiError::bad_request(format!("fieldSelector: {e}")))?;
        Ok(Self { labels, fields })
    }

    /// Whether an object matches both.
    pub fn matches(&self, obj: &Value) -> bool {
        self.fields.matches(obj) && (self.labels.is_empty() || self.labels.matches(&labels_of(obj)))
    }

    /// Whether no selector was given.
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty() && self.fields == FieldSelector::default()
    }
}

/// `metadata.labels` as a map.
pub fn labels_of(obj: &Value) -> std::collections::BTreeMap<String, String> {
    obj["metadata"]["labels"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                .collect()
        })
        .unwrap_or_default()
}

/// A continue token: the list's resourceVersion and the last key returned.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ContinueToken {
    rv: u64,
    after: ObjectKey,
}

impl ContinueToken {
    fn encode(&self) -> String {
        let raw = json!({"v": "meta.k8s.io/v1", "rv": self.rv, "start": format!("{}/{}", self.after.0, self.after.1)});
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(raw.to_string())
    }

    fn decode(text: &str) -> Result<Self, ApiError> {
        let bad = || ApiError::bad_request(format!("continue key is not valid: {text:?}"));
        let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(text.trim_end_matches('='))
            .map_err(|_| bad())?;
        let v: Value = serde_json::from_slice(&raw).map_err(|_| bad())?;
        let rv = v["rv"].as_u64().ok_or_else(bad)?;
        let (ns, name) = v["start"]
            .as_str()
            .and_then(|s| s.split_once('/'))
            .ok_or_else(bad)?;
        Ok(Self {
            rv,
            after: (ns.to_string(), name.to_string()),
        })
    }
}

/// LIST of a kind, optionally in one namespace.
pub fn list(
    app: &AppState,
    target: &Target,
    params: &Params,
    headers: &HeaderMap,
) -> Result<Response, ApiError> {
    let info = target.info();
    let selectors = Selectors::from_params(target, params)?;
    let limit: usize = match params.get("limit").map(|l| l.parse::<i64>()) {
        None => 0,
        Some(Ok(n)) if n >= 0 => usize::try_from(n).unwrap_or(usize::MAX),
        Some(_) => {
            return Err(ApiError::bad_request(
                "limit: must be a non-negative integer",
            ));
        }
    };
    let token = params
        .get("continue")
        .filter(|c| !c.is_empty())
        .map(|c| ContinueToken::decode(c))
        .transpose()?;
    let exact_rv = match (
        params.get("resourceVersionMatch").map(String::as_str),
        params.get("resourceVersion"),
    ) {
        (Some("Exact"), Some(rv)) => Some(
            rv.parse::<u64>()
                .map_err(|_| ApiError::bad_request(format!("invalid resource version {rv:?}")))?,
        ),
        (Some("Exact" | "NotOlderThan"), None) => {
            return Err(ApiError::invalid("meta.k8s.io", "ListOptions", "", vec![crate::status::Cause {
                reason: "FieldValueForbidden".into(),
                message: "Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided".into(),
                field: "resourceVersionMatch".into(),
            }]));
        }
        _ => None,
    };
    let namespace = target.namespace.as_deref();
    let (rv, items) = app
        .store
        .read(|s| -> Result<(u64, Vec<Arc<Value>>), ApiError> {
            match (&token, exact_rv) {
                (Some(t), _) => {
                    let items = s
                        .list_at(target.kind, namespace, t.rv, Some(&t.after))
                        .map_err(|e| {
                            if e.code == 410 {
                                ApiError::expired(EXPIRED_CONTINUE)
                            } else {
                                e
                            }
                        })?;
                    Ok((t.rv, items))
                }
                (None, Some(rv)) if rv != s.rv() => {
                    let items = s.list_at(target.kind, namespace, rv, None).map_err(|e| {
                        if e.code == 410 {
                            ApiError::expired(format!(
                                "too old resource version: {rv} ({})",
                                s.rv()
                            ))
                        } else {
                            e
                        }
                    })?;
                    Ok((rv, items))
                }
                _ => {
                    check_not_ahead(minimum_rv(params), s.rv())?;
                    Ok((s.rv(), s.list_current(target.kind, namespace)))
                }
            }
        })?;
    let mut page: Vec<Arc<Value>> = Vec::new();
    let mut next = None;
    let mut remaining = 0usize;
    for obj in items.iter().filter(|o| selectors.matches(o)) {
        if limit > 0 && page.len() == limit {
            if next.is_none() {
                let last = page
                    .last()
                    .map(|o| crate::store::key_of(o))
                    .unwrap_or_default();
                next = Some(ContinueToken { rv, after: last }.encode());
            }
            remaining += 1;
            if !selectors.is_empty() {
                break;
            }
            continue;
        }
        page.push(obj.clone());
    }
    let mut meta = json!({"resourceVersion": rv.to_string()});
    if let Some(c) = &next {
        meta["continue"] = json!(c);
        if selectors.is_empty() {
            meta["remainingItemCount"] = json!(remaining);
        }
    }
    if wants_table(headers) {
        let t = table::render(
            info,
            &page,
            table::include_object(params.get("includeObject").map(String::as_str)),
            &rv.to_string(),
            next.as_deref(),
            true,
        );
        return Ok(json_response(StatusCode::OK, &t));
    }
    Ok(json_bytes(StatusCode::OK, list_bytes(info, &meta, &page)))
}

/// Serialises a list without cloning its items.
pub fn list_bytes(info: &crate::kinds::KindInfo, meta: &Value, items: &[Arc<Value>]) -> Vec<u8> {
    let mut out = Vec::with_capacity(256 + items.len() * 1024);
    out.extend_from_slice(
        format!(
            "{{\"kind\":\"{}\",\"apiVersion\":\"{}\",\"metadata\":",
            info.list_kind(),
            info.api_version()
        )
        .as_bytes(),
    );
    let _ = serde_json::to_writer(&mut out, meta);
    out.extend_from_slice(b",\"items\":[");
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        let _ = serde_json::to_writer(&mut out, item.as_ref());
    }
    out.extend_from_slice(b"]}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continue_tokens_round_trip_and_reject_garbage() {
        let t = ContinueToken {
            rv: 7,
            after: ("ns".into(), "a".into()),
        };
        assert_eq!(ContinueToken::decode(&t.encode()).unwrap(), t);
        assert_eq!(ContinueToken::decode("%%%").unwrap_err().code, 400);
    }
}
