//! Middleware charging every authenticated ARM request to its buckets: admitted responses carry
//! the remaining-count headers, refused ones get 429 with `Retry-After` and ARM's error body.

use std::sync::Arc;
use std::time::Instant;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use fake_arm::ArmError;
use http::{HeaderName, HeaderValue, StatusCode};

use super::arm_limits::{Admission, ArmThrottle, OpClass, Scope};
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
            let mut response = ArmError::new(StatusCode::TOO_MANY_REQUESTS, code, message.clone())
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
