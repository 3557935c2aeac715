//! `SubjectAccessReview`: whether a user may do one request, by the RBAC authorizer.

use axum::body::Bytes;
use axum::extract::State;
use axum::response::Response;
use serde_json::{Value, json};

use super::{ReviewState, answer, parse};
use crate::kinds;
use crate::rbac::{Call, Subject, decide};
use crate::status::ApiError;

const RBAC_RESOURCES: &[&str] = &[
    "roles",
    "rolebindings",
    "clusterroles",
    "clusterrolebindings",
];

/// The stored RBAC objects (`kind` filled in, as the authorizer reads it).
fn rbac_objects(state: &ReviewState) -> Vec<Value> {
    state.store.read(|s| {
        RBAC_RESOURCES
            .iter()
            .filter_map(|r| kinds::by_resource("rbac.authorization.k8s.io", "v1", r))
            .flat_map(|id| {
                let kind = kinds::info(id).kind;
                s.list_current(id, None).into_iter().map(move |o| {
                    let mut o = (*o).clone();
                    o["kind"] = Value::from(kind);
                    o
                })
            })
            .collect()
    })
}

fn text(v: &Value, key: &str) -> String {
    v[key].as_str().unwrap_or_default().to_string()
}

/// The request the review asks about (`ResourceAttributesFrom` / `NonResourceAttributesFrom`).
fn call(spec: &Value) -> Result<Call, ApiError> {
    let resource = &spec["resourceAttributes"];
    let non_resource = &spec["nonResourceAttributes"];
    match (resource.is_object(), non_resource.is_object()) {
        (true, false) => Ok(Call {
            verb: text(resource, "verb"),
            group: text(resource, "group"),
            resource: text(resource, "resource"),
            subresource: text(resource, "subresource"),
            namespace: text(resource, "namespace"),
            name: text(resource, "name"),
            path: String::new(),
        }),
        (false, true) => Ok(Call {
            verb: text(non_resource, "verb"),
            path: text(non_resource, "path"),
            ..Call::default()
        }),
        _ => Err(ApiError::invalid(
            "authorization.k8s.io",
            "SubjectAccessReview",
            "",
            vec![crate::status::required("spec.resourceAttributes")],
        )),
    }
}

fn review(state: &ReviewState, body: &[u8]) -> Result<Value, ApiError> {
    let mut review = parse(body, "SubjectAccessReview", "authorization.k8s.io/v1")?;
    let spec = &review["spec"];
    let subject = Subject {
        user: text(spec, "user"),
        groups: spec["groups"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|g| g.as_str().map(String::from))
            .collect(),
    };
    if subject.user.is_empty() && subject.groups.is_empty() {
        return Err(ApiError::invalid(
            "authorization.k8s.io",
            "SubjectAccessReview",
            "",
            vec![crate::status::required("spec.user")],
        ));
    }
    let call = call(spec)?;
    let status = match decide(&rbac_objects(state), &subject, &call) {
        Some(reason) => json!({"allowed": true, "reason": reason}),
        None => json!({"allowed": false}),
    };
    review["status"] = status;
    Ok(review)
}

/// `POST /apis/authorization.k8s.io/v1/subjectaccessreviews`.
pub async fn create(State(state): State<ReviewState>, body: Bytes) -> Response {
    answer(review(&state, &body))
}
