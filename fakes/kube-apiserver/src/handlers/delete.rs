//! delete and deletecollection with the real server's DeleteOptions: preconditions, dryRun,
//! `gracePeriodSeconds` (graceful Pod termination) and `propagationPolicy`, finalizers and the
//! namespace cascade.
//!
//! There is no kubelet and no garbage collector: a bound Pod deleted with a grace period stays
//! Terminating until a delete with `gracePeriodSeconds=0` (what the kubelet sends once its
//! containers stopped) removes it, and `propagationPolicy` is validated but deletes every object
//! as if it had no dependents (no `orphan`/`foregroundDeletion` finalizer is added, since
//! nothing would ever remove it). A namespace's content is removed with grace 0.

use std::sync::Arc;

use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Value, json};
use time::Duration;

use super::read::Selectors;
use super::write::{finish_namespace_if_empty, qualified, remove_object};
use super::{AppState, Params, Target, json_response, parse_json};
use crate::kinds::{self, KindId, KindInfo, ids};
use crate::status::{ApiError, Cause, invalid_value, not_supported};
use crate::store::State;
use crate::timestamps;

/// Pod grace period when neither the request nor the Pod gives one (the API default).
const DEFAULT_POD_GRACE_SECONDS: i64 = 30;

/// The `propagationPolicy` values the API accepts.
const PROPAGATION_POLICIES: &[&str] = &["Foreground", "Background", "Orphan"];

/// What a delete request asked for, from its body or, when the body is empty, its query.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeleteOptions {
    /// `gracePeriodSeconds` (negative values count as 1, like the real server).
    pub grace_period: Option<i64>,
    /// `propagationPolicy`, validated.
    pub propagation: Option<String>,
    /// `dryRun=All`.
    pub dry_run: bool,
    /// `preconditions.uid`.
    pub uid: Option<String>,
    /// `preconditions.resourceVersion`.
    pub resource_version: Option<String>,
}

impl DeleteOptions {
    /// Reads and validates the options; the query is only read when the body is empty.
    pub fn parse(params: &Params, body: &[u8]) -> Result<Self, ApiError> {
        let opts = if body.iter().all(u8::is_ascii_whitespace) {
            Self::from_query(params)?
        } else {
            Self::from_body(&parse_json(body)?)?
        };
        opts.validate()?;
        Ok(opts)
    }

    fn from_query(params: &Params) -> Result<Self, ApiError> {
        let grace_period = params
            .get("gracePeriodSeconds")
            .map(|g| {
                g.parse::<i64>().map_err(|_| {
                    ApiError::bad_request(format!(
                        "gracePeriodSeconds: invalid value {g:?}: must be an integer"
                    ))
                })
            })
            .transpose()?;
        let orphan = params
            .get("orphanDependents")
            .map(|o| o == "true" || o == "1");
        Self {
            grace_period,
            propagation: params.get("propagationPolicy").cloned(),
            dry_run: params.get("dryRun").is_some_and(|d| d == "All"),
            uid: None,
            resource_version: None,
        }
        .with_orphan(orphan)
    }

    fn from_body(body: &Value) -> Result<Self, ApiError> {
        let grace_period = match &body["gracePeriodSeconds"] {
            Value::Null => None,
            v => Some(v.as_i64().ok_or_else(|| {
                ApiError::bad_request(format!(
                    "error decoding request body: gracePeriodSeconds: expected an integer, got {v}"
                ))
            })?),
        };
        let text = |v: &Value| v.as_str().map(str::to_string);
        Self {
            grace_period,
            propagation: text(&body["propagationPolicy"]),
            dry_run: body["dryRun"]
                .as_array()
                .is_some_and(|d| d.iter().any(|x| x == "All")),
            uid: text(&body["preconditions"]["uid"]),
            resource_version: text(&body["preconditions"]["resourceVersion"]),
        }
        .with_orphan(body["orphanDependents"].as_bool())
    }

    /// The deprecated `orphanDependents` may not be combined with `propagationPolicy`.
    fn with_orphan(self, orphan: Option<bool>) -> Result<Self, ApiError> {
        if orphan.is_some()
            && let Some(policy) = &self.propagation
        {
            return Err(invalid_options(invalid_value(
                "propagationPolicy",
                &json!(policy),
                "orphanDependents and deletionPropagation cannot be both set",
            )));
        }
        Ok(self)
    }

    fn validate(&self) -> Result<(), ApiError> {
        if let Some(policy) = &self.propagation
            && !PROPAGATION_POLICIES.contains(&policy.as_str())
        {
            let mut supported = PROPAGATION_POLICIES.to_vec();
            supported.push("nil");
            return Err(invalid_options(not_supported(
                "propagationPolicy",
                policy,
                &supported,
            )));
        }
        Ok(())
    }
}

