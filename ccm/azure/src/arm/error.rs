//! [`ArmError`]: every failure of an ARM call, typed from ARM's error envelope
//! (`{"error":{code,message,target,details,additionalInfo}}`, arm-imds-aad.md §1.9) and classified
//! so call sites never match strings.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::throttle::OpKind;

/// One node of ARM's error envelope; `details` nest the same shape.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ErrorDetail {
    /// PascalCase error code (`ResourceNotFound`, `PreconditionFailed`, ...).
    #[serde(default)]
    pub code: String,
    /// Human-readable message.
    #[serde(default)]
    pub message: String,
    /// The offending property or policy, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// Nested details.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<ErrorDetail>,
    /// `additionalInfo` entries, kept as JSON.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub additional_info: Vec<serde_json::Value>,
}

#[derive(Deserialize)]
struct Envelope {
    error: Option<ErrorDetail>,
}

impl ErrorDetail {
    /// Parses an error body: the envelope, a bare detail, or (for anything else) a detail whose
    /// message is the start of the body text.
    pub fn from_body(body: &[u8]) -> ErrorDetail {
        if let Ok(Envelope { error: Some(error) }) = serde_json::from_slice::<Envelope>(body) {
            return error;
        }
        if let Ok(detail) = serde_json::from_slice::<ErrorDetail>(body)
            && !detail.code.is_empty()
        {
            return detail;
        }
        let text = String::from_utf8_lossy(body);
        ErrorDetail {
            message: text.trim().chars().take(512).collect(),
            ..ErrorDetail::default()
        }
    }

    /// True when this detail or a nested one has `code` (ASCII case-insensitive).
    pub fn has_code(&self, code: &str) -> bool {
        self.code.eq_ignore_ascii_case(code) || self.details.iter().any(|d| d.has_code(code))
    }
}

/// An HTTP error answer from ARM, with everything needed to act on and to report it.
#[derive(Debug, Clone, PartialEq)]
pub struct ResponseError {
    /// HTTP method of the call.
    pub method: String,
    /// Path of the call (no query, no host).
    pub path: String,
    /// HTTP status.
    pub status: u16,
    /// The envelope's error.
    pub error: ErrorDetail,
    /// `x-ms-request-id`.
    pub request_id: Option<String>,
    /// `x-ms-correlation-request-id`.
    pub correlation_id: Option<String>,
    /// `Retry-After` (or `retry-after-ms`), when sent.
    pub retry_after: Option<Duration>,
}

impl ResponseError {
    /// True when ARM throttled us: a 429 other than NRP's `RetryableError` (which means "a
    /// dependency is busy"), or the Compute RP's `OperationNotAllowed` with a `TooManyRequests`
    /// detail whatever the status.
    pub fn is_throttling(&self) -> bool {
        let crp = self.error.code.eq_ignore_ascii_case("OperationNotAllowed")
            && self.error.has_code("TooManyRequests");
        crp || (self.status == 429 && !self.error.code.eq_ignore_ascii_case("RetryableError"))
    }

    /// True for ARM's subscription-wide bucket (`SubscriptionRequestsThrottled`).
    pub fn is_subscription_throttling(&self) -> bool {
        self.status == 429
            && self
                .error
                .code
                .eq_ignore_ascii_case("SubscriptionRequestsThrottled")
    }
}

impl std::fmt::Display for ResponseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "ARM {} {}: HTTP {} {}: {}",
            self.method, self.path, self.status, self.error.code, self.error.message
        )?;
        if let Some(target) = &self.error.target {
            write!(f, " (target {target})")?;
        }
        for detail in &self.error.details {
            write!(f, "; {}: {}", detail.code, detail.message)?;
        }
        if let Some(id) = &self.request_id {
            write!(f, " (x-ms-request-id {id})")?;
        }
        Ok(())
    }
}

