//! Entra instance discovery (`GET /common/discovery/instance?api-version=1.1&authorization_endpoint=URL`),
//! which MSAL calls before its first token request for an authority host it does not know (MSAL Go
//! `AADInstanceDiscovery`: the query parameters `api-version=1.1` and `authorization_endpoint`
//! `https://{host}/{tenant}/oauth2/v2.0/authorize`, sent to the authority host when it is a known
//! Entra host, else to `login.microsoftonline.com`). The answer names the tenant's OpenID
//! configuration (`tenant_discovery_endpoint`) and the known clouds with their aliases
//! (`metadata`: `preferred_network`, `preferred_cache`, `aliases`), as MSAL Go's
//! `InstanceDiscoveryResponse` reads it; the host list is MSAL Go's `knownClouds`
//! (`apps/internal/oauth/ops/authority/known_metadata.go`).
//!
//! Inferred, not verified ([infer]): real Entra refuses an authority host it does not know
//! (`invalid_instance`) unless validation is off; the fake answers for any host named in
//! `authorization_endpoint` (the fake's own `127.0.0.1:PORT` authority is the point) with one
//! more `metadata` entry whose only alias is that host.

use std::collections::HashMap;

use axum::extract::Query;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::error::AadError;

/// The known Entra clouds: (preferred network host, preferred cache host, aliases).
const KNOWN_CLOUDS: [(&str, &str, &[&str]); 8] = [
    (
        "login.microsoftonline.com",
        "login.windows.net",
        &[
            "login.microsoftonline.com",
            "login.windows.net",
            "login.microsoft.com",
            "sts.windows.net",
        ],
    ),
    (
        "login.partner.microsoftonline.cn",
        "login.partner.microsoftonline.cn",
        &["login.partner.microsoftonline.cn", "login.chinacloudapi.cn"],
    ),
    (
        "login.microsoftonline.de",
        "login.microsoftonline.de",
        &["login.microsoftonline.de"],
    ),
    (
        "login.microsoftonline.us",
        "login.microsoftonline.us",
        &["login.microsoftonline.us", "login.usgovcloudapi.net"],
    ),
    (
        "login-us.microsoftonline.com",
        "login-us.microsoftonline.com",
        &["login-us.microsoftonline.com"],
    ),
    (
        "login.sovcloud-identity.fr",
        "login.sovcloud-identity.fr",
        &["login.sovcloud-identity.fr"],
    ),
    (
        "login.sovcloud-identity.de",
        "login.sovcloud-identity.de",
        &["login.sovcloud-identity.de"],
    ),
    (
        "login.sovcloud-identity.sg",
        "login.sovcloud-identity.sg",
        &["login.sovcloud-identity.sg"],
    ),
];

/// Every public Entra authority host MSAL may contact (the aliases of the known clouds): the
/// hosts the fake's CONNECT proxy tunnels to its Entra endpoint.
pub fn public_authority_hosts() -> Vec<&'static str> {
    KNOWN_CLOUDS
        .iter()
        .flat_map(|(_, _, aliases)| aliases.iter().copied())
        .collect()
}

/// `GET /common/discovery/instance`.
pub async fn instance_discovery(Query(query): Query<HashMap<String, String>>) -> Response {
    match discovery_document(query.get("authorization_endpoint").map(String::as_str)) {
        Ok(body) => axum::Json(body).into_response(),
        Err(error) => error.render(None),
    }
}

/// The discovery answer for `authorization_endpoint` (`https://host[:port]/{tenant}/...`).
fn discovery_document(authorization_endpoint: Option<&str>) -> Result<Value, AadError> {
    let endpoint = authorization_endpoint
        .filter(|e| !e.is_empty())
        .ok_or_else(|| AadError::missing_parameter("authorization_endpoint"))?;
    let url = url::Url::parse(endpoint).map_err(|_| invalid_endpoint(endpoint))?;
    let host = match (url.host_str(), url.port()) {
        (Some(host), Some(port)) => format!("{host}:{port}"),
        (Some(host), None) => host.to_owned(),
        (None, _) => return Err(invalid_endpoint(endpoint)),
    };
    let tenant = url
        .path_segments()
        .and_then(|mut s| s.next())
        .filter(|t| !t.is_empty())
        .ok_or_else(|| invalid_endpoint(endpoint))?;
    let mut metadata: Vec<Value> = KNOWN_CLOUDS
        .iter()
        .map(|(network, cache, aliases)| {
            json!({"preferred_network": network, "preferred_cache": cache, "aliases": aliases})
        })
        .collect();
    let lower = host.to_ascii_lowercase();
    if !public_authority_hosts().contains(&lower.as_str()) {
        metadata.push(
            json!({"preferred_network": lower, "preferred_cache": lower, "aliases": [lower]}),
        );
    }
    Ok(json!({
        "tenant_discovery_endpoint":
            format!("https://{lower}/{tenant}/v2.0/.well-known/openid-configuration"),
        "api-version": "1.1",
        "metadata": metadata,
    }))
}

fn invalid_endpoint(endpoint: &str) -> AadError {
    AadError::new(
        http::StatusCode::BAD_REQUEST,
        "invalid_instance",
        50049,
        format!("Unknown or invalid instance: '{endpoint}'."),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_host_is_its_own_instance_and_names_its_openid_configuration() {
        let doc =
            discovery_document(Some("https://127.0.0.1:4000/t-1/oauth2/v2.0/authorize")).unwrap();
        assert_eq!(
            doc["tenant_discovery_endpoint"],
            "https://127.0.0.1:4000/t-1/v2.0/.well-known/openid-configuration"
        );
        let last = doc["metadata"].as_array().unwrap().last().unwrap().clone();
        assert_eq!(last["aliases"], json!(["127.0.0.1:4000"]));
    }

    #[test]
    fn a_public_host_is_not_repeated_and_a_missing_endpoint_is_refused() {
        let doc = discovery_document(Some(
            "https://login.microsoftonline.com/common/oauth2/v2.0/authorize",
        ))
        .unwrap();
        assert_eq!(
            doc["metadata"].as_array().unwrap().len(),
            KNOWN_CLOUDS.len()
        );
        assert_eq!(discovery_document(None).unwrap_err().code, 900144);
        assert_eq!(
            discovery_document(Some("not a url")).unwrap_err().code,
            50049
        );
    }
}
