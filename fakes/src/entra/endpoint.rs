//! HTTP surface of the fake Entra ID: `POST /{tenant}/oauth2/v2.0/token` (client credentials with a
//! secret, a certificate assertion or a federated assertion), the v1 `POST /{tenant}/oauth2/token`
//! (`resource` instead of `scope`, string numbers), the v2 OpenID configuration document and
//! instance discovery (`instance_discovery`).

use std::collections::HashMap;
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, get, post};
use http::{HeaderMap, StatusCode, Uri};
use parking_lot::RwLock;
use serde_json::json;

use super::assertion::verify_signature;
use super::error::AadError;
use super::issuer::{IssuedToken, TokenIssuer, TokenRequest, now_unix};
use super::jwt::Jwt;
use super::registry::{AppRegistration, Registry};
use super::scope::client_credentials_scope;

/// `client_assertion_type` value for JWT client assertions (RFC 7523).
const JWT_BEARER: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
/// Clock skew Entra tolerates on assertion `nbf`/`exp`.
const ASSERTION_SKEW_SECS: i64 = 300;

/// Shared state of the Entra endpoints: the issuer and the (mutable, snapshot-able) registry.
#[derive(Clone)]
pub struct Entra {
    /// Token minter shared with IMDS and the ARM bearer check.
    pub issuer: TokenIssuer,
    /// Registered tenants and apps.
    pub registry: Arc<RwLock<Registry>>,
}

impl Entra {
    /// Entra over `registry` issuing with `issuer`.
    pub fn new(issuer: TokenIssuer, registry: Registry) -> Self {
        Self {
            issuer,
            registry: Arc::new(RwLock::new(registry)),
        }
    }
}

/// Router with the token endpoints, the OpenID configuration and instance discovery.
pub fn router(entra: Entra) -> Router {
    Router::new()
        .route("/{tenant}/oauth2/v2.0/token", token_endpoint(Version::V2))
        .route("/{tenant}/oauth2/token", token_endpoint(Version::V1))
        .route(
            "/{tenant}/v2.0/.well-known/openid-configuration",
            get(openid_configuration),
        )
        .route("/{tenant}/discovery/v2.0/keys", get(keys))
        .route(
            "/common/discovery/instance",
            get(super::instance_discovery::instance_discovery),
        )
        .with_state(entra)
}

/// Which protocol version answers, shaping the request (scope vs resource) and the response.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Version {
    V1,
    V2,
}

/// The token endpoint of one protocol version: v1 and v2 differ only in how [`token`] reads and answers.
fn token_endpoint(version: Version) -> MethodRouter<Entra> {
    post(
        move |State(entra): State<Entra>,
              Path(tenant): Path<String>,
              uri: Uri,
              headers: HeaderMap,
              body: Bytes| async move { token(&entra, &tenant, &uri, &headers, &body, version) },
    )
}

fn token(
    entra: &Entra,
    tenant: &str,
    uri: &Uri,
    headers: &HeaderMap,
    body: &[u8],
    version: Version,
) -> Response {
    let form: HashMap<String, String> = url::form_urlencoded::parse(body).into_owned().collect();
    let correlation = headers
        .get("client-request-id")
        .and_then(|v| v.to_str().ok());
    let authority = authority(uri, headers);
    match grant(entra, tenant, &form, &authority, version) {
        Ok((issued, how)) => {
            tracing::info!(tenant, client_id = %issued.client_id, credential = how, resource = %issued.resource, "token issued");
            render_token(&issued, version)
        }
        Err(error) => {
            let client_id = form
                .get("client_id")
                .map(String::as_str)
                .unwrap_or_default();
            tracing::info!(
                tenant,
                client_id,
                code = error.code,
                error = error.error,
                "token request refused"
            );
            error.render(correlation)
        }
    }
}

