//! IMDS response bodies: plain `{"error": ...}` for metadata categories and OAuth-style
//! `{"error", "error_description"}` for the managed-identity endpoint, as the real service sends them.

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// A JSON response (IMDS answers `application/json; charset=utf-8`).
pub(super) fn json(status: StatusCode, body: &Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json; charset=utf-8")],
        body.to_string(),
    )
        .into_response()
}

/// A `format=text` leaf.
pub(super) fn text(body: String) -> Response {
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        body,
    )
        .into_response()
}

/// Error in the style of the category.
pub(super) fn error(status: StatusCode, oauth_code: &str, message: &str, oauth: bool) -> Response {
    if oauth {
        json(
            status,
            &json!({ "error": oauth_code, "error_description": message }),
        )
    } else {
        json(status, &json!({ "error": message }))
    }
}

/// 404 for unknown paths, absent elements and VMs that do not exist.
pub(super) fn not_found() -> Response {
    json(StatusCode::NOT_FOUND, &json!({ "error": "Not found" }))
}

/// 429 when the VM exceeded its request budget.
pub(super) fn too_many_requests(oauth: bool) -> Response {
    let mut r = error(
        StatusCode::TOO_MANY_REQUESTS,
        "too_many_requests",
        "Too many requests",
        oauth,
    );
    r.headers_mut()
        .insert(header::RETRY_AFTER, header::HeaderValue::from_static("1"));
    r
}

/// 500 when ARM state could not be read.
pub(super) fn internal(message: &str, oauth: bool) -> Response {
    error(
        StatusCode::INTERNAL_SERVER_ERROR,
        "server_error",
        &format!("Internal server error: {message}"),
        oauth,
    )
}

/// 503 for a VM whose guest is not running (fake-only: the real IMDS is unreachable then).
pub(super) fn powered_off(node: &str, power: &str, oauth: bool) -> Response {
    error(
        StatusCode::SERVICE_UNAVAILABLE,
        "service_unavailable",
        &format!("VM '{node}' is {power}: no guest is running, so it cannot reach IMDS"),
        oauth,
    )
}
