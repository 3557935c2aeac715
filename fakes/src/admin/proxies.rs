//! `/admin/proxies`: per-host proxies for processes that read IMDS only at `169.254.169.254` (see
//! [`crate::proxy::hosts`]). `POST {"host": "<name>"}` starts one (201; 200 with the same proxy when
//! it runs already) and answers `{"host", "url"}`; `GET` lists `{"proxies": [{"host", "url"}]}`;
//! `DELETE /admin/proxies/{host}` stops one (204; 404 when none runs).

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use http::StatusCode;
use serde::Deserialize;
use serde_json::json;

use super::AdminState;
use super::error::AdminError;
use crate::proxy::HostProxyError;
use crate::proxy::hosts::ACCEPTED_HOSTS;

const ROUTE: &str = "POST /admin/proxies";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StartBody {
    host: String,
}

fn accepted_body() -> String {
    format!("accepted: {{\"host\": <{ACCEPTED_HOSTS}>}}")
}

pub(super) async fn start(
    State(state): State<AdminState>,
    body: Bytes,
) -> Result<Response, AdminError> {
    let StartBody { host } = serde_json::from_slice(&body).map_err(|e| {
        AdminError::bad_request(
            "InvalidBody",
            format!("{ROUTE}: request body: {e} ({})", accepted_body()),
        )
    })?;
    let started = state.proxies.start(&host).await.map_err(|e| match e {
        HostProxyError::InvalidHost { .. } => {
            AdminError::bad_request("InvalidHost", format!("{ROUTE}: field 'host': {e}"))
        }
        HostProxyError::Bind { .. } => {
            AdminError::internal("ProxyNotStarted", format!("{ROUTE}: {e}"))
        }
        HostProxyError::ShuttingDown { .. } => {
            AdminError::unavailable("ShuttingDown", format!("{ROUTE}: {e}"))
        }
    })?;
    let status = if started.created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, Json(started.proxy)).into_response())
}

pub(super) async fn list(State(state): State<AdminState>) -> Response {
    Json(json!({ "proxies": state.proxies.list().await })).into_response()
}

pub(super) async fn stop(
    State(state): State<AdminState>,
    Path(host): Path<String>,
) -> Result<StatusCode, AdminError> {
    match state.proxies.stop(&host).await {
        Some(_) => Ok(StatusCode::NO_CONTENT),
        None => Err(AdminError::not_found(
            "ProxyNotFound",
            format!("DELETE /admin/proxies/{host}: no proxy runs for host '{host}'"),
        )),
    }
}