/// Every way an ARM call can fail.
#[derive(Debug, thiserror::Error)]
pub enum ArmError {
    /// ARM answered with an error status.
    #[error("{0}")]
    Response(Box<ResponseError>),
    /// Not sent: ARM throttled this client and its gate is closed for `remaining`.
    #[error("ARM {op} throttle gate of the {client} client is closed for {}ms more; request not sent", remaining.as_millis())]
    GateClosed {
        /// The client.
        client: &'static str,
        /// Read or write gate.
        op: OpKind,
        /// Time until it opens.
        remaining: Duration,
    },
    /// Not sent: the client-side rate limiter would have made the call wait longer than allowed.
    #[error("client rate limit of the {client} client: a token is {}ms away, more than the {}ms allowed", wait.as_millis(), max.as_millis())]
    RateLimited {
        /// The client.
        client: &'static str,
        /// Wait the limiter asked for.
        wait: Duration,
        /// The bound.
        max: Duration,
    },
    /// No HTTP answer (connection refused or reset, TLS failure, timeout).
    #[error("ARM {method} {path}: no answer: {source}")]
    Transport {
        /// HTTP method.
        method: String,
        /// Path of the call.
        path: String,
        /// The transport error.
        #[source]
        source: reqwest::Error,
    },
    /// A long-running operation ended `Failed` or `Canceled`.
    #[error("ARM operation for {method} {path} ended {status}: {}: {}", error.code, error.message)]
    OperationFailed {
        /// HTTP method of the call that started it.
        method: String,
        /// Path of the call that started it.
        path: String,
        /// `Failed` or `Canceled`.
        status: String,
        /// The operation's error.
        error: Box<ErrorDetail>,
    },
    /// A long-running operation did not finish within the bound.
    #[error("ARM operation for {method} {path} still running after {}s", elapsed.as_secs())]
    OperationTimeout {
        /// HTTP method of the call that started it.
        method: String,
        /// Path of the call that started it.
        path: String,
        /// Time spent polling.
        elapsed: Duration,
    },
    /// A list had more pages than the cap.
    #[error("ARM list {path}: more than {cap} pages")]
    TooManyPages {
        /// Path of the list.
        path: String,
        /// The cap.
        cap: usize,
    },
    /// A success body that does not match the expected model.
    #[error("ARM {method} {path}: unexpected body: {source}")]
    Decode {
        /// HTTP method.
        method: String,
        /// Path of the call.
        path: String,
        /// The JSON error.
        #[source]
        source: serde_json::Error,
    },
    /// The credential gave no token.
    #[error("no ARM token: {0}")]
    Credential(#[source] azure_core::Error),
    /// A URL we refuse to send a token to, or that does not parse.
    #[error("invalid ARM URL {url}: {reason}")]
    InvalidUrl {
        /// The URL (never carries a secret).
        url: String,
        /// Why.
        reason: String,
    },
}

impl ArmError {
    /// The ARM answer, if the error is one.
    pub fn response(&self) -> Option<&ResponseError> {
        match self {
            ArmError::Response(r) => Some(r),
            _ => None,
        }
    }

    /// HTTP status, when ARM answered.
    pub fn status(&self) -> Option<u16> {
        self.response().map(|r| r.status)
    }

    /// ARM error code (of the response or of the failed operation).
    pub fn code(&self) -> Option<&str> {
        match self {
            ArmError::Response(r) => Some(&r.error.code),
            ArmError::OperationFailed { error, .. } => Some(&error.code),
            _ => None,
        }
    }

    /// True when this error or a nested detail carries `code` (case-insensitive).
    pub fn has_code(&self, code: &str) -> bool {
        match self {
            ArmError::Response(r) => r.error.has_code(code),
            ArmError::OperationFailed { error, .. } => error.has_code(code),
            _ => false,
        }
    }

    /// `x-ms-request-id` of the answer.
    pub fn request_id(&self) -> Option<&str> {
        self.response().and_then(|r| r.request_id.as_deref())
    }

