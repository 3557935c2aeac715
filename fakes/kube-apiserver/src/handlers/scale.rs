//! The `/scale` subresource of apps/v1 Deployments: an autoscaling/v1 `Scale` view of
//! `spec.replicas` that `kubectl scale` and autoscalers read (GET) and write (PUT, PATCH).

use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::Response;
use serde_json::{Value, json};

use super::write::{WriteCtx, commit_update};
use super::{AppState, Params, Target, json_response, parse_json};
use crate::field_validation::{self, Directive, with_warnings};
use crate::kinds::KindInfo;
use crate::patch::{self, PatchType};
use crate::status::{ApiError, invalid_value};

/// The autoscaling/v1 Scale type, for decoding and error messages.
pub const SCALE: KindInfo = KindInfo {
    group: "autoscaling",
    version: "v1",
    kind: "Scale",
    plural: "scale",
    singular: "",
    short_names: &[],
    categories: &[],
    namespaced: true,
    has_status: false,
    tracks_generation: false,
    field_labels: &[],
};

/// Whether `target` addresses a scale subresource this server serves.
pub fn serves(target: &Target) -> bool {
    target.subresource.as_deref() == Some("scale") && target.info().kind == "Deployment"
}

/// GET, PUT and PATCH on `<deployment>/scale`.
pub fn handle(
    app: &AppState,
    target: &Target,
    method: &Method,
    params: &Params,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<Response, ApiError> {
    let info = target.info();
    let name = target.name.clone().unwrap_or_default();
    let current = || {
        app.store
            .read(|s| s.get(target.kind, target.ns(), &name))
            .ok_or_else(|| ApiError::not_found(info.group, info.plural, &name))
    };
    if *method == Method::GET {
        return Ok(json_response(StatusCode::OK, &scale_of(&*current()?)));
    }
    let directive = Directive::from_params(params)?;
    let ty = match *method {
        Method::PUT => None,
        Method::PATCH => Some(patch_type(headers)?),
        _ => {
            return Err(ApiError::method_not_allowed(
                method.as_str(),
                "deployments/scale",
            ));
        }
    };
    let mut ctx = WriteCtx::new(target, params, headers);
    ctx.subresource = Some("scale".into());
    let (out, warnings) = app.store.write(|s| {
        let old = s
            .get(target.kind, target.ns(), &name)
            .ok_or_else(|| ApiError::not_found(info.group, info.plural, &name))?;
        let (scale, warnings) = match ty {
            None => {
                let mut scale = parse_json(body)?;
                let w = field_validation::check_object(&SCALE, body, &mut scale, directive)?;
                (scale, w)
            }
            Some(ty) => {
                let mut scale = patch::apply_simple("Scale", ty, &scale_of(&old), body)
                    .map_err(ApiError::bad_request)?;
                let w = field_validation::check_patched(&SCALE, ty, body, &mut scale, directive)?;
                (scale, w)
            }
        };
        let sent_rv = scale["metadata"]["resourceVersion"]
            .as_str()
            .unwrap_or_default();
        if !sent_rv.is_empty() && Some(sent_rv) != old["metadata"]["resourceVersion"].as_str() {
            return Err(ApiError::stale(info.group, info.plural, &name));
        }
        let replicas = &scale["spec"]["replicas"];
        if replicas.as_i64().is_some_and(|r| r < 0) {
            return Err(ApiError::invalid(
                SCALE.group,
                "Scale.autoscaling",
                &name,
                vec![invalid_value(
                    "spec.replicas",
                    replicas,
                    "must be greater than or equal to 0",
                )],
            ));
        }
        let mut new = (*old).clone();
        new["spec"]["replicas"] = json!(replicas.as_i64().unwrap_or(0));
        let (_, stored) = commit_update(s, target.kind, &old, new, &ctx)?;
        Ok((stored, warnings))
    })?;
    Ok(with_warnings(
        json_response(StatusCode::OK, &scale_of(&out)),
        &warnings,
    ))
}

fn patch_type(headers: &HeaderMap) -> Result<PatchType, ApiError> {
    let ct = headers
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    match PatchType::from_content_type(ct) {
        Some(PatchType::Apply) | None => Err(ApiError::unsupported_media_type(
            ct,
            "application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json",
        )),
        Some(ty) => Ok(ty),
    }
}

/// The Scale view of a Deployment.
pub fn scale_of(deployment: &Value) -> Value {
    let meta = &deployment["metadata"];
    let mut metadata = json!({});
    for f in [
        "name",
        "namespace",
        "uid",
        "resourceVersion",
        "creationTimestamp",
    ] {
        if !meta[f].is_null() {
            metadata[f] = meta[f].clone();
        }
    }
    json!({
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": metadata,
        "spec": {"replicas": deployment["spec"]["replicas"].as_i64().unwrap_or(0)},
        "status": {
            "replicas": deployment["status"]["replicas"].as_i64().unwrap_or(0),
            "selector": selector_string(&deployment["spec"]["selector"]),
        },
    })
}

/// A LabelSelector in the string form label selectors are written in (`app=web,tier in (a,b)`),
/// requirements sorted by key like the real server prints them.
pub fn selector_string(selector: &Value) -> String {
    let mut reqs: Vec<(String, String)> = Vec::new();
    for (k, v) in selector["matchLabels"].as_object().into_iter().flatten() {
        reqs.push((k.clone(), format!("{k}={}", v.as_str().unwrap_or_default())));
    }
    for e in selector["matchExpressions"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let key = e["key"].as_str().unwrap_or_default();
        let mut values: Vec<&str> = e["values"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        values.sort_unstable();
        let text = match e["operator"].as_str().unwrap_or_default() {
            "In" => format!("{key} in ({})", values.join(",")),
            "NotIn" => format!("{key} notin ({})", values.join(",")),
            "Exists" => key.to_string(),
            _ => format!("!{key}"),
        };
        reqs.push((key.to_string(), text));
    }
    reqs.sort();
    reqs.into_iter()
        .map(|(_, t)| t)
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_view_of_a_deployment() {
        let d = json!({"metadata": {"name": "web", "namespace": "d", "resourceVersion": "7", "labels": {"x": "y"}},
            "spec": {"replicas": 2, "selector": {"matchLabels": {"tier": "fe", "app": "web"},
                "matchExpressions": [{"key": "env", "operator": "In", "values": ["qa", "prod"]},
                                     {"key": "gone", "operator": "DoesNotExist"}]}},
            "status": {"replicas": 1}});
        let s = scale_of(&d);
        assert_eq!(s["spec"]["replicas"], 2);
        assert_eq!(s["status"]["replicas"], 1);
        assert_eq!(s["metadata"]["resourceVersion"], "7");
        assert!(s["metadata"].get("labels").is_none());
        assert_eq!(
            s["status"]["selector"],
            "app=web,env in (prod,qa),!gone,tier=fe"
        );
    }
}