/// The real server's 422 for bad DeleteOptions.
fn invalid_options(cause: Cause) -> ApiError {
    let mut e = ApiError::invalid("meta.k8s.io", "DeleteOptions", "", vec![cause]);
    e.message = e
        .message
        .replacen("DeleteOptions", "DeleteOptions.meta.k8s.io", 1);
    e
}

/// DELETE of one object.
pub fn delete(
    app: &AppState,
    target: &Target,
    params: &Params,
    body: &[u8],
) -> Result<Response, ApiError> {
    let opts = DeleteOptions::parse(params, body)?;
    let info = target.info();
    let name = target.name.clone().unwrap_or_default();
    let out = app.store.write(|s| {
        let old = s
            .get(target.kind, target.ns(), &name)
            .ok_or_else(|| ApiError::not_found(info.group, info.plural, &name))?;
        check_preconditions(info, &name, &old, &opts)?;
        if opts.dry_run {
            return Ok((*old).clone());
        }
        delete_in(s, target.kind, &old, &opts)
    })?;
    Ok(json_response(StatusCode::OK, &out))
}

fn check_preconditions(
    info: &KindInfo,
    name: &str,
    old: &Value,
    opts: &DeleteOptions,
) -> Result<(), ApiError> {
    let meta = &old["metadata"];
    let failed = |what: &str, want: &str, have: &Value| {
        ApiError::conflict(
            info.group,
            info.plural,
            name,
            format!(
                "Operation cannot be fulfilled on {} \"{name}\": Precondition failed: {what} in precondition: {want}, {what} in object meta: {}",
                qualified(info),
                have.as_str().unwrap_or_default()
            ),
            Vec::new(),
        )
    };
    if let Some(uid) = &opts.uid
        && Some(uid.as_str()) != meta["uid"].as_str()
    {
        return Err(failed("UID", uid, &meta["uid"]));
    }
    if let Some(rv) = &opts.resource_version
        && Some(rv.as_str()) != meta["resourceVersion"].as_str()
    {
        return Err(failed("ResourceVersion", rv, &meta["resourceVersion"]));
    }
    Ok(())
}

/// The grace period a first delete gives `obj`: Pods bound to a node that are not finished use
/// the request's period, else their `terminationGracePeriodSeconds`; everything else gets 0.
fn grace_for(info: &KindInfo, obj: &Value, opts: &DeleteOptions) -> i64 {
    if info.kind != "Pod" {
        return 0;
    }
    let unbound = obj["spec"]["nodeName"].as_str().is_none_or(str::is_empty);
    let finished = matches!(
        obj["status"]["phase"].as_str(),
        Some("Succeeded" | "Failed")
    );
    if unbound || finished {
        return 0;
    }
    let period = opts.grace_period.unwrap_or_else(|| {
        obj["spec"]["terminationGracePeriodSeconds"]
            .as_i64()
            .unwrap_or(DEFAULT_POD_GRACE_SECONDS)
    });
    if period < 0 { 1 } else { period }
}

/// Grace periods longer than this (a century) only count this long when computing deadlines,
/// so any client-given period yields a timestamp the API can write.
const MAX_DEADLINE_SECONDS: i64 = 100 * 365 * 24 * 3600;

fn span(seconds: i64) -> Duration {
    Duration::seconds(seconds.clamp(0, MAX_DEADLINE_SECONDS))
}

/// `now + seconds` as an API timestamp.
fn after(seconds: i64) -> String {
    timestamps::format(time::OffsetDateTime::now_utc() + span(seconds))
}

