//! The admin API: JSON over the fake's HTTPS listener under `/admin/`, for tests and the harness.
//! No bearer token; only loopback peers are served (see [`access`]).
//!
//! | route | method | what |
//! |---|---|---|
//! | `/admin/info` | GET | base URLs (ARM, token, metadata, IMDS per node ARM holds now, admin), CA path |
//! | `/admin/faults` | GET / POST / PUT / DELETE | list, append, replace (`{seed, rules}`), clear fault rules |
//! | `/admin/faults/{id}` | DELETE | remove one rule |
//! | `/admin/journal` | GET (`?since=SEQ`) / DELETE | request log; DELETE also clears the counters |
//! | `/admin/counters` | GET / DELETE | per-operation counters (`"PUT Microsoft.Network/loadBalancers"`) |
//! | `/admin/throttle` | GET / PUT | ARM bucket sizes and refill rates, Compute RP policy windows, on/off |
//! | `/admin/state` | GET / PUT | whole-cloud snapshot as JSON / restore from one |
//! | `/admin/state/save`, `/admin/state/load` | POST `{"path"}` | same, with a file on the fake's machine |
//! | `/admin/compute/...` | see [`compute`] | add/delete VMs, scale scale sets, power states (needs a topology) |
//! | `/admin/proxies` | GET / POST `{"host"}` | list, start (idempotent) per-host proxies (see [`proxies`]) |
//! | `/admin/proxies/{host}` | DELETE | stop one |

pub mod access;
pub mod compute;
mod error;
mod faults;
mod journal;
pub mod proxies;
mod state;
mod throttle;

use std::sync::Arc;

use axum::Router;
use axum::routing::{delete, get, post};
use fake_arm::ArmState;
use serde_json::Value;

use crate::cloud::InfoDocument;

pub use error::AdminError;

use crate::entra::Entra;
use crate::faults::FaultEngine;
use crate::journal::Journal;
use crate::proxy::HostProxies;
use crate::throttle::ArmThrottle;

/// Everything the admin API reads or changes.
#[derive(Clone)]
pub struct AdminState {
    /// ARM store (snapshot / restore).
    pub arm: ArmState,
    /// Entra registry (snapshot / restore).
    pub entra: Entra,
    /// Fault schedule.
    pub faults: Arc<FaultEngine>,
    /// Request journal and counters.
    pub journal: Arc<Journal>,
    /// ARM request limits.
    pub throttle: Arc<ArmThrottle>,
    /// What `GET /admin/info` answers (nodes listed from current ARM state).
    pub info: Arc<InfoDocument>,
    /// Per-host proxies (`/admin/proxies`).
    pub proxies: Arc<HostProxies>,
}

/// Admin routes (paths already prefixed with `/admin`), loopback-only. `extra` (e.g. the compute
/// admin router) is merged in before the guard is applied.
pub fn router(state: AdminState, extra: Router) -> Router {
    Router::new()
        .route("/admin/info", get(info))
        .route(
            "/admin/faults",
            get(faults::list)
                .post(faults::add)
                .put(faults::replace)
                .delete(faults::clear),
        )
        .route("/admin/faults/{id}", delete(faults::remove))
        .route(
            "/admin/journal",
            get(journal::export).delete(journal::clear),
        )
        .route(
            "/admin/counters",
            get(journal::counters).delete(journal::clear),
        )
        .route("/admin/throttle", get(throttle::get).put(throttle::put))
        .route("/admin/state", get(state::get).put(state::put))
        .route("/admin/state/save", post(state::save))
        .route("/admin/state/load", post(state::load))
        .route("/admin/proxies", get(proxies::list).post(proxies::start))
        .route("/admin/proxies/{host}", delete(proxies::stop))
        .with_state(state)
        .merge(extra)
        .layer(axum::middleware::from_fn(access::loopback_only))
}

async fn info(axum::extract::State(state): axum::extract::State<AdminState>) -> axum::Json<Value> {
    axum::Json(state.info.render(&state.arm))
}
