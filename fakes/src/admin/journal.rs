//! `/admin/journal` (GET `?since=SEQ`, DELETE) and `/admin/counters` (GET): the request log and the
//! per-operation counts. DELETE on either clears both.

use std::collections::HashMap;

use axum::Json;
use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use http::StatusCode;

use super::AdminState;
use super::error::AdminError;

pub(super) async fn export(
    State(state): State<AdminState>,
    Query(query): Query<HashMap<String, String>>,
) -> Result<Response, AdminError> {
    let since = match query.get("since") {
        Some(text) => text.parse::<u64>().map_err(|_| {
            AdminError::bad_request(
                "InvalidQuery",
                format!(
                    "query 'since': '{text}' is not a sequence number (accepted: unsigned integer)"
                ),
            )
        })?,
        None => 0,
    };
    Ok(Json(state.journal.export(since)).into_response())
}

pub(super) async fn counters(State(state): State<AdminState>) -> Response {
    Json(state.journal.counters()).into_response()
}

pub(super) async fn clear(State(state): State<AdminState>) -> StatusCode {
    state.journal.clear();
    StatusCode::NO_CONTENT
}
