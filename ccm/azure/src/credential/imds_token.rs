//! Our own IMDS managed-identity token client, used when the IMDS base URL is overridden
//! (azure_identity hard-codes `169.254.169.254`): `GET <base>/metadata/identity/oauth2/token` with
//! `Metadata: true`, the resource, and at most one of `client_id` / `msi_res_id`.

use std::fmt;

use azure_core::credentials::{AccessToken, TokenCredential, TokenRequestOptions};
use azure_core::error::ErrorKind;
use serde_json::Value;
use time::OffsetDateTime;
use url::Url;

use super::plan::ManagedIdentityId;
use super::token_cache::TokenCache;

/// The api-version of the token request (the oldest one every IMDS serves, arm-imds-aad.md §3.6).
pub const API_VERSION: &str = "2018-02-01";

/// A managed identity's tokens from an IMDS at a configurable base URL, cached until near expiry.
pub struct ImdsManagedIdentity {
    http: reqwest::Client,
    token_url: Url,
    id: ManagedIdentityId,
    cache: TokenCache,
}

impl fmt::Debug for ImdsManagedIdentity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ImdsManagedIdentity")
            .field("token_url", &self.token_url.as_str())
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl ImdsManagedIdentity {
    /// A client for `id` at IMDS `base` (e.g. `http://169.254.169.254`).
    pub fn new(http: reqwest::Client, base: &Url, id: ManagedIdentityId) -> Result<Self, String> {
        let mut base = base.clone();
        if !base.path().ends_with('/') {
            let path = format!("{}/", base.path());
            base.set_path(&path);
        }
        let token_url = base
            .join("metadata/identity/oauth2/token")
            .map_err(|e| e.to_string())?;
        Ok(Self {
            http,
            token_url,
            id,
            cache: TokenCache::default(),
        })
    }

    async fn fetch(&self, scopes: &[&str]) -> azure_core::Result<AccessToken> {
        let [scope] = scopes else {
            return Err(azure_core::Error::with_message(
                ErrorKind::Credential,
                format!(
                    "managed identity tokens take exactly one scope, got {}",
                    scopes.len()
                ),
            ));
        };
        let resource = scope.strip_suffix("/.default").unwrap_or(scope);
        let mut url = self.token_url.clone();
        {
            let mut query = url.query_pairs_mut();
            query.append_pair("api-version", API_VERSION);
            query.append_pair("resource", resource);
            match &self.id {
                ManagedIdentityId::System => {}
                ManagedIdentityId::ClientId(id) => {
                    query.append_pair("client_id", id);
                }
                ManagedIdentityId::ResourceId(id) => {
                    query.append_pair("msi_res_id", id);
                }
            }
        }
        let failed = |reason: String| {
            azure_core::Error::with_message(
                ErrorKind::Credential,
                format!("managed identity: GET {} failed: {reason}", self.token_url),
            )
        };
        tracing::debug!(url = %self.token_url, identity = ?self.id, "requesting a managed-identity token");
        let response = self
            .http
            .get(url)
            .header("Metadata", "true")
            .send()
            .await
            .map_err(|e| failed(e.without_url().to_string()))?;
        let status = response.status();
        let body: Value = response.json().await.map_err(|e| {
            failed(format!(
                "status {status}, body is not JSON: {}",
                e.without_url()
            ))
        })?;
        if !status.is_success() {
            return Err(failed(format!(
                "status {status}: {} {}",
                body["error"].as_str().unwrap_or_default(),
                body["error_description"].as_str().unwrap_or_default()
            )));
        }
        parse_token(&body).map_err(failed)
    }
}

/// Reads `access_token` and `expires_on` (IMDS sends strings; numbers are accepted too), falling
/// back to `expires_in` from now.
fn parse_token(body: &Value) -> Result<AccessToken, String> {
    let token = body["access_token"]
        .as_str()
        .filter(|t| !t.is_empty())
        .ok_or("the answer has no access_token")?;
    let number = |key: &str| -> Option<i64> {
        match &body[key] {
            Value::String(s) => s.parse().ok(),
            Value::Number(n) => n.as_i64(),
            _ => None,
        }
    };
    let expires_on = match (number("expires_on"), number("expires_in")) {
        (Some(on), _) => OffsetDateTime::from_unix_timestamp(on).map_err(|e| e.to_string())?,
        (None, Some(secs)) => OffsetDateTime::now_utc() + time::Duration::seconds(secs),
        (None, None) => return Err("the answer has neither expires_on nor expires_in".to_string()),
    };
    Ok(AccessToken::new(token.to_string(), expires_on))
}

#[async_trait::async_trait]
impl TokenCredential for ImdsManagedIdentity {
    async fn get_token(
        &self,
        scopes: &[&str],
        _: Option<TokenRequestOptions<'_>>,
    ) -> azure_core::Result<AccessToken> {
        self.cache.get_or_fetch(scopes, || self.fetch(scopes)).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_string_and_number_expiries() {
        let token =
            parse_token(&json!({"access_token": "x", "expires_on": "1700000000"})).expect("string");
        assert_eq!(token.expires_on.unix_timestamp(), 1_700_000_000);
        let token =
            parse_token(&json!({"access_token": "x", "expires_on": 1700000001})).expect("number");
        assert_eq!(token.expires_on.unix_timestamp(), 1_700_000_001);
        assert!(parse_token(&json!({"access_token": "x", "expires_in": "3599"})).is_ok());
        assert!(parse_token(&json!({"expires_on": "1"})).is_err());
        assert!(parse_token(&json!({"access_token": "x"})).is_err());
    }

    #[test]
    fn token_url_keeps_the_base_path() {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let base = Url::parse("https://127.0.0.1:9/imds/node-0").expect("url");
        let client =
            ImdsManagedIdentity::new(reqwest::Client::new(), &base, ManagedIdentityId::System)
                .expect("client");
        assert_eq!(
            client.token_url.as_str(),
            "https://127.0.0.1:9/imds/node-0/metadata/identity/oauth2/token"
        );
    }
}
