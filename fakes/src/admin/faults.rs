//! `/admin/faults`: list (GET), append (POST, one rule or `{"rules":[...]}`), replace with a new
//! seed and rules (PUT, a faults-file document), clear (DELETE) and remove one (DELETE `/{id}`).

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use http::StatusCode;
use serde::Deserialize;
use serde_json::json;

use super::AdminState;
use super::error::{AdminError, parse_body};
use crate::faults::{FaultPlan, FaultRule};

#[derive(Deserialize)]
#[serde(untagged)]
enum AddBody {
    Many { rules: Vec<FaultRule> },
    One(FaultRule),
}

pub(super) async fn list(State(state): State<AdminState>) -> Response {
    Json(state.faults.list()).into_response()
}

pub(super) async fn add(
    State(state): State<AdminState>,
    body: Bytes,
) -> Result<Response, AdminError> {
    let rules = match parse_body::<AddBody>(&body, "POST /admin/faults")? {
        AddBody::Many { rules } => rules,
        AddBody::One(rule) => vec![rule],
    };
    let ids = state
        .faults
        .add(rules)
        .map_err(|e| AdminError::bad_request("InvalidFaultRule", e.to_string()))?;
    Ok((StatusCode::CREATED, Json(json!({ "ids": ids }))).into_response())
}

pub(super) async fn replace(
    State(state): State<AdminState>,
    body: Bytes,
) -> Result<Response, AdminError> {
    let plan: FaultPlan = parse_body(&body, "PUT /admin/faults")?;
    let ids = state
        .faults
        .replace(plan)
        .map_err(|e| AdminError::bad_request("InvalidFaultRule", e.to_string()))?;
    Ok(Json(json!({ "ids": ids })).into_response())
}

pub(super) async fn clear(State(state): State<AdminState>) -> StatusCode {
    state.faults.clear();
    StatusCode::NO_CONTENT
}

pub(super) async fn remove(
    State(state): State<AdminState>,
    Path(id): Path<String>,
) -> Result<StatusCode, AdminError> {
    if state.faults.remove(&id) {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(AdminError::not_found(
            "FaultNotFound",
            format!("no fault rule with id '{id}'"),
        ))
    }
}
