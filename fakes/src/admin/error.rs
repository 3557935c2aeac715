//! Admin API errors: a status and `{"error":{"code","message"}}`, with messages naming the field.

use axum::response::{IntoResponse, Response};
use http::StatusCode;
use serde_json::json;

/// One refused admin request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct AdminError {
    /// HTTP status.
    pub status: StatusCode,
    /// Short PascalCase code.
    pub code: &'static str,
    /// What was wrong and what is accepted.
    pub message: String,
}

impl AdminError {
    /// 400 with `code`.
    pub fn bad_request(code: &'static str, message: impl Into<String>) -> Self {
        Self {
            status: StatusCode::BAD_REQUEST,
            code,
            message: message.into(),
        }
    }

    /// 500 with `code`: the fake failed, not the request.
    pub fn internal(code: &'static str, message: impl Into<String>) -> Self {
        Self {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            code,
            message: message.into(),
        }
    }

    /// 503 with `code`: the fake is shutting down.
    pub fn unavailable(code: &'static str, message: impl Into<String>) -> Self {
        Self {
            status: StatusCode::SERVICE_UNAVAILABLE,
            code,
            message: message.into(),
        }
    }

    /// 404 with `code`.
    pub fn not_found(code: &'static str, message: impl Into<String>) -> Self {
        Self {
            status: StatusCode::NOT_FOUND,
            code,
            message: message.into(),
        }
    }
}

impl IntoResponse for AdminError {
    fn into_response(self) -> Response {
        (
            self.status,
            axum::Json(json!({"error": {"code": self.code, "message": self.message}})),
        )
            .into_response()
    }
}

/// Parses a JSON body, naming the admin route in the error.
pub fn parse_body<T: serde::de::DeserializeOwned>(
    body: &[u8],
    route: &str,
) -> Result<T, AdminError> {
    serde_json::from_slice(body)
        .map_err(|e| AdminError::bad_request("InvalidBody", format!("{route}: request body: {e}")))
}
