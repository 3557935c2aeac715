//! `/admin/state`: GET the whole-cloud snapshot, PUT one to restore it; `/admin/state/save` and
//! `/admin/state/load` (POST `{"path": "..."}`) do the same with a file on the fake's machine.

use std::path::PathBuf;

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use http::StatusCode;
use serde::Deserialize;
use serde_json::json;

use super::AdminState;
use super::error::{AdminError, parse_body};
use crate::snapshot;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileBody {
    path: PathBuf,
}

pub(super) async fn get(State(state): State<AdminState>) -> Response {
    Json(snapshot::capture(&state.arm, &state.entra)).into_response()
}

pub(super) async fn put(
    State(state): State<AdminState>,
    body: Bytes,
) -> Result<StatusCode, AdminError> {
    let text = std::str::from_utf8(&body).map_err(|_| {
        AdminError::bad_request("InvalidBody", "PUT /admin/state: body is not UTF-8")
    })?;
    let snap = snapshot::parse(text, "<request body>").map_err(invalid)?;
    snapshot::restore(snap, &state.arm, &state.entra, "<request body>").map_err(invalid)?;
    Ok(StatusCode::NO_CONTENT)
}

pub(super) async fn save(
    State(state): State<AdminState>,
    body: Bytes,
) -> Result<Response, AdminError> {
    let FileBody { path } = parse_body(&body, "POST /admin/state/save")?;
    let snap = snapshot::capture(&state.arm, &state.entra);
    snapshot::write(&path, &snap).map_err(invalid)?;
    Ok(Json(json!({ "path": path, "resources": state.arm.resource_count() })).into_response())
}

pub(super) async fn load(
    State(state): State<AdminState>,
    body: Bytes,
) -> Result<Response, AdminError> {
    let FileBody { path } = parse_body(&body, "POST /admin/state/load")?;
    let snap = snapshot::read(&path).map_err(invalid)?;
    snapshot::restore(snap, &state.arm, &state.entra, &path.display().to_string())
        .map_err(invalid)?;
    Ok(Json(json!({ "path": path, "resources": state.arm.resource_count() })).into_response())
}

fn invalid(e: snapshot::SnapshotError) -> AdminError {
    AdminError::bad_request("InvalidSnapshot", e.to_string())
}
