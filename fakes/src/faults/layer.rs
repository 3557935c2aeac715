//! Middleware applying the fault schedule to one surface's requests: delays, forced LRO failures
//! (ARM only; handed to fake-arm as a request extension) and answers in place of the service
//! (429, 5xx, 412, connection reset) in the style of that surface (see [`super::answers`]).

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use fake_arm::ForceLroFailure;

use super::answers;
use super::engine::FaultEngine;
use crate::journal::Surface;

/// Response extension listing the faults applied to a request (`id:label`), read by the journal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FaultInjected(pub Vec<String>);

/// What the layer needs: the shared schedule and the surface it is mounted on.
#[derive(Clone, Debug)]
pub struct FaultLayer {
    /// Shared fault schedule.
    pub engine: Arc<FaultEngine>,
    /// Surface of the wrapped router (selects the rules and the answer style).
    pub surface: Surface,
}

/// Middleware; for ARM it runs inside auth and throttling (faults model the resource provider,
/// not the front door); for IMDS and Entra ID it wraps the service directly.
pub async fn layer(
    State(ctx): State<FaultLayer>,
    mut request: Request<Body>,
    next: Next,
) -> Response {
    let Some(decision) = ctx
        .engine
        .decide(ctx.surface, request.method(), request.uri().path())
    else {
        return next.run(request).await;
    };
    if !decision.latency.is_zero() {
        tokio::time::sleep(decision.latency).await;
    }
    let mut response = match &decision.terminal {
        Some(fault) => answers::render(ctx.surface, fault, request.uri().path()),
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
