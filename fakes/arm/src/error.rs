//! The ARM error envelope (`{"error":{code,message,target,details}}`) and the status it travels with.

use axum::response::{IntoResponse, Response};
use http::StatusCode;
use serde_json::{Value, json};

use crate::error_codes::{self, ErrorCode};

/// One entry of the envelope's `details` array (same shape as the top-level error, never nested further here).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorDetail {
    /// Table entry of the detail's code (its status is the enclosing error's).
    pub code: ErrorCode,
    /// Human-readable message.
    pub message: String,
    /// Optional property or parameter the detail points at.
    pub target: Option<String>,
}

/// The code an [`ArmError`] carries: a table entry, or one a test injected.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Code {
    /// A fact from [`crate::error_codes`].
    Table(ErrorCode),
    /// A code chosen by a fault rule or [`crate::ForceLroFailure`].
    Injected(String),
}

/// ARM error: HTTP status + code + message (+ optional details/target); renders as the ARM error envelope.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{status} {}: {message}", self.code())]
pub struct ArmError {
    status: StatusCode,
    code: Code,
    message: String,
    extra: Box<ErrorExtra>,
}

/// Optional parts of an [`ArmError`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct ErrorExtra {
    target: Option<String>,
    /// `Some(vec![])` renders `"details":[]` like NRP does, `None` omits it like ARM/CRP.
    details: Option<Vec<ErrorDetail>>,
    headers: Vec<(&'static str, String)>,
}

impl ArmError {
    /// Builds an error from a table entry, with its status, without target/details (ARM front-door and CRP style).
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            status: code.status(),
            code: Code::Table(code),
            message: message.into(),
            extra: Box::default(),
        }
    }

    /// Builds an NRP-style error from a table entry, which always carries `"details": []`.
    pub fn nrp(code: ErrorCode, message: impl Into<String>) -> Self {
        Self::new(code, message).with_details(Vec::new())
    }

    /// An error whose status and code a test chose (fault rules, [`crate::ForceLroFailure`]); never for a code the
    /// fake decides on, which must come from [`crate::error_codes`].
    pub fn injected(
        status: StatusCode,
        code: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            status,
            code: Code::Injected(code.into()),
            message: message.into(),
            extra: Box::default(),
        }
    }

    /// 400 `InvalidParameter` with a `target` (CRP style).
    pub fn invalid_parameter(message: impl Into<String>, target: &str) -> Self {
        Self::new(error_codes::INVALID_PARAMETER, message).with_target(target)
    }

    /// HTTP status the error is answered with.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// PascalCase ARM error code (`ResourceNotFound`, `InvalidResourceReference`, ...).
    pub fn code(&self) -> &str {
        match &self.code {
            Code::Table(entry) => entry.code(),
            Code::Injected(code) => code,
        }
    }

    /// The table entry of the code, `None` for an injected one.
    pub fn entry(&self) -> Option<ErrorCode> {
        match &self.code {
            Code::Table(entry) => Some(*entry),
            Code::Injected(_) => None,
        }
    }

    /// Message text; copies the real RP wording where the table marks it verified.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The `details` entries, if the envelope has a `details` array.
    pub fn details(&self) -> Option<&[ErrorDetail]> {
        self.extra.details.as_deref()
    }

    /// Extra response headers (e.g. `www-authenticate`, `retry-after`).
    pub fn headers(&self) -> &[(&'static str, String)] {
        &self.extra.headers
    }

    /// The failed operation's error as its `Location` poll answers it: with the error's own status when that is
    /// an error status, else (an entry or injection marked 200, which only lives in operation bodies) with 500.
    pub(crate) fn into_location_poll_answer(mut self) -> Self {
        if !self.status.is_client_error() && !self.status.is_server_error() {
            self.status = StatusCode::INTERNAL_SERVER_ERROR;
        }
        self
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
        let mut obj = json!({ "code": self.code(), "message": self.message });
        if let Some(target) = &self.extra.target {
            obj["target"] = json!(target);
        }
        if let Some(details) = &self.extra.details {
            obj["details"] = Value::Array(
                details
                    .iter()
                    .map(|d| {
                        let mut v = json!({ "code": d.code.code(), "message": d.message });
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
            .header("x-ms-error-code", self.code());
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
        let nrp = ArmError::nrp(error_codes::SUBNET_IS_FULL, "m").envelope();
        assert_eq!(
            nrp,
            json!({"error":{"code":"SubnetIsFull","message":"m","details":[]}})
        );
        let arm = ArmError::new(error_codes::NOT_FOUND, "n");
        assert_eq!(arm.status(), StatusCode::NOT_FOUND);
        assert_eq!(
            arm.envelope(),
            json!({"error":{"code":"NotFound","message":"n"}})
        );
    }
}
