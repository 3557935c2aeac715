//! Fake Instance Metadata Service: one IMDS per simulated VM, addressed by node name under
//! `/imds/{nodeName}/metadata/...`, with the transport rules of the real service (`Metadata: true`, no
//! `X-Forwarded-For`, `api-version` checked against the supported list, GET only, per-VM rate limits) and
//! every view derived from fake-ARM state at request time, so IMDS and ARM can never disagree.
//!
//! Served: `/metadata/instance` (+ `/compute`, `/network` and deeper paths, `format=text` for leaves),
//! `/metadata/loadbalancer`, `/metadata/identity/oauth2/token`, `/metadata/identity/info`,
//! `/metadata/versions`.
//!
//! Decisions where the real service has no equivalent (a gone VM cannot reach the real IMDS at all):
//! - a node name with no VM in ARM (deleted or never created) answers **404** `{"error":"Not found"}`;
//! - a VM whose power state is `stopped`, `stopping`, `deallocating` or `deallocated` (no guest running)
//!   answers **503** with an explanatory `error`, so a harness that queries a powered-off VM notices.

mod guards;
mod identity;
mod instance;
mod loadbalancer;
mod rate;
mod responses;
mod versions;

pub use rate::ImdsLimits;
pub use versions::{NEWEST_VERSIONS, SUPPORTED_VERSIONS};

use crate::entra::TokenIssuer;
use crate::topology::CloudName;
use crate::topology::lookup::{NodeLookup, NodeVm, power_state};
use axum::Router;
use axum::extract::{Path, RawQuery, State};
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::any;
use fake_arm::ArmState;
use std::sync::Arc;

/// Everything IMDS answers from: the ARM state (views), the shared token issuer (managed identity), the
/// subscription and tenant of the simulated VMs, and the rate limits.
#[derive(Clone)]
pub struct ImdsState {
    inner: Arc<Inner>,
}

struct Inner {
    arm: ArmState,
    issuer: TokenIssuer,
    subscription_id: String,
    tenant_id: String,
    cloud: CloudName,
    lookup: NodeLookup,
    limits: rate::Limiters,
}

impl ImdsState {
    /// IMDS for the VMs of `subscription_id` (tenant `tenant_id`), with the real per-VM rate limits.
    pub fn new(arm: ArmState, issuer: TokenIssuer, subscription_id: &str, tenant_id: &str) -> Self {
        Self::with_options(
            arm,
            issuer,
            subscription_id,
            tenant_id,
            CloudName::AzurePublicCloud,
            ImdsLimits::default(),
        )
    }

    /// IMDS with an explicit cloud name (`azEnvironment`) and rate limits.
    pub fn with_options(
        arm: ArmState,
        issuer: TokenIssuer,
        subscription_id: &str,
        tenant_id: &str,
        cloud: CloudName,
        limits: ImdsLimits,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                arm,
                issuer,
                subscription_id: subscription_id.to_string(),
                tenant_id: tenant_id.to_string(),
                cloud,
                lookup: NodeLookup::default(),
                limits: rate::Limiters::new(limits),
            }),
        }
    }

    /// The ARM state views are derived from.
    pub fn arm(&self) -> &ArmState {
        &self.inner.arm
    }
}

/// Base URL path of one VM's IMDS (`/imds/{node}`), to which clients append `/metadata/...`.
pub fn vm_base_path(node_name: &str) -> String {
    format!("/imds/{node_name}")
}

/// Router serving every simulated VM's IMDS under `/imds/{nodeName}/metadata/...`; any other path
/// under `/imds/{nodeName}/` gets IMDS's 404 (what the real service answers outside `/metadata`), so
/// a per-host proxy's `http://169.254.169.254/<anything>` and the direct route always agree.
pub fn router(state: ImdsState) -> Router {
    Router::new()
        .route("/imds/{node}/metadata/{*path}", any(handle))
        .route("/imds/{node}/", any(outside_metadata))
        .route("/imds/{node}/{*path}", any(outside_metadata))
        .with_state(state)
}

