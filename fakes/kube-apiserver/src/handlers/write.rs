//! create and update (PUT), plus the write pipeline shared with patch and delete:
//! system metadata, status subresource rules, generation, defaulting/validation, managedFields,
//! no-op detection, finalizers and namespace lifecycle.

use std::sync::Arc;

use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use rand::Rng;
use serde_json::{Value, json};

use super::{AppState, Params, Target, json_response, parse_json};
use crate::field_validation::{self, Directive, with_warnings};
use crate::kinds::{self, KindId, KindInfo, ids};
use crate::patch::managed;
use crate::status::ApiError;
use crate::store::State;
use crate::timestamps;

/// Who writes and how.
#[derive(Debug, Clone)]
pub struct WriteCtx {
    /// Field manager for managedFields.
    pub manager: String,
    /// `status` or `scale` when writing through that subresource (recorded in managedFields;
    /// `status` also limits the write to the status).
    pub subresource: Option<String>,
    /// `dryRun=All`: validate and default, store nothing.
    pub dry_run: bool,
    /// Time of the write.
    pub now: String,
    /// managedFields computed by server-side apply; `None` records an Update by `manager`.
    pub applied_fields: Option<Value>,
}

impl WriteCtx {
    /// Reads fieldManager (or the User-Agent prefix, like the real server), dryRun and the target's subresource.
    pub fn new(target: &Target, params: &Params, headers: &HeaderMap) -> Self {
        let manager = params
            .get("fieldManager")
            .cloned()
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| {
                let ua = headers
                    .get(header::USER_AGENT)
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("unknown");
                ua.split('/').next().unwrap_or("unknown").to_string()
            });
        Self {
            manager,
            subresource: target.subresource.clone().filter(|s| s == "status"),
            dry_run: params.get("dryRun").is_some_and(|d| d == "All"),
            now: timestamps::now(),
            applied_fields: None,
        }
    }
}

