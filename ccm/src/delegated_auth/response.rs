//! The `metav1.Status` answers of a refused request, as k8s.io/apiserver's `responsewriters`
//! writes them (`Unauthorized`, `Forbidden` with `forbidden: User "<u>" cannot <verb> path
//! "<path>"`, `InternalError`).

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

fn status(code: StatusCode, reason: &str, message: String, details: bool) -> Response {
    let mut body = json!({
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code.as_u16(),
    });
    if details {
        body["details"] = json!({});
    }
    (
        code,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// 401.
pub fn unauthorized() -> Response {
    status(
        StatusCode::UNAUTHORIZED,
        "Unauthorized",
        "Unauthorized".into(),
        false,
    )
}

/// 403 for `user` doing `verb` on `path`, with the reviewer's reason when it gave one.
pub fn forbidden(user: &str, verb: &str, path: &str, reason: &str) -> Response {
    let mut message = format!("forbidden: User {user:?} cannot {verb} path {path:?}");
    if !reason.is_empty() {
        message.push_str(": ");
        message.push_str(reason);
    }
    status(StatusCode::FORBIDDEN, "Forbidden", message, true)
}

/// 500 when a review could not be made.
pub fn internal_error(message: &str) -> Response {
    status(
        StatusCode::INTERNAL_SERVER_ERROR,
        "InternalError",
        format!("Internal error occurred: {message}"),
        false,
    )
}