/// Deletes inside the lock: a grace period or finalizers defer removal, namespaces cascade to
/// their content.
pub fn delete_in(
    s: &mut State,
    kind: KindId,
    old: &Arc<Value>,
    opts: &DeleteOptions,
) -> Result<Value, ApiError> {
    let info = kinds::info(kind);
    let (ns, name) = crate::store::key_of(old);
    let has_finalizers = old["metadata"]["finalizers"]
        .as_array()
        .is_some_and(|f| !f.is_empty());
    let is_namespace = kind == ids::namespaces();
    let meta = &old["metadata"];
    if let Some(since) = meta["deletionTimestamp"].as_str() {
        let pending = meta["deletionGracePeriodSeconds"].as_i64().unwrap_or(0);
        let shorter = opts.grace_period.map(|g| g.max(0)).filter(|g| *g < pending);
        let Some(grace) = shorter else {
            // Already terminating: only a shorter grace period changes anything.
            return Ok((**old).clone());
        };
        let start = timestamps::parse(since)
            .and_then(|t| t.checked_sub(span(pending)))
            .unwrap_or_else(time::OffsetDateTime::now_utc);
        let mut marked = (**old).clone();
        marked["metadata"]["deletionTimestamp"] = json!(timestamps::format(start + span(grace)));
        marked["metadata"]["deletionGracePeriodSeconds"] = json!(grace);
        if grace > 0 || has_finalizers {
            return Ok((*s.put(kind, marked)).clone());
        }
        return remove(s, info, kind, (&ns, &name), old);
    }
    let grace = grace_for(info, old, opts);
    if grace > 0 || has_finalizers || is_namespace {
        let mut marked = (**old).clone();
        marked["metadata"]["deletionTimestamp"] = json!(after(grace));
        marked["metadata"]["deletionGracePeriodSeconds"] = json!(grace);
        if let Some(g) = meta["generation"].as_i64().filter(|g| *g > 0) {
            marked["metadata"]["generation"] = json!(g + 1);
        }
        if is_namespace {
            marked["status"]["phase"] = json!("Terminating");
        }
        let stored = s.put(kind, marked);
        if is_namespace {
            cascade(s, &name)?;
            if s.get(kind, "", &name).is_none() {
                return Ok(deleted_status(info, &name, old));
            }
        }
        return Ok((*stored).clone());
    }
    remove(s, info, kind, (&ns, &name), old)
}

/// Deletes everything in a terminating namespace (grace 0: no kubelet finishes Pods here).
fn cascade(s: &mut State, namespace: &str) -> Result<(), ApiError> {
    let now = DeleteOptions {
        grace_period: Some(0),
        ..DeleteOptions::default()
    };
    for (id, k) in kinds::KINDS.iter().enumerate() {
        if !k.namespaced {
            continue;
        }
        for obj in s.list_current(id, Some(namespace)) {
            delete_in(s, id, &obj, &now)?;
        }
    }
    finish_namespace_if_empty(s, namespace);
    Ok(())
}

fn remove(
    s: &mut State,
    info: &KindInfo,
    kind: KindId,
    (ns, name): (&str, &str),
    old: &Value,
) -> Result<Value, ApiError> {
    let last = remove_object(s, kind, ns, name)
        .ok_or_else(|| ApiError::not_found(info.group, info.plural, name))?;
    if matches!(info.kind, "Pod" | "Service") {
        return Ok((*last).clone());
    }
    Ok(deleted_status(info, name, old))
}

fn deleted_status(info: &KindInfo, name: &str, old: &Value) -> Value {
    let mut details = json!({"name": name, "kind": info.plural, "uid": old["metadata"]["uid"]});
    if !info.group.is_empty() {
        details["group"] = json!(info.group);
    }
    json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "details": details})
}