/// POST: create an object.
pub fn create(
    app: &AppState,
    target: &Target,
    params: &Params,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<Response, ApiError> {
    let mut obj = parse_json(body)?;
    let directive = Directive::from_params(params)?;
    let warnings = field_validation::check_object(target.info(), body, &mut obj, directive)?;
    let ctx = WriteCtx::new(target, params, headers);
    let created = app
        .store
        .write(|s| create_in(s, target.kind, target.namespace.as_deref(), obj, &ctx))?;
    Ok(with_warnings(
        json_response(StatusCode::CREATED, &created),
        &warnings,
    ))
}

/// Checks the body's apiVersion/kind against the URL and fills them in when absent.
fn check_type(info: &KindInfo, obj: &mut Value) -> Result<(), ApiError> {
    if !obj.is_object() {
        return Err(ApiError::bad_request(
            "the request body must be a JSON object",
        ));
    }
    let api_version = info.api_version();
    for (field, want) in [("apiVersion", api_version.as_str()), ("kind", info.kind)] {
        match obj[field].as_str() {
            None | Some("") => obj[field] = json!(want),
            Some(got) if got != want => {
                return Err(ApiError::bad_request(format!("the API version in the data ({}) does not match the expected API version ({api_version})", obj["apiVersion"].as_str().unwrap_or_default()))
                    .with_kind_message(field, got, want));
            }
            Some(_) => {}
        }
    }
    if !obj["metadata"].is_object() {
        obj["metadata"] = json!({});
    }
    Ok(())
}

trait KindMessage {
    fn with_kind_message(self, field: &str, got: &str, want: &str) -> Self;
}

impl KindMessage for ApiError {
    fn with_kind_message(mut self, field: &str, got: &str, want: &str) -> Self {
        if field == "kind" {
            self.message =
                format!("the kind in the data ({got}) does not match the expected kind ({want})");
        }
        self
    }
}

/// Creates inside the store lock (also used by server-side apply and start-up seeding).
pub fn create_in(
    s: &mut State,
    kind: KindId,
    url_ns: Option<&str>,
    mut obj: Value,
    ctx: &WriteCtx,
) -> Result<Value, ApiError> {
    let info = kinds::info(kind);
    check_type(info, &mut obj)?;
    let namespace = resolve_namespace(info, url_ns, &obj)?;
    let meta = obj["metadata"]
        .as_object_mut()
        .ok_or_else(|| ApiError::bad_request("metadata must be an object"))?;
    if info.namespaced {
        meta.insert("namespace".into(), json!(namespace));
    } else {
        meta.remove("namespace");
    }
    let name_empty = meta
        .get("name")
        .and_then(Value::as_str)
        .is_none_or(str::is_empty);
    if name_empty
        && let Some(prefix) = meta
            .get("generateName")
            .and_then(Value::as_str)
            .filter(|p| !p.is_empty())
    {
        let name = generated_name(prefix);
        meta.insert("name".into(), json!(name));
    }
    for f in [
        "resourceVersion",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "managedFields",
        "selfLink",
        "uid",
    ] {
        meta.remove(f);
    }
    meta.insert("uid".into(), json!(uuid::Uuid::new_v4().to_string()));
    meta.insert("creationTimestamp".into(), json!(ctx.now));
    if info.tracks_generation {
        meta.insert("generation".into(), json!(1));
    } else {
        meta.remove("generation");
    }
    let name = obj["metadata"]["name"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    if info.namespaced {
        match s.get(ids::namespaces(), "", &namespace) {
            None => return Err(ApiError::not_found("", "namespaces", &namespace)),
            Some(ns) if ns["metadata"]["deletionTimestamp"].is_string() => {
                return Err(ApiError::forbidden(
                    info.group,
                    info.plural,
                    &name,
                    format!(
                        "{} \"{name}\" is forbidden: unable to create new content in namespace {namespace} because it is being terminated",
                        qualified(info)
                    ),
                ));
            }
            Some(_) => {}
        }
    }
    if !name.is_empty() && s.get(kind, &namespace, &name).is_some() {
        return Err(ApiError::already_exists(info.group, info.plural, &name));
    }
    match info.kind {
        "Service" => obj["status"] = json!({"loadBalancer": {}}),
        "Deployment" | "DaemonSet" | "PodDisruptionBudget" => {
            if let Some(m) = obj.as_object_mut() {
                m.remove("status");
            }
        }
        "Pod" => obj["status"] = json!({"phase": "Pending"}),
        _ => {}
    }
    let saved = ctx.dry_run.then(|| s.services.clone());
    let prepared = kinds::prepare(kind, &mut obj, None, s);
    if let Some(saved) = saved {
        s.services = saved;
    }
    prepared?;
    field_validation::drop_empty(info, &mut obj);
    record_fields(info, None, &mut obj, ctx);
    if ctx.dry_run {
        return Ok(obj);
    }
    let stored = s.put(kind, obj);
    if info.kind == "Namespace" {
        ensure_default_service_account(s, &name, &ctx.now);
    }
    Ok((*stored).clone())
}

/// `services` or `deployments.apps`, as the real messages name resources.
pub(super) fn qualified(info: &KindInfo) -> String {
    if info.group.is_empty() {
        info.plural.to_string()
    } else {
        format!("{}.{}", info.plural, info.group)
    }
}

fn resolve_namespace(
    info: &KindInfo,
    url_ns: Option<&str>,
    obj: &Value,
) -> Result<String, ApiError> {
    if !info.namespaced {
        return Ok(String::new());
    }
    let body_ns = obj["metadata"]["namespace"].as_str().unwrap_or_default();
    match url_ns {
        Some(url) if !body_ns.is_empty() && body_ns != url => Err(ApiError::bad_request(
            "the namespace of the provided object does not match the namespace sent on the request",
        )),
        Some(url) => Ok(url.to_string()),
        None if !body_ns.is_empty() => Ok(body_ns.to_string()),
        None => Ok("default".into()),
    }
}

/// The `default` ServiceAccount the service account controller creates in every namespace.
pub fn ensure_default_service_account(s: &mut State, namespace: &str, now: &str) {
    let kind = ids::service_accounts();
    if s.get(kind, namespace, "default").is_some() {
        return;
    }
    let sa = json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "default", "namespace": namespace,
        "uid": uuid::Uuid::new_v4().to_string(), "creationTimestamp": now}});
    s.put(kind, sa);
}

