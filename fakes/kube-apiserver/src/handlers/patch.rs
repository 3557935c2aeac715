//! PATCH in all four formats. JSON, merge and strategic patches go through the update pipeline;
//! apply patches (server-side apply) create missing objects and check field ownership.

use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use serde_json::Value;

use super::write::{WriteCtx, commit_update, create_in};
use super::{AppState, Params, Target, json_response};
use crate::field_validation::{self, Directive, with_warnings};
use crate::patch::{self, PatchType, apply::Conflict};
use crate::status::{ApiError, Cause};

/// PATCH of one object (main resource or status).
pub fn patch(
    app: &AppState,
    target: &Target,
    params: &Params,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<Response, ApiError> {
    let info = target.info();
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let ty = PatchType::from_content_type(content_type).ok_or_else(|| ApiError::unsupported_media_type(content_type, "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json"))?;
    let name = target.name.clone().unwrap_or_default();
    let directive = Directive::from_params(params)?;
    let ctx = WriteCtx::new(target, params, headers);
    if ty == PatchType::Apply {
        let manager = params
            .get("fieldManager")
            .filter(|m| !m.is_empty())
            .ok_or_else(|| {
                ApiError::bad_request(
                    "PATCH, application/apply-patch+yaml requires fieldManager parameter",
                )
            })?;
        let force = params.get("force").is_some_and(|f| f == "true");
        let applied = parse_apply_body(body)?;
        field_validation::check_apply(info, &applied)?;
        let (code, out) = app.store.write(|s| {
            let live = s.get(target.kind, target.ns(), &name);
            let mut config = applied.clone();
            if !config["metadata"].is_object() {
                return Err(ApiError::bad_request(
                    "metadata: the applied configuration must have metadata",
                ));
            }
            config["metadata"]["name"] = Value::String(name.clone());
            if info.namespaced {
                config["metadata"]["namespace"] = Value::String(target.ns().to_string());
            }
            let merged = patch::apply::apply(
                info.kind,
                live.as_deref(),
                &config,
                manager,
                force,
                &ctx.now,
            )
            .map_err(|c| conflict_error(info.group, info.plural, &name, &c))?;
            let actx = WriteCtx {
                applied_fields: Some(merged["metadata"]["managedFields"].clone()),
                ..ctx.clone()
            };
            match live {
                None => Ok((
                    StatusCode::CREATED,
                    create_in(s, target.kind, target.namespace.as_deref(), merged, &actx)?,
                )),
                Some(old) => commit_update(s, target.kind, &old, merged, &actx),
            }
        })?;
        return Ok(json_response(code, &out));
    }
    let (code, out, warnings) = app.store.write(|s| {
        let old = s
            .get(target.kind, target.ns(), &name)
            .ok_or_else(|| ApiError::not_found(info.group, info.plural, &name))?;
        let mut patched = patch::apply_simple(info.kind, ty, &old, body).map_err(|e| match ty {
            PatchType::Json => ApiError::invalid(
                info.group,
                info.kind,
                &name,
                vec![Cause {
                    reason: "FieldValueInvalid".into(),
                    message: e,
                    field: "patch".into(),
                }],
            ),
            _ => ApiError::bad_request(e),
        })?;
        let sent_rv = patched["metadata"]["resourceVersion"]
            .as_str()
            .unwrap_or_default();
        if !sent_rv.is_empty() && Some(sent_rv) != old["metadata"]["resourceVersion"].as_str() {
            return Err(ApiError::stale(info.group, info.plural, &name));
        }
        let warnings = field_validation::check_patched(info, ty, body, &mut patched, directive)?;
        let (code, out) = commit_update(s, target.kind, &old, patched, &ctx)?;
        Ok((code, out, warnings))
    })?;
    Ok(with_warnings(json_response(code, &out), &warnings))
}

fn parse_apply_body(body: &[u8]) -> Result<Value, ApiError> {
    let text = std::str::from_utf8(body)
        .map_err(|_| ApiError::bad_request("apply patch must be UTF-8 YAML or JSON"))?;
    let value: Value = serde_saphyr::from_str(text)
        .map_err(|e| ApiError::bad_request(format!("error decoding YAML: {e}")))?;
    if !value.is_object() {
        return Err(ApiError::bad_request("apply patch must be an object"));
    }
    Ok(value)
}

/// The real server's 409 for SSA conflicts.
fn conflict_error(group: &str, resource: &str, name: &str, conflicts: &[Conflict]) -> ApiError {
    let message = if conflicts.len() == 1 {
        format!(
            "Apply failed with 1 conflict: conflict with {}: {}",
            conflicts[0].manager, conflicts[0].path
        )
    } else {
        let mut managers: Vec<&str> = conflicts.iter().map(|c| c.manager.as_str()).collect();
        managers.sort_unstable();
        managers.dedup();
        let mut lines = Vec::new();
        for m in managers {
            lines.push(format!("conflicts with {m}:"));
            lines.extend(
                conflicts
                    .iter()
                    .filter(|c| c.manager == m)
                    .map(|c| format!("- {}", c.path)),
            );
        }
        format!(
            "Apply failed with {} conflicts: {}",
            conflicts.len(),
            lines.join("\n")
        )
    };
    let causes = conflicts
        .iter()
        .map(|c| Cause {
            reason: "FieldManagerConflict".into(),
            message: format!("conflict with {}", c.manager),
            field: c.path.clone(),
        })
        .collect();
    ApiError::conflict(group, resource, name, message, causes)
}
