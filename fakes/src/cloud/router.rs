//! Assembles the one router the HTTPS listener serves: Entra ID token endpoints and per-VM IMDS
//! (journal -> faults -> service), the ARM metadata document and the admin API (journal -> service),
//! and ARM as the fallback behind its middleware stack (outermost first): request ids -> journal ->
//! bearer check -> ARM throttle -> Compute RP throttle -> faults -> fake-arm.

use std::sync::Arc;

use axum::Router;
use axum::middleware::from_fn_with_state;
use fake_arm::ArmState;

use crate::arm_auth::{self, ArmAuth};
use crate::entra::{self, Entra};
use crate::faults::{self, FaultEngine, FaultLayer};
use crate::journal::{self, Journal, JournalLayer, Surface};
use crate::metadata_endpoints::{self, CloudKind};
use crate::request_ids::{self, RoutingRegion};
use crate::throttle::{self, ArmThrottle};

/// Every piece the router is built from.
pub(crate) struct Parts {
    pub arm: ArmState,
    pub entra: Entra,
    pub auth: ArmAuth,
    pub throttle: Arc<ArmThrottle>,
    pub faults: Arc<FaultEngine>,
    pub journal: Arc<Journal>,
    pub region: String,
    pub cloud: CloudKind,
    /// The IMDS stack from [`imds_stack`] (shared with the per-host proxies).
    pub imds: Router,
    pub admin: Router,
}

fn journaled(router: Router, journal: &Arc<Journal>, surface: Surface) -> Router {
    router.layer(from_fn_with_state(
        JournalLayer {
            journal: journal.clone(),
            surface,
        },
        journal::layer,
    ))
}

fn faulted(router: Router, engine: &Arc<FaultEngine>, surface: Surface) -> Router {
    router.layer(from_fn_with_state(
        FaultLayer {
            engine: engine.clone(),
            surface,
        },
        faults::layer,
    ))
}

/// Entra ID alone (journal -> faults -> service), for the endpoint the CONNECT proxy tunnels the
/// public Entra hosts to.
pub(crate) fn entra_only(
    entra: Entra,
    engine: &Arc<FaultEngine>,
    journal: &Arc<Journal>,
) -> Router {
    journaled(
        faulted(entra::router(entra), engine, Surface::Entra),
        journal,
        Surface::Entra,
    )
}

/// Per-VM IMDS with its middleware (journal -> faults -> service): what `/imds/...` is served by on
/// the main listener, and what the per-host proxies dispatch `http://169.254.169.254/...` into.
pub(crate) fn imds_stack(
    imds: Router,
    engine: &Arc<FaultEngine>,
    journal: &Arc<Journal>,
) -> Router {
    journaled(faulted(imds, engine, Surface::Imds), journal, Surface::Imds)
}

/// The complete router.
pub(crate) fn build(parts: Parts) -> Router {
    let arm = faulted(parts.arm.router(), &parts.faults, Surface::Arm)
        .layer(from_fn_with_state(
            parts.throttle.clone(),
            throttle::compute_layer,
        ))
        .layer(from_fn_with_state(parts.throttle, throttle::layer))
        .layer(from_fn_with_state(parts.auth, arm_auth::layer));
    let arm = journaled(arm, &parts.journal, Surface::Arm).layer(from_fn_with_state(
        RoutingRegion(parts.region.to_ascii_uppercase()),
        request_ids::layer,
    ));
    Router::new()
        .merge(entra_only(parts.entra, &parts.faults, &parts.journal))
        .merge(journaled(
            metadata_endpoints::router(parts.cloud),
            &parts.journal,
            Surface::Metadata,
        ))
        .merge(parts.imds)
        .merge(journaled(parts.admin, &parts.journal, Surface::Admin))
        .fallback_service(arm)
}
