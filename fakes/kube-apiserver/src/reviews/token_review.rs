//! `TokenReview`: who a bearer token belongs to, by this server's authenticator.

use axum::body::Bytes;
use axum::extract::State;
use axum::response::Response;
use serde_json::{Value, json};

use super::{ReviewState, answer, parse};
use crate::status::ApiError;

/// The group every authenticated user is in (`user.AllAuthenticated`).
const AUTHENTICATED: &str = "system:authenticated";

fn review(state: &ReviewState, body: &[u8]) -> Result<Value, ApiError> {
    let mut review = parse(body, "TokenReview", "authentication.k8s.io/v1")?;
    let token = review["spec"]["token"].as_str().unwrap_or_default();
    if token.is_empty() {
        return Err(ApiError::bad_request(
            "token is required for TokenReview in authentication",
        ));
    }
    let mut status = match state.auth.token_user(token) {
        Some(user) => {
            let mut groups = user.groups;
            if !groups.iter().any(|g| g == AUTHENTICATED) {
                groups.push(AUTHENTICATED.to_string());
            }
            json!({"authenticated": true, "user": {"username": user.name, "groups": groups}})
        }
        None => json!({"user": {}, "error": "invalid bearer token"}),
    };
    if let Some(audiences) = review["spec"]["audiences"]
        .as_array()
        .filter(|a| !a.is_empty())
    {
        status["audiences"] = Value::from(audiences.clone());
    }
    review["status"] = status;
    Ok(review)
}

/// `POST /apis/authentication.k8s.io/v1/tokenreviews`.
pub async fn create(State(state): State<ReviewState>, body: Bytes) -> Response {
    answer(review(&state, &body))
}