/// Longest generateName prefix kept: the real server cuts it so prefix plus suffix fit in 63.
const MAX_GENERATE_NAME_PREFIX: usize = 58;

/// `generateName` plus five random characters, the prefix cut to 58 characters first.
fn generated_name(prefix: &str) -> String {
    let base = prefix
        .char_indices()
        .nth(MAX_GENERATE_NAME_PREFIX)
        .map_or(prefix, |(i, _)| &prefix[..i]);
    format!("{base}{}", random_suffix())
}

fn random_suffix() -> String {
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let mut rng = rand::rng();
    (0..5)
        .map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char)
        .collect()
}

/// PUT: replace an object (main resource or status).
pub fn update(
    app: &AppState,
    target: &Target,
    params: &Params,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<Response, ApiError> {
    let mut obj = parse_json(body)?;
    let info = target.info();
    let directive = Directive::from_params(params)?;
    let warnings = field_validation::check_object(info, body, &mut obj, directive)?;
    check_type(info, &mut obj)?;
    let name = target.name.clone().unwrap_or_default();
    let body_name = obj["metadata"]["name"].as_str().unwrap_or_default();
    if !body_name.is_empty() && body_name != name {
        return Err(ApiError::bad_request(format!(
            "the name of the object ({body_name}) does not match the name on the URL ({name})"
        )));
    }
    let ctx = WriteCtx::new(target, params, headers);
    let (code, out) = app.store.write(|s| {
        let old = s
            .get(target.kind, target.ns(), &name)
            .ok_or_else(|| ApiError::not_found(info.group, info.plural, &name))?;
        let sent_rv = obj["metadata"]["resourceVersion"]
            .as_str()
            .unwrap_or_default();
        if !sent_rv.is_empty() && Some(sent_rv) != old["metadata"]["resourceVersion"].as_str() {
            return Err(ApiError::stale(info.group, info.plural, &name));
        }
        commit_update(s, target.kind, &old, obj, &ctx)
    })?;
    Ok(with_warnings(json_response(code, &out), &warnings))
}

/// Stores `new` as the next state of `old`, applying every update rule of the real server.
pub fn commit_update(
    s: &mut State,
    kind: KindId,
    old: &Arc<Value>,
    mut new: Value,
    ctx: &WriteCtx,
) -> Result<(StatusCode, Value), ApiError> {
    let info = kinds::info(kind);
    if info.has_status {
        if ctx.subresource.as_deref() == Some("status") {
            kinds::status_strategy::prepare_status_update(info.kind, &mut new, old);
        } else if let Some(m) = new.as_object_mut() {
            match old.get("status") {
                Some(st) => m.insert("status".into(), st.clone()),
                None => m.remove("status"),
            };
        }
    }
    for f in [
        "uid",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "namespace",
        "name",
        "generation",
    ] {
        match old["metadata"].get(f) {
            Some(v) => new["metadata"][f] = v.clone(),
            None => {
                if let Some(m) = new["metadata"].as_object_mut() {
                    m.remove(f);
                }
            }
        }
    }
    if let Some(m) = new["metadata"].as_object_mut() {
        m.insert(
            "managedFields".into(),
            old["metadata"]["managedFields"].clone(),
        );
        if m.get("managedFields").is_some_and(Value::is_null) {
            m.remove("managedFields");
        }
    }
    if info.tracks_generation && spec_of(&new) != spec_of(old) {
        let g = old["metadata"]["generation"].as_i64().unwrap_or(1) + 1;
        new["metadata"]["generation"] = json!(g);
    }
    if old["metadata"]["deletionTimestamp"].is_string() {
        let old_fin = old["metadata"]["finalizers"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let new_fin = new["metadata"]["finalizers"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        if new_fin.iter().any(|f| !old_fin.contains(f)) {
            let name = old["metadata"]["name"].as_str().unwrap_or_default();
            return Err(ApiError::forbidden(
                info.group,
                info.plural,
                name,
                format!(
                    "{} \"{name}\" is forbidden: no new finalizers can be added if the object is being deleted, found new finalizers {:?}",
                    qualified(info),
                    new_fin
                        .iter()
                        .filter(|f| !old_fin.contains(f))
                        .filter_map(|f| f.as_str())
                        .collect::<Vec<_>>()
                ),
            ));
        }
    }
    let saved = ctx.dry_run.then(|| s.services.clone());
    let prepared = kinds::prepare(kind, &mut new, Some(old), s);
    if let Some(saved) = saved {
        s.services = saved;
    }
    prepared?;
    field_validation::drop_empty(info, &mut new);
    record_fields(info, Some(old), &mut new, ctx);
    new["metadata"]["resourceVersion"] = old["metadata"]["resourceVersion"].clone();
    if new == **old || ctx.dry_run {
        return Ok((
            StatusCode::OK,
            if ctx.dry_run { new } else { (**old).clone() },
        ));
    }
    let (ns, name) = crate::store::key_of(&new);
    // Like the real server, an update that empties the finalizers removes a terminating object,
    // but only once its grace period is over (a terminating Pod waits for its final delete).
    let finished = new["metadata"]["deletionTimestamp"].is_string()
        && new["metadata"]["finalizers"]
            .as_array()
            .is_none_or(Vec::is_empty)
        && old["metadata"]["deletionGracePeriodSeconds"]
            .as_i64()
            .is_none_or(|g| g == 0);
    let stored = s.put(kind, new);
    if finished {
        remove_object(s, kind, &ns, &name);
    }
    Ok((StatusCode::OK, (*stored).clone()))
}

/// Sets managedFields: the apply's own result, or an Update entry for the writer.
fn record_fields(info: &KindInfo, old: Option<&Value>, new: &mut Value, ctx: &WriteCtx) {
    match &ctx.applied_fields {
        Some(fields) if !fields.is_null() => new["metadata"]["managedFields"] = fields.clone(),
        Some(_) => {
            if let Some(m) = new["metadata"].as_object_mut() {
                m.remove("managedFields");
            }
        }
        None => managed::record_update(
            info.kind,
            old,
            new,
            &ctx.manager,
            ctx.subresource.as_deref(),
            &ctx.now,
        ),
    }
}

fn spec_of(obj: &Value) -> Value {
    let mut v = obj.clone();
    if let Some(m) = v.as_object_mut() {
        m.remove("metadata");
        m.remove("status");
    }
    v
}

/// Removes an object and finishes a terminating namespace that became empty.
pub fn remove_object(s: &mut State, kind: KindId, ns: &str, name: &str) -> Option<Arc<Value>> {
    let last = s.remove(kind, ns, name)?;
    if !ns.is_empty() {
        finish_namespace_if_empty(s, ns);
    }
    Some(last)
}

/// Removes a terminating namespace once nothing holds it any more.
pub(super) fn finish_namespace_if_empty(s: &mut State, ns: &str) {
    let nk = ids::namespaces();
    if let Some(obj) = s.get(nk, "", ns)
        && obj["metadata"]["deletionTimestamp"].is_string()
        && obj["metadata"]["finalizers"]
            .as_array()
            .is_none_or(Vec::is_empty)
        && s.namespace_is_empty(ns)
    {
        s.remove(nk, "", ns);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_names_cut_long_prefixes_to_58_characters() {
        let long = "a".repeat(70);
        let name = generated_name(&long);
        assert_eq!(name.len(), 63);
        assert!(name.starts_with(&"a".repeat(58)));
        let short = generated_name("web-");
        assert!(short.starts_with("web-") && short.len() == 9, "{short}");
    }
}
