//! The ARM error envelope (`{"error":{code,message,target,details}}`) and the status it travels with.

use axum::response::{IntoResponse, Response};
use http::StatusCode;
use serde_json::{Value, json};

/// One entry of the envelope's `details` array (same shape as the top-level error, never nested further here).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorDetail {
    /// PascalCase ARM error code.
    pub code: String,
    /// Human-readable message.
    pub message: String,
    /// Optional property or parameter the detail points at.
    pub target: Option<String>,
}

/// ARM error: HTTP status + code + message (+ optional details/target); renders as the ARM error envelope.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{status} {code}: {message}")]
pub struct ArmError {
    /// HTTP status the error is returned with.
    pub status: StatusCode,
    /// PascalCase ARM error code (`ResourceNotFound`, `InvalidResourceReference`, ...).
    pub code: String,
    /// Message text; copies the real RP wording where the reference documents it.
    pub message: String,
    /// Optional parts (boxed to keep `Result<_, ArmError>` small).
    pub extra: Box<ErrorExtra>,
}

/// Optional parts of an [`ArmError`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ErrorExtra {
    /// Optional `target` (e.g. `instanceId`).
    pub target: Option<String>,
    /// `details` array; `Some(vec![])` renders `"details":[]` like NRP does, `None` omits it like ARM/CRP.
    pub details: Option<Vec<ErrorDetail>>,
    /// Extra response headers (e.g. `x-ms-failure-cause: gateway` on front-door 404s).
    pub headers: Vec<(&'static str, String)>,
}

impl ArmError {
    /// Builds an error without target/details (ARM front-door and CRP style).
    pub fn new(status: StatusCode, code: &str, message: impl Into<String>) -> Self {
        Self {
            status,
            code: code.to_string(),
            message: message.into(),
            extra: Box::default(),
        }
    }

    /// Builds an NRP-style error, which always carries `"details": []`.
    pub fn nrp(status: StatusCode, code: &str, message: impl Into<String>) -> Self {
        Self::new(status, code, message).with_details(Vec::new())
    }

    /// 400 Bad Request shorthand, NRP style.
    pub fn bad_request(code: &str, message: impl Into<String>) -> Self {
        Self::nrp(StatusCode::BAD_REQUEST, code, message)
    }

    /// 400 `InvalidParameter`-style error with a `target` (CRP style).
    pub fn invalid_parameter(message: impl Into<String>, target: &str) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "InvalidParameter", message).with_target(target)
    }

    /// Sets `target`.
    pub fn with_target(mut self, target: &str) -> Self {
        self.extra.target = Some(target.to_string());
        self
    }

    /// Sets `details`.
    pub fn with_details(mut self, details: Vec<ErrorDetail>) -> Self {
        self.extra.details = Some(details);
        self
    }

    /// Adds a response header.
    pub fn with_header(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.extra.headers.push((name, value.into()));
        self
    }

    /// The `{"code","message",...}` object (without the outer `error` key); also used in LRO status bodies.
    pub fn error_object(&self) -> Value {
        let mut obj = json!({ "code": self.code, "message": self.message });
        if let Some(target) = &self.extra.target {
            obj["target"] = json!(target);
        }
        if let Some(details) = &self.extra.details {
            obj["details"] = Value::Array(
                details
                    .iter()
                    .map(|d| {
                        let mut v = json!({ "code": d.code, "message": d.message });
                        if let Some(t) = &d.target {
                            v["target"] = json!(t);
                        }
                        v
                    })
                    .collect(),
            );
        }
        obj
    }

    /// The full envelope `{"error":{...}}`.
    pub fn envelope(&self) -> Value {
        json!({ "error": self.error_object() })
    }
}

impl IntoResponse for ArmError {
    fn into_response(self) -> Response {
        let body = serde_json::to_vec(&self.envelope()).unwrap_or_default();
        let mut builder = Response::builder()
            .status(self.status)
            .header(
                http::header::CONTENT_TYPE,
                "application/json; charset=utf-8",
            )
            .header("x-ms-error-code", self.code.as_str());
        for (name, value) in &self.extra.headers {
            builder = builder.header(*name, value.as_str());
        }
        builder
            .body(axum::body::Body::from(body))
            .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nrp_errors_carry_empty_details_and_arm_errors_do_not() {
        let nrp = ArmError::bad_request("X", "m").envelope();
        assert_eq!(
            nrp,
            json!({"error":{"code":"X","message":"m","details":[]}})
        );
        let arm = ArmError::new(StatusCode::NOT_FOUND, "Y", "n").envelope();
        assert_eq!(arm, json!({"error":{"code":"Y","message":"n"}}));
    }
}
