//! Middleware charging every authenticated ARM request to its buckets: admitted responses carry
//! the remaining-count headers, refused ones get 429 with `Retry-After` and ARM's error body. A
//! second middleware does the same for the Compute RP's policies on `Microsoft.Compute` calls.

use fake_arm::error_codes;
use std::sync::Arc;
use std::time::Instant;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use fake_arm::{ArmError, ErrorDetail};
use http::{HeaderName, HeaderValue};

use super::arm_limits::{Admission, ArmThrottle, OpClass, Scope};
use super::compute_windows::CRP_THROTTLED_MESSAGE;
use crate::arm_auth::Principal;

/// Response extension marking a request refused by the throttle (read by the journal).
#[derive(Debug, Clone, Copy)]
pub struct Throttled;

/// Middleware; must run inside the bearer check so the [`Principal`] is known.
pub async fn layer(
    State(throttle): State<Arc<ArmThrottle>>,
    request: Request<Body>,
    next: Next,
) -> Response {
    if !throttle.enabled() {
        return next.run(request).await;
    }
    let (tenant, actor) = request
        .extensions()
        .get::<Principal>()
        .map(|p| (p.0.tenant_id.clone(), p.0.object_id.clone()))
        .unwrap_or_default();
    let scope = Scope::of_path(request.uri().path(), &tenant);
    let admission = throttle.admit(
        &scope,
        &actor,
        OpClass::of(request.method()),
        Instant::now(),
    );
    let mut response = match &admission {
        Admission::Throttled {
            retry_after,
            code,
            message,
            ..
        } => {
            let mut response = ArmError::new(*code, message.clone())
                .with_header("retry-after", retry_after.to_string())
                .into_response();
            response.extensions_mut().insert(Throttled);
            response
        }
        Admission::Unlimited | Admission::Granted { .. } => next.run(request).await,
    };
    let headers = response.headers_mut();
    for (name, value) in admission.headers() {
        if let (Ok(name), Ok(value)) = (HeaderName::try_from(name), HeaderValue::try_from(value)) {
            headers.insert(name, value);
        }
    }
    response
}

/// Middleware for the Compute RP's policies; runs inside [`layer`] (CRP only sees calls the front
/// door admitted). Metered responses carry `x-ms-ratelimit-remaining-resource` and
/// `x-ms-request-charge`; a call over a policy gets 429 `OperationNotAllowed` with one
/// `TooManyRequests` detail per exceeded policy and `Retry-After`.
pub async fn compute_layer(
    State(throttle): State<Arc<ArmThrottle>>,
    request: Request<Body>,
    next: Next,
) -> Response {
    let Some(admission) =
        throttle.admit_compute(request.method(), request.uri().path(), Instant::now())
    else {
        return next.run(request).await;
    };
    let mut response = match admission.retry_after() {
        Some(retry_after) => {
            let details = admission
                .exceeded()
                .map(|c| ErrorDetail {
                    code: error_codes::TOO_MANY_REQUESTS,
                    message: c.detail_message(),
                    target: Some(c.policy.to_string()),
                })
                .collect();
            let mut response = ArmError::new(
                error_codes::OPERATION_NOT_ALLOWED_THROTTLED,
                CRP_THROTTLED_MESSAGE,
            )
            .with_details(details)
            .with_header("retry-after", retry_after.to_string())
            .into_response();
            response.extensions_mut().insert(Throttled);
            response
        }
        None => next.run(request).await,
    };
    if let Ok(value) = HeaderValue::try_from(admission.header()) {
        let headers = response.headers_mut();
        headers.insert("x-ms-ratelimit-remaining-resource", value);
        headers.insert("x-ms-request-charge", HeaderValue::from_static("1"));
    }
    response
}
