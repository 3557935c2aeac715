//! What an injected fault answers, per surface: ARM's error envelope (`SubscriptionRequestsThrottled`,
//! `InternalServerError`, NRP's 412 body), IMDS's `{"error"}` / OAuth-style bodies, and Entra ID's
//! AADSTS bodies. A reset answers nothing: the connection is cut.

use axum::response::{IntoResponse, Response};
use fake_arm::error_codes;
use fake_arm::{ArmError, ErrorDetail};
use fake_tls::AbortConnection;
use http::{HeaderValue, StatusCode, header};
use serde_json::json;

use super::rule::FaultKind;
use crate::entra::AadError;
use crate::journal::Surface;

/// The response standing in for the service when `fault` is terminal for a request to `path`.
pub(super) fn render(surface: Surface, fault: &FaultKind, path: &str) -> Response {
    if matches!(fault, FaultKind::Reset) {
        let mut response = StatusCode::INTERNAL_SERVER_ERROR.into_response();
        response.extensions_mut().insert(AbortConnection);
        return response;
    }
    let (mut response, retry_after) = match surface {
        Surface::Imds => imds(fault, path),
        Surface::Entra => entra(fault),
        _ => arm(fault, path),
    };
    if let Some(secs) = retry_after
        && let Ok(value) = HeaderValue::try_from(secs.to_string())
    {
        response.headers_mut().insert(header::RETRY_AFTER, value);
    }
    response
}

