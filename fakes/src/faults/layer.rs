//! Middleware applying the fault schedule to ARM requests: delays, forced LRO failures (handed to
//! fake-arm as a request extension) and answers in place of ARM (429, 5xx, 412, connection reset).

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use fake_arm::{ArmError, ErrorDetail, ForceLroFailure};
use fake_tls::AbortConnection;
use http::StatusCode;

use super::engine::FaultEngine;
use super::rule::FaultKind;

/// Response extension listing the faults applied to a request (`id:label`), read by the journal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FaultInjected(pub Vec<String>);

/// Middleware; runs inside auth and throttling (faults model the resource provider, not the front door).
pub async fn layer(
    State(engine): State<Arc<FaultEngine>>,
    mut request: Request<Body>,
    next: Next,
) -> Response {
    let Some(decision) = engine.decide(request.method(), request.uri().path()) else {
        return next.run(request).await;
    };
    if !decision.latency.is_zero() {
        tokio::time::sleep(decision.latency).await;
    }
    let mut response = match &decision.terminal {
        Some(fault) => render(fault, request.uri().path()),
        None => {
            if let Some((code, message)) = &decision.lro_failure {
                request.extensions_mut().insert(ForceLroFailure {
                    code: code.clone(),
                    message: message.clone(),
                });
            }
            next.run(request).await
        }
    };
    response
        .extensions_mut()
        .insert(FaultInjected(decision.applied));
    response
}

fn render(fault: &FaultKind, path: &str) -> Response {
    match fault {
        FaultKind::Throttle { retry_after_secs } => ArmError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "SubscriptionRequestsThrottled",
            format!(
                "Number of requests exceeded the limit. Please try again after '{retry_after_secs}' seconds after additional tokens are available. Refer to https://aka.ms/arm-throttling"
            ),
        )
        .with_header("retry-after", retry_after_secs.to_string())
        .into_response(),
        FaultKind::Status { status, code, retry_after_secs } => {
            let status = StatusCode::from_u16(*status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            let (default_code, message) = match status.as_u16() {
                500 => ("InternalServerError", "An error has occurred. Please try again later."),
                502 => ("BadGateway", "Error occurred in resource provider infrastructure services."),
                503 => ("ServiceUnavailable", "The service is unavailable. Please try again later."),
                504 => ("GatewayTimeout", "The gateway did not receive a response from the resource provider within the specified time period."),
                _ => ("InjectedFault", "The request failed (injected fault)."),
            };
            let mut error = ArmError::new(status, code.as_deref().unwrap_or(default_code), message);
            if let Some(secs) = retry_after_secs {
                error = error.with_header("retry-after", secs.to_string());
            }
            error.into_response()
        }
        FaultKind::PreconditionFailed => ArmError::nrp(StatusCode::PRECONDITION_FAILED, "PreconditionFailed", "Precondition failed.")
            .with_details(vec![ErrorDetail {
                code: "PreconditionFailedEtagMismatch".into(),
                message: format!(
                    "Etag provided in if-match header does not match etag of resource {path} in NRP data store (injected fault)."
                ),
                target: None,
            }])
            .into_response(),
        FaultKind::Reset => {
            let mut response = StatusCode::INTERNAL_SERVER_ERROR.into_response();
            response.extensions_mut().insert(AbortConnection);
            response
        }
        FaultKind::Latency { .. } | FaultKind::LroFailed { .. } => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}