fn grant(
    entra: &Entra,
    tenant: &str,
    form: &HashMap<String, String>,
    authority: &str,
    version: Version,
) -> Result<(IssuedToken, &'static str), AadError> {
    let registry = entra.registry.read();
    let directory = registry
        .tenant(tenant)
        .ok_or_else(|| AadError::tenant_not_found(tenant))?;
    let param = |name: &str| form.get(name).map(String::as_str).filter(|v| !v.is_empty());
    let grant_type =
        param("grant_type").ok_or_else(|| AadError::missing_parameter("grant_type"))?;
    if grant_type != "client_credentials" {
        return Err(AadError::new(
            StatusCode::BAD_REQUEST,
            "unsupported_grant_type",
            70003,
            format!(
                "The app requested an unsupported grant type '{grant_type}'. This fake serves 'client_credentials' only."
            ),
        ));
    }
    let client_id = param("client_id").ok_or_else(|| AadError::missing_parameter("client_id"))?;
    let resource = match version {
        Version::V2 => {
            let scope = param("scope").ok_or_else(|| AadError::missing_parameter("scope"))?;
            client_credentials_scope(scope)?
        }
        Version::V1 => param("resource").ok_or_else(|| AadError::missing_parameter("resource"))?,
    };
    let app = directory
        .app(client_id)
        .ok_or_else(|| AadError::app_not_found(client_id, tenant))?;
    let how = match (param("client_secret"), param("client_assertion")) {
        (Some(secret), _) => {
            if !app.secrets.iter().any(|s| s.matches(secret)) {
                return Err(AadError::bad_secret(client_id));
            }
            "client_secret"
        }
        (None, Some(assertion)) => {
            if param("client_assertion_type") != Some(JWT_BEARER) {
                return Err(AadError::new(
                    StatusCode::BAD_REQUEST,
                    "invalid_request",
                    900144,
                    format!(
                        "The request body must contain the following parameter: 'client_assertion_type' with value '{JWT_BEARER}'."
                    ),
                ));
            }
            check_assertion(app, tenant, client_id, assertion, authority)?
        }
        (None, None) => {
            return Err(AadError::new(
                StatusCode::BAD_REQUEST,
                "invalid_client",
                7000218,
                "The request body must contain the following parameter: 'client_assertion' or 'client_secret'.",
            ));
        }
    };
    let issued = entra.issuer.issue_with(&TokenRequest {
        tenant_id: directory.tenant_id.clone(),
        client_id: app.client_id.clone(),
        object_id: app.object_id.clone(),
        resource_or_scope: resource.to_string(),
        lifetime_secs: entra.issuer.lifetime_secs(),
    });
    Ok((issued, how))
}

