//! The secure port's handlers: `/healthz` (+ `/healthz/ping`, `/healthz/leaderElection` and
//! `/healthz/<controller>` for each running controller, by canonical name or alias),
//! `/livez`, `/readyz`, `/metrics` (Prometheus text of the shared registry) and `/configz`.
//!
//! Verified (anchor-ccm.md §8): the paths, `/metrics/v2` as an alias of `/metrics`, and a
//! `leaderElection` health check. Callers are authenticated and authorised by
//! `azure_ccm::delegated_auth` (only `--authorization-always-allow-paths` are anonymous). **[infer]** `leaderElection` fails only once the Lease was lost (upstream
//! fails 20 s after a missed renewal, and the process exits on loss in both).

use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use ccm_controllers::migration::GateState;
use ccm_names::controllers::lookup;
use prometheus_client::registry::Registry;
use tokio::sync::watch;

use ccm_controllers::host::RunningControllers;

/// What the handlers read.
pub struct Endpoints {
    /// Every metric family of the process.
    pub registry: Registry,
    /// `/configz` body.
    pub configz: serde_json::Value,
    /// Lease state, for the `leaderElection` check.
    pub gate: watch::Receiver<GateState>,
    /// Which controllers run, for `/healthz/<controller>`.
    pub running: RunningControllers,
}

/// The router of the secure port.
pub fn router(endpoints: Arc<Endpoints>) -> Router {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/livez", get(ok))
        .route("/readyz", get(healthz))
        .route("/healthz/{check}", get(check))
        .route("/metrics", get(metrics))
        .route("/metrics/v2", get(metrics))
        .route("/configz", get(configz))
        .with_state(endpoints)
}

async fn ok() -> &'static str {
    "ok"
}

fn leader_ok(endpoints: &Endpoints) -> bool {
    endpoints.gate.borrow().lost.is_none()
}

async fn healthz(State(endpoints): State<Arc<Endpoints>>) -> Response {
    if leader_ok(&endpoints) {
        "ok".into_response()
    } else {
        (
            StatusCode::INTERNAL_SERVER_ERROR,
            "[-]leaderElection failed: the leader Lease was lost\nhealthz check failed\n",
        )
            .into_response()
    }
}

/// One named check. **[infer]** a controller's check exists while it runs (upstream registers a
/// ping per controller when it starts); any other name is 404.
async fn check(State(endpoints): State<Arc<Endpoints>>, Path(name): Path<String>) -> Response {
    match name.as_str() {
        "ping" => "ok".into_response(),
        "leaderElection" if leader_ok(&endpoints) => "ok".into_response(),
        "leaderElection" => (
            StatusCode::INTERNAL_SERVER_ERROR,
            "the leader Lease was lost\n",
        )
            .into_response(),
        other => match lookup(other) {
            Some(c) if endpoints.running.is_running(c.canonical) => "ok".into_response(),
            _ => (
                StatusCode::NOT_FOUND,
                format!("no health check {other:?}\n"),
            )
                .into_response(),
        },
    }
}

async fn metrics(State(endpoints): State<Arc<Endpoints>>) -> Response {
    azure_ccm::https_server::metrics_response(&endpoints.registry)
}

async fn configz(State(endpoints): State<Arc<Endpoints>>) -> Response {
    axum::Json(endpoints.configz.clone()).into_response()
}
