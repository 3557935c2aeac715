//! `/admin/throttle`: read (GET) or replace (PUT, refilling every bucket and window) the ARM
//! request limits and the Compute RP policies (`compute`; policies left out keep their default).

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::response::{IntoResponse, Response};

use super::AdminState;
use super::error::{AdminError, parse_body};
use crate::throttle::ThrottleConfig;

pub(super) async fn get(State(state): State<AdminState>) -> Response {
    Json(state.throttle.config()).into_response()
}

pub(super) async fn put(
    State(state): State<AdminState>,
    body: Bytes,
) -> Result<Response, AdminError> {
    let config: ThrottleConfig = parse_body(&body, "PUT /admin/throttle")?;
    for (name, spec) in [
        ("reads", config.reads),
        ("writes", config.writes),
        ("deletes", config.deletes),
    ] {
        if spec.size == 0 || !(spec.refill_per_sec.is_finite() && spec.refill_per_sec >= 0.0) {
            return Err(AdminError::bad_request(
                "InvalidThrottle",
                format!(
                    "PUT /admin/throttle: field '{name}': size must be >= 1 and refillPerSec a non-negative number"
                ),
            ));
        }
    }
    if let Err(e) = config.compute.validate() {
        return Err(AdminError::bad_request(
            "InvalidThrottle",
            format!("PUT /admin/throttle: {e}"),
        ));
    }
    if config.global_factor == 0 {
        return Err(AdminError::bad_request(
            "InvalidThrottle",
            "PUT /admin/throttle: field 'globalFactor' must be >= 1",
        ));
    }
    state.throttle.reconfigure(config.clone());
    Ok(Json(config).into_response())
}