/// DELETE on a collection: deletes every object matching the selectors, with the same options.
pub fn delete_collection(
    app: &AppState,
    target: &Target,
    params: &Params,
    body: &[u8],
) -> Result<Response, ApiError> {
    let selectors = Selectors::from_params(target, params)?;
    let opts = DeleteOptions::parse(params, body)?;
    let info = target.info();
    let deleted = app.store.write(|s| {
        let mut out = Vec::new();
        for obj in s.list_current(target.kind, target.namespace.as_deref()) {
            if !selectors.matches(&obj) {
                continue;
            }
            if opts.dry_run {
                out.push((*obj).clone());
            } else {
                // The list holds the deleted objects, never the per-object Status a single
                // DELETE answers with (`DeleteCollection` in `registry/generic/registry/store.go`).
                let result = delete_in(s, target.kind, &obj, &opts)?;
                out.push(if result["kind"] == "Status" {
                    (*obj).clone()
                } else {
                    result
                });
            }
        }
        Ok(out)
    })?;
    let rv = app.store.read(State::rv);
    Ok(json_response(
        StatusCode::OK,
        &json!({"kind": info.list_kind(), "apiVersion": info.api_version(), "metadata": {"resourceVersion": rv.to_string()}, "items": deleted}),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Store, StoreConfig};

    fn pod(node: Option<&str>) -> Value {
        let mut p = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default", "uid": "u1"},
            "spec": {"terminationGracePeriodSeconds": 30, "containers": [{"name": "c", "image": "i"}]},
            "status": {"phase": "Running"}});
        if let Some(n) = node {
            p["spec"]["nodeName"] = json!(n);
        }
        p
    }

    fn grace(seconds: i64) -> DeleteOptions {
        DeleteOptions {
            grace_period: Some(seconds),
            ..DeleteOptions::default()
        }
    }

    fn pods() -> KindId {
        kinds::by_resource("", "v1", "pods").unwrap()
    }

    fn delete_pod(store: &Store, opts: &DeleteOptions) -> Value {
        store
            .write(|s| {
                let old = s.get(pods(), "default", "p").unwrap();
                delete_in(s, pods(), &old, opts)
            })
            .unwrap()
    }

    fn live(store: &Store) -> Option<Arc<Value>> {
        store.read(|s| s.get(pods(), "default", "p"))
    }

    #[test]
    fn a_bound_pod_terminates_until_a_zero_grace_delete() {
        let store = Store::new(StoreConfig::default(), 0, Vec::new());
        store.write(|s| Ok(s.put(pods(), pod(Some("n1"))))).unwrap();
        let before = time::OffsetDateTime::now_utc();
        let first = delete_pod(&store, &DeleteOptions::default());
        assert_eq!(first["metadata"]["deletionGracePeriodSeconds"], 30);
        let ts = timestamps::parse(first["metadata"]["deletionTimestamp"].as_str().unwrap());
        // The deadline is the delete's time plus the Pod's 30 s (whole seconds).
        assert!(ts.unwrap() > before + Duration::seconds(29));
        assert!(live(&store).is_some());
        // A longer period changes nothing, a shorter one moves the deadline earlier.
        delete_pod(&store, &grace(60));
        assert_eq!(
            live(&store).unwrap()["metadata"]["deletionGracePeriodSeconds"],
            30
        );
        let shorter = delete_pod(&store, &grace(5));
        assert_eq!(shorter["metadata"]["deletionGracePeriodSeconds"], 5);
        let deadline =
            timestamps::parse(shorter["metadata"]["deletionTimestamp"].as_str().unwrap());
        assert!(deadline.unwrap() < ts.unwrap());
        assert!(live(&store).is_some());
        let gone = delete_pod(&store, &grace(0));
        assert_eq!(gone["metadata"]["name"], "p");
        assert!(live(&store).is_none());
    }

    #[test]
    fn huge_grace_periods_still_give_a_timestamp() {
        let store = Store::new(StoreConfig::default(), 0, Vec::new());
        store.write(|s| Ok(s.put(pods(), pod(Some("n1"))))).unwrap();
        let marked = delete_pod(&store, &grace(i64::MAX));
        assert_eq!(marked["metadata"]["deletionGracePeriodSeconds"], i64::MAX);
        let ts = marked["metadata"]["deletionTimestamp"].as_str().unwrap();
        assert!(timestamps::parse(ts).is_some(), "{ts:?}");
        let shorter = delete_pod(&store, &grace(i64::MAX - 1));
        let ts = shorter["metadata"]["deletionTimestamp"].as_str().unwrap();
        assert!(timestamps::parse(ts).is_some(), "{ts:?}");
    }

    #[test]
    fn unbound_and_finished_pods_go_at_once() {
        let store = Store::new(StoreConfig::default(), 0, Vec::new());
        store.write(|s| Ok(s.put(pods(), pod(None)))).unwrap();
        delete_pod(&store, &grace(30));
        assert!(live(&store).is_none());
        let mut done = pod(Some("n1"));
        done["status"]["phase"] = json!("Succeeded");
        store.write(|s| Ok(s.put(pods(), done))).unwrap();
        delete_pod(&store, &DeleteOptions::default());
        assert!(live(&store).is_none());
    }

    #[test]
    fn options_come_from_the_body_or_else_the_query() {
        let mut params = Params::new();
        params.insert("gracePeriodSeconds".into(), "7".into());
        params.insert("propagationPolicy".into(), "Foreground".into());
        let q = DeleteOptions::parse(&params, b"").unwrap();
        assert_eq!(
            (q.grace_period, q.propagation.as_deref()),
            (Some(7), Some("Foreground"))
        );
        let b = DeleteOptions::parse(
            &params,
            br#"{"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":3}"#,
        )
        .unwrap();
        assert_eq!((b.grace_period, b.propagation), (Some(3), None));
        params.insert("propagationPolicy".into(), "Sideways".into());
        let e = DeleteOptions::parse(&params, b"").unwrap_err();
        assert_eq!((e.code, e.reason), (422, "Invalid"));
        assert_eq!(
            e.message,
            "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Unsupported value: \"Sideways\": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\""
        );
        let both = DeleteOptions::parse(
            &Params::new(),
            br#"{"orphanDependents":true,"propagationPolicy":"Orphan"}"#,
        )
        .unwrap_err();
        assert_eq!(both.code, 422);
        params.insert("gracePeriodSeconds".into(), "soon".into());
        assert_eq!(DeleteOptions::parse(&params, b"").unwrap_err().code, 400);
    }
}
