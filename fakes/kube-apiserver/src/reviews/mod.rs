//! The review APIs a delegating component (the CCM's secure port) calls:
//! `POST /apis/authentication.k8s.io/v1/tokenreviews` (the token checked by this server's own
//! authenticator) and `POST /apis/authorization.k8s.io/v1/subjectaccessreviews` (decided by the
//! RBAC authorizer over the stored Roles, ClusterRoles and bindings, [`crate::rbac`]).
//! Both are create-only and not stored; the answer is the request with `status` filled, `201`
//! (kubernetes `pkg/registry/authentication/tokenreview/storage.go`,
//! `pkg/registry/authorization/subjectaccessreview/rest.go`).
//! `[infer]` a TokenReview without `spec.audiences` answers without `status.audiences` (static
//! tokens carry no audience).

mod access_review;
mod token_review;

use std::sync::Arc;

use axum::Router;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::Value;

use crate::auth::Authenticator;
use crate::handlers::json_response;
use crate::status::ApiError;
use crate::store::Store;

/// What the review handlers read.
#[derive(Clone)]
pub struct ReviewState {
    store: Arc<Store>,
    auth: Authenticator,
}

/// A create-only review resource served outside the object store, for discovery.
pub struct ReviewResource {
    /// API group.
    pub group: &'static str,
    /// Version.
    pub version: &'static str,
    /// Kind.
    pub kind: &'static str,
    /// Plural.
    pub plural: &'static str,
    /// Singular.
    pub singular: &'static str,
}

/// The review resources, in discovery order.
pub const RESOURCES: &[ReviewResource] = &[
    ReviewResource {
        group: "authentication.k8s.io",
        version: "v1",
        kind: "TokenReview",
        plural: "tokenreviews",
        singular: "tokenreview",
    },
    ReviewResource {
        group: "authorization.k8s.io",
        version: "v1",
        kind: "SubjectAccessReview",
        plural: "subjectaccessreviews",
        singular: "subjectaccessreview",
    },
];

/// The two POST routes.
pub fn router(store: Arc<Store>, auth: Authenticator) -> Router {
    Router::new()
        .route(
            "/apis/authentication.k8s.io/v1/tokenreviews",
            post(token_review::create),
        )
        .route(
            "/apis/authorization.k8s.io/v1/subjectaccessreviews",
            post(access_review::create),
        )
        .with_state(ReviewState { store, auth })
}

/// Parses a review body and checks its apiVersion/kind (filled in when absent).
fn parse(body: &[u8], kind: &str, api_version: &str) -> Result<Value, ApiError> {
    let mut review: Value = serde_json::from_slice(body)
        .map_err(|e| ApiError::bad_request(format!("the body of the request is not JSON: {e}")))?;
    if !review.is_object() {
        return Err(ApiError::bad_request(
            "the request body must be a JSON object",
        ));
    }
    for (field, want) in [("kind", kind), ("apiVersion", api_version)] {
        match review[field].as_str() {
            None | Some("") => review[field] = Value::from(want),
            Some(got) if got == want => {}
            Some(got) => {
                return Err(ApiError::bad_request(format!(
                    "{field} {got:?} does not match the expected {want:?}"
                )));
            }
        }
    }
    if review["metadata"].is_null() {
        review["metadata"] = serde_json::json!({});
    }
    review["metadata"]["creationTimestamp"] = Value::Null;
    Ok(review)
}

fn answer(result: Result<Value, ApiError>) -> Response {
    match result {
        Ok(review) => json_response(StatusCode::CREATED, &review),
        Err(e) => e.into_response(),
    }
}