/// A path outside `/metadata`: counted against the VM's budget like every request, then 404.
async fn outside_metadata(
    State(state): State<ImdsState>,
    Path(params): Path<Vec<(String, String)>>,
) -> Response {
    let node = params
        .iter()
        .find(|(name, _)| name == "node")
        .map(|(_, value)| value.as_str())
        .unwrap_or_default();
    if !state.inner.limits.admit(node, false) {
        return responses::too_many_requests(false);
    }
    responses::not_found()
}

/// Which IMDS category a path belongs to (they have separate rate limits and error styles).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Category {
    Instance,
    LoadBalancer,
    Identity,
    IdentityInfo,
    Versions,
}

fn category(path: &str) -> Option<(Category, Vec<&str>)> {
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    match parts.as_slice() {
        ["instance", rest @ ..] => Some((Category::Instance, rest.to_vec())),
        ["loadbalancer"] => Some((Category::LoadBalancer, Vec::new())),
        ["identity", "oauth2", "token"] => Some((Category::Identity, Vec::new())),
        ["identity", "info"] => Some((Category::IdentityInfo, Vec::new())),
        ["versions"] => Some((Category::Versions, Vec::new())),
        _ => None,
    }
}

async fn handle(
    State(state): State<ImdsState>,
    Path((node, path)): Path<(String, String)>,
    method: axum::http::Method,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let Some((cat, rest)) = category(&path) else {
        return responses::not_found();
    };
    let oauth = cat == Category::Identity;
    // Real IMDS counts every request against the VM's budget, well-formed or not.
    if !state.inner.limits.admit(&node, oauth) {
        return responses::too_many_requests(oauth);
    }
    if let Err(r) = guards::transport(&method, &headers, oauth) {
        return *r;
    }
    let query = match guards::Query::parse(query.as_deref().unwrap_or_default(), oauth) {
        Ok(q) => q,
        Err(r) => return *r,
    };
    if cat != Category::Versions {
        let since = match cat {
            Category::LoadBalancer => "2020-10-01",
            Category::Identity | Category::IdentityInfo => "2018-02-01",
            _ => "2017-04-02",
        };
        if let Err(r) = versions::check(query.get("api-version"), since, oauth) {
            return *r;
        }
    }
    if cat == Category::Versions {
        return responses::json(
            axum::http::StatusCode::OK,
            &serde_json::json!({ "apiVersions": SUPPORTED_VERSIONS }),
        );
    }
    let inner = &state.inner;
    let vm = match inner.lookup.find(&inner.arm, &inner.subscription_id, &node) {
        Ok(Some(vm)) => vm,
        Ok(None) => return responses::not_found(),
        Err(e) => return responses::internal(&e.to_string(), oauth),
    };
    let power = power_state(&inner.arm, &vm.id);
    if matches!(
        power.as_str(),
        "stopped" | "stopping" | "deallocating" | "deallocated"
    ) {
        return responses::powered_off(&node, &power, oauth);
    }
    match cat {
        Category::Instance => instance::answer(&state, &vm, &rest, &query),
        Category::LoadBalancer => loadbalancer::answer(&state, &vm),
        Category::Identity => identity::token(&state, &vm, &query),
        Category::IdentityInfo => responses::json(
            axum::http::StatusCode::OK,
            &serde_json::json!({ "tenantId": inner.tenant_id }),
        ),
        Category::Versions => responses::not_found(),
    }
}

/// Helpers the view builders share.
impl ImdsState {
    fn cloud(&self) -> CloudName {
        self.inner.cloud
    }

    fn issuer(&self) -> &TokenIssuer {
        &self.inner.issuer
    }

    fn tenant_id(&self) -> &str {
        &self.inner.tenant_id
    }

    fn subscription_id(&self) -> &str {
        &self.inner.subscription_id
    }
}

/// Marker so helpers can take a resolved VM without exposing lookup internals.
type Vm = NodeVm;