/// Status and `Retry-After` of a throttle or status fault (others are not terminal answers).
fn status_of(fault: &FaultKind) -> (StatusCode, Option<u64>) {
    match fault {
        FaultKind::Throttle { retry_after_secs } => {
            (StatusCode::TOO_MANY_REQUESTS, Some(*retry_after_secs))
        }
        FaultKind::Status {
            status,
            retry_after_secs,
            ..
        } => (
            StatusCode::from_u16(*status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            *retry_after_secs,
        ),
        FaultKind::PreconditionFailed => (StatusCode::PRECONDITION_FAILED, None),
        _ => (StatusCode::INTERNAL_SERVER_ERROR, None),
    }
}

fn code_of(fault: &FaultKind) -> Option<&str> {
    match fault {
        FaultKind::Status { code, .. } => code.as_deref(),
        _ => None,
    }
}

fn arm(fault: &FaultKind, path: &str) -> (Response, Option<u64>) {
    let (status, retry_after) = status_of(fault);
    let response = match fault {
        FaultKind::Throttle { retry_after_secs } => ArmError::new(
            error_codes::SUBSCRIPTION_REQUESTS_THROTTLED,
            format!(
                "Number of requests exceeded the limit. Please try again after '{retry_after_secs}' seconds after additional tokens are available. Refer to https://aka.ms/arm-throttling"
            ),
        )
        .into_response(),
        FaultKind::PreconditionFailed => ArmError::nrp(error_codes::PRECONDITION_FAILED, "Precondition failed.")
            .with_details(vec![ErrorDetail {
                code: error_codes::PRECONDITION_FAILED_ETAG_MISMATCH,
                message: format!(
                    "Etag provided in if-match header does not match etag of resource {path} in NRP data store (injected fault)."
                ),
                target: None,
            }])
            .into_response(),
        _ => {
            let (entry, message) = match status.as_u16() {
                500 => (error_codes::INTERNAL_SERVER_ERROR, "An error has occurred. Please try again later."),
                502 => (error_codes::BAD_GATEWAY, "Error occurred in resource provider infrastructure services."),
                503 => (error_codes::SERVICE_UNAVAILABLE, "The service is unavailable. Please try again later."),
                504 => (error_codes::GATEWAY_TIMEOUT, "The gateway did not receive a response from the resource provider within the specified time period."),
                _ => (error_codes::INJECTED_FAULT, "The request failed (injected fault)."),
            };
            match code_of(fault) {
                Some(code) => ArmError::injected(status, code, message),
                None if entry.status() == status => ArmError::new(entry, message),
                // The rule chose a status with no transient code of its own.
                None => ArmError::injected(status, entry.code(), message),
            }
            .into_response()
        }
    };
    (response, retry_after)
}

/// IMDS answers `{"error": "<text>"}` for metadata and `{"error", "error_description"}` for the
/// managed-identity token endpoint.
fn imds(fault: &FaultKind, path: &str) -> (Response, Option<u64>) {
    let (status, retry_after) = status_of(fault);
    let oauth = path.to_ascii_lowercase().contains("/metadata/identity/");
    let text = match status.as_u16() {
        429 => "Too many requests",
        410 => "Gone. Retry the request",
        500 => "Internal server error",
        503 => "Service unavailable",
        _ => "Request failed (injected fault)",
    };
    let body = if oauth {
        let default = match status.as_u16() {
            429 => "too_many_requests",
            503 => "service_unavailable",
            404 => "not_found",
            403 => "forbidden",
            400 => "bad_request",
            500..=599 => "server_error",
            _ => "invalid_request",
        };
        json!({ "error": code_of(fault).unwrap_or(default), "error_description": text })
    } else {
        json!({ "error": code_of(fault).unwrap_or(text) })
    };
    let response = (
        status,
        [(header::CONTENT_TYPE, "application/json; charset=utf-8")],
        body.to_string(),
    )
        .into_response();
    (response, retry_after)
}

/// Entra ID answers with an AADSTS body: 90055 (`TenantThrottlingError`) for 429; 50000
/// (`TokenIssuanceError`, from the public error-code list, not verified against recorded traffic)
/// with `temporarily_unavailable` / `server_error` for 5xx.
fn entra(fault: &FaultKind) -> (Response, Option<u64>) {
    let (status, retry_after) = status_of(fault);
    let error = match status.as_u16() {
        429 => AadError::new(
            status,
            "temporarily_unavailable",
            90055,
            "There are too many incoming requests. Please try again later (injected fault).",
        ),
        503 => AadError::new(
            status,
            "temporarily_unavailable",
            50000,
            "There was an error issuing a token: the service is temporarily unavailable (injected fault).",
        ),
        500..=599 => AadError::new(
            status,
            "server_error",
            50000,
            "There was an error issuing a token or an issue with our sign-in service (injected fault).",
        ),
        _ => AadError::new(
            status,
            "invalid_request",
            50000,
            "The request failed (injected fault).",
        ),
    };
    (error.render(None), retry_after)
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn body(response: Response) -> serde_json::Value {
        let bytes = axum::body::to_bytes(response.into_body(), 1 << 20)
            .await
            .unwrap();
        serde_json::from_slice(&bytes).unwrap()
    }

    fn status(status: u16, retry: Option<u64>) -> FaultKind {
        FaultKind::Status {
            status,
            code: None,
            retry_after_secs: retry,
        }
    }

    #[tokio::test]
    async fn imds_answers_in_the_style_of_the_category() {
        let r = render(
            Surface::Imds,
            &status(503, Some(2)),
            "/imds/n/metadata/instance",
        );
        assert_eq!(r.status(), 503);
        assert_eq!(r.headers()["retry-after"], "2");
        assert_eq!(body(r).await, json!({"error": "Service unavailable"}));
        let r = render(
            Surface::Imds,
            &FaultKind::Throttle {
                retry_after_secs: 4,
            },
            "/imds/n/metadata/identity/oauth2/token",
        );
        assert_eq!(r.status(), 429);
        assert_eq!(
            body(r).await,
            json!({"error": "too_many_requests", "error_description": "Too many requests"})
        );
    }

    #[tokio::test]
    async fn entra_throttling_is_aadsts_90055_with_retry_after() {
        let r = render(
            Surface::Entra,
            &FaultKind::Throttle {
                retry_after_secs: 9,
            },
            "/t/oauth2/v2.0/token",
        );
        assert_eq!(r.status(), 429);
        assert_eq!(r.headers()["retry-after"], "9");
        let b = body(r).await;
        assert_eq!(b["error"], "temporarily_unavailable");
        assert_eq!(b["error_codes"], json!([90055]));
        let r = render(Surface::Entra, &status(500, None), "/t/oauth2/v2.0/token");
        assert_eq!(body(r).await["error"], "server_error");
    }

    #[tokio::test]
    async fn arm_keeps_its_envelope_and_resets_abort() {
        let r = render(Surface::Arm, &status(503, Some(1)), "/subscriptions/s");
        assert_eq!(r.headers()["retry-after"], "1");
        assert_eq!(body(r).await["error"]["code"], "ServiceUnavailable");
        let reset = render(
            Surface::Imds,
            &FaultKind::Reset,
            "/imds/n/metadata/instance",
        );
        assert!(reset.extensions().get::<AbortConnection>().is_some());
    }
}
