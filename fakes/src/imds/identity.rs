//! `/metadata/identity/oauth2/token`: managed-identity tokens for the identities ARM says the VM (or its
//! uniform scale set) carries, minted by the fake cloud's shared [`crate::entra::TokenIssuer`]. Every
//! field of the answer is a string, as azure_identity and the Go SDK expect.

use super::guards::Query;
use super::{ImdsState, Vm, responses};
use crate::topology::NodeKind;
use crate::topology::system_identity_client_id;
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Value, json};

/// An identity the VM can get tokens for.
struct Assigned {
    client_id: String,
    principal_id: String,
    resource_id: Option<String>,
}

/// Identities on the VM (standalone/flex) or on its scale set (uniform), system-assigned first.
fn assigned(vm: &Vm) -> (Option<Assigned>, Vec<Assigned>) {
    let (owner_id, doc) = match (&vm.kind, &vm.scale_set) {
        (NodeKind::VmssUniform, Some(set)) => (
            set["id"].as_str().unwrap_or_default().to_string(),
            set.get("identity"),
        ),
        _ => (vm.id.clone(), vm.doc.get("identity")),
    };
    let Some(identity) = doc else {
        return (None, Vec::new());
    };
    let kind = identity["type"]
        .as_str()
        .unwrap_or_default()
        .to_ascii_lowercase();
    let system = kind.contains("systemassigned").then(|| Assigned {
        client_id: system_identity_client_id(&owner_id),
        principal_id: identity["principalId"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        resource_id: None,
    });
    let users = identity
        .get("userAssignedIdentities")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(id, v)| Assigned {
            client_id: v["clientId"].as_str().unwrap_or_default().to_string(),
            principal_id: v["principalId"].as_str().unwrap_or_default().to_string(),
            resource_id: Some(id.clone()),
        })
        .collect();
    (system, users)
}

fn bad(message: &str) -> Response {
    responses::error(StatusCode::BAD_REQUEST, "invalid_request", message, true)
}

/// Answers a token request.
pub(super) fn token(state: &ImdsState, vm: &Vm, query: &Query) -> Response {
    let Some(resource) = query.get("resource").filter(|r| !r.is_empty()) else {
        return bad("Required audience parameter not specified");
    };
    let selectors: Vec<(&str, &str)> = ["client_id", "object_id", "msi_res_id"]
        .iter()
        .filter_map(|k| query.get(k).map(|v| (*k, v)))
        .collect();
    if selectors.len() > 1 {
        return bad("Only one of client_id, object_id and msi_res_id may be specified");
    }
    let (system, users) = assigned(vm);
    let all: Vec<&Assigned> = system.iter().chain(users.iter()).collect();
    let chosen = match selectors.first() {
        Some(("client_id", v)) => all
            .iter()
            .find(|a| a.client_id.eq_ignore_ascii_case(v))
            .copied(),
        Some(("object_id", v)) => all
            .iter()
            .find(|a| a.principal_id.eq_ignore_ascii_case(v))
            .copied(),
        Some((_, v)) => users.iter().find(|a| {
            a.resource_id
                .as_deref()
                .is_some_and(|id| id.eq_ignore_ascii_case(v))
        }),
        None => match (&system, users.as_slice()) {
            (Some(s), _) => Some(s),
            (None, [only]) => Some(only),
            (None, []) => None,
            (None, _) => {
                return bad(
                    "Multiple user assigned identities exist, please specify the clientId / resourceId of the identity in the token request",
                );
            }
        },
    };
    let Some(identity) = chosen else {
        return bad("Identity not found");
    };
    let issued = state.issuer().issue_with(&crate::entra::TokenRequest {
        tenant_id: state.tenant_id().to_string(),
        client_id: identity.client_id.clone(),
        object_id: Some(identity.principal_id.clone()).filter(|p| !p.is_empty()),
        resource_or_scope: resource.to_string(),
        lifetime_secs: state.issuer().lifetime_secs(),
    });
    responses::json(
        StatusCode::OK,
        &json!({
            "access_token": issued.access_token,
            "client_id": issued.client_id,
            "expires_in": issued.expires_in.to_string(),
            "expires_on": issued.expires_on.to_string(),
            "ext_expires_in": issued.expires_in.to_string(),
            "not_before": issued.not_before.to_string(),
            "resource": resource,
            "token_type": issued.token_type
        }),
    )
}