    /// Throttled by ARM (429 / CRP `TooManyRequests`) or refused by our closed gate.
    pub fn is_throttled(&self) -> bool {
        match self {
            ArmError::GateClosed { .. } => true,
            ArmError::Response(r) => r.is_throttling(),
            _ => false,
        }
    }

    /// Refused by our own rate limiter (nothing sent).
    pub fn is_rate_limited(&self) -> bool {
        matches!(self, ArmError::RateLimited { .. })
    }

    /// 404: the resource (or its group or parent) does not exist.
    pub fn is_not_found(&self) -> bool {
        self.status() == Some(404)
    }

    /// 412: the `If-Match` ETag is stale; the cache entry must be dropped and the call redone.
    pub fn is_precondition_failed(&self) -> bool {
        self.status() == Some(412)
    }

    /// 409: another operation conflicts.
    pub fn is_conflict(&self) -> bool {
        self.status() == Some(409)
    }

    /// 401/403: the credential or its permissions are wrong.
    pub fn is_auth(&self) -> bool {
        matches!(self.status(), Some(401 | 403)) || matches!(self, ArmError::Credential(_))
    }

    /// Canceled because a newer write to the same resource superseded it (NRP).
    pub fn is_superseded(&self) -> bool {
        self.has_code("CanceledAndSupersededDueToAnotherOperation")
    }

    /// True when the same call may succeed later without any change on our side.
    pub fn is_retryable(&self) -> bool {
        match self {
            ArmError::GateClosed { .. }
            | ArmError::RateLimited { .. }
            | ArmError::Transport { .. }
            | ArmError::OperationTimeout { .. }
            | ArmError::Credential(_) => true,
            ArmError::Response(r) => {
                matches!(r.status, 408 | 429 | 500 | 502 | 503 | 504)
                    || (r.status == 409 && r.error.has_code("AnotherOperationInProgress"))
            }
            ArmError::OperationFailed { error, .. } => {
                error.has_code("CanceledAndSupersededDueToAnotherOperation")
                    || error.has_code("InternalServerError")
                    || error.has_code("RetryableError")
            }
            ArmError::TooManyPages { .. }
            | ArmError::Decode { .. }
            | ArmError::InvalidUrl { .. } => false,
        }
    }

    /// True for the transient answers the transport retries itself: 408, 500, 502, 503, 504 and
    /// no answer at all (never 429).
    pub fn is_transient(&self) -> bool {
        match self {
            ArmError::Transport { source, .. } => !source.is_builder() && !source.is_decode(),
            ArmError::Response(r) => matches!(r.status, 408 | 500 | 502 | 503 | 504),
            _ => false,
        }
    }

    /// The delay ARM (or our gate) asked for before trying again.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            ArmError::GateClosed { remaining, .. } => Some(*remaining),
            ArmError::RateLimited { wait, .. } => Some(*wait),
            ArmError::Response(r) => r.retry_after,
            _ => None,
        }
    }
}

impl From<ArmError> for ccm_cloud::CloudError<ArmError> {
    /// Throttling becomes `Throttled` (with its delay, or 0 when ARM sent none); everything else
    /// `Provider` with our verdict on retrying. A 404 stays `Provider`: only the instance lookups
    /// know that a missing resource means a missing instance.
    fn from(error: ArmError) -> Self {
        use ccm_cloud::{CloudError, Retry};
        if error.is_throttled() {
            return CloudError::Throttled {
                retry_after: error.retry_after().unwrap_or_default(),
                source: error,
            };
        }
        let retry = match (error.is_retryable(), error.retry_after()) {
            (false, _) => Retry::Never,
            (true, Some(delay)) => Retry::After(delay),
            (true, None) => Retry::Backoff,
        };
        CloudError::Provider {
            retry,
            source: error,
        }
    }
}

#[cfg(test)]
mod tests;