/// Certificate assertion when `iss` = `sub` = client id, otherwise a federated assertion.
fn check_assertion(
    app: &AppRegistration,
    tenant: &str,
    client_id: &str,
    assertion: &str,
    authority: &str,
) -> Result<&'static str, AadError> {
    let malformed = || {
        AadError::new(
            StatusCode::BAD_REQUEST,
            "invalid_client",
            50027,
            "JWT token is invalid or malformed.",
        )
    };
    let token = Jwt::parse(assertion).map_err(|_| malformed())?;
    let iss = token.claim_str("iss").unwrap_or_default();
    let sub = token.claim_str("sub").unwrap_or_default();
    let now = now_unix();
    let (nbf, exp) = (token.claim_time("nbf"), token.claim_time("exp"));
    let in_window = exp.is_some_and(|e| e + ASSERTION_SKEW_SECS > now)
        && nbf.is_none_or(|n| n - ASSERTION_SKEW_SECS <= now);
    if iss.eq_ignore_ascii_case(client_id) && sub.eq_ignore_ascii_case(client_id) {
        let accepted = [
            format!("{authority}/{tenant}/oauth2/v2.0/token"),
            format!("{authority}/{tenant}/oauth2/token"),
        ];
        if !token
            .audiences()
            .iter()
            .any(|a| accepted.iter().any(|ok| ok.eq_ignore_ascii_case(a)))
        {
            return Err(AadError::new(
                StatusCode::UNAUTHORIZED,
                "invalid_client",
                700027,
                format!(
                    "Client assertion failed audience validation. Expected audience: '{}'.",
                    accepted[0]
                ),
            ));
        }
        if !in_window {
            return Err(AadError::assertion_time(now, nbf, exp));
        }
        verify_signature(&token, &app.certificates).map_err(|e| {
            AadError::new(
                StatusCode::UNAUTHORIZED,
                "invalid_client",
                700027,
                format!(
                    "Client assertion failed signature validation. [Reason - {e}, Thumbprint of key used by client: '{}']",
                    token.header_str("x5t").unwrap_or("<none>")
                ),
            )
        })?;
        return Ok("client_certificate");
    }
    let audiences = token.audiences();
    let shown_aud = audiences.first().copied().unwrap_or_default();
    let record = app
        .federated_credentials
        .iter()
        .find(|f| f.issuer == iss && f.subject == sub)
        .ok_or_else(|| AadError::no_federated_record(iss, sub, shown_aud))?;
    if !audiences
        .iter()
        .any(|a| record.audiences.iter().any(|ok| ok == a))
    {
        return Err(AadError::new(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            700212,
            format!(
                "No matching federated identity record found for presented assertion audience '{shown_aud}'."
            ),
        ));
    }
    if !in_window {
        return Err(AadError::assertion_time(now, nbf, exp));
    }
    if !record.issuer_keys.is_empty() {
        verify_signature(&token, &record.issuer_keys).map_err(|e| {
            AadError::new(
                StatusCode::UNAUTHORIZED,
                "invalid_client",
                50013,
                format!("Assertion failed signature validation. [Reason - {e}]"),
            )
        })?;
    }
    Ok("federated_credential")
}

fn render_token(issued: &IssuedToken, version: Version) -> Response {
    let body = match version {
        Version::V2 => json!({
            "token_type": issued.token_type,
            "expires_in": issued.expires_in,
            "ext_expires_in": issued.expires_in,
            "access_token": issued.access_token,
        }),
        Version::V1 => json!({
            "token_type": issued.token_type,
            "expires_in": issued.expires_in.to_string(),
            "ext_expires_in": issued.expires_in.to_string(),
            "expires_on": issued.expires_on.to_string(),
            "not_before": issued.not_before.to_string(),
            "resource": issued.resource,
            "access_token": issued.access_token,
        }),
    };
    let mut response = axum::Json(body).into_response();
    response.headers_mut().insert(
        http::header::CACHE_CONTROL,
        http::HeaderValue::from_static("no-store, no-cache"),
    );
    response
}

async fn openid_configuration(
    Path(tenant): Path<String>,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    let base = authority(&uri, &headers);
    axum::Json(json!({
        "token_endpoint": format!("{base}/{tenant}/oauth2/v2.0/token"),
        "token_endpoint_auth_methods_supported": ["client_secret_post", "private_key_jwt", "client_secret_basic"],
        "jwks_uri": format!("{base}/{tenant}/discovery/v2.0/keys"),
        "response_types_supported": ["code", "id_token", "code id_token", "id_token token"],
        "subject_types_supported": ["pairwise"],
        "id_token_signing_alg_values_supported": ["RS256"],
        "issuer": format!("{base}/{tenant}/v2.0"),
        "authorization_endpoint": format!("{base}/{tenant}/oauth2/v2.0/authorize"),
        "tenant_region_scope": null,
        "cloud_instance_name": "fake.azure",
    }))
    .into_response()
}

/// Tokens are HMAC-signed (see the issuer), so there is no public key to publish.
async fn keys() -> Response {
    axum::Json(json!({ "keys": [] })).into_response()
}

/// `https://host[:port]` the client used (see [`fake_tls::request_origin`]); Entra ID's public host otherwise.
pub(crate) fn authority(uri: &Uri, headers: &HeaderMap) -> String {
    fake_tls::request_origin(uri, headers, "login.microsoftonline.com")
}
