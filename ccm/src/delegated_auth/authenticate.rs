//! Who is calling: a verified client certificate (CN = user, O = groups), else a bearer token
//! checked with a TokenReview, else `system:anonymous` (k8s.io/apiserver
//! `DelegatingAuthenticatorConfig.New`: x509 before the token webhook, anonymous last, and a
//! token that does not authenticate is an error, never anonymous).

use std::time::Duration;

use axum::http::{HeaderMap, header};
use k8s_openapi::api::authentication::v1::{TokenReview, TokenReviewSpec};
use kube::Api;
use kube::api::PostParams;

use super::cache::TtlCache;
use crate::https_server::ClientCertificate;

/// The group every authenticated caller is in.
pub const AUTHENTICATED: &str = "system:authenticated";

/// An authenticated (or anonymous) caller.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Caller {
    /// User name.
    pub name: String,
    /// Groups.
    pub groups: Vec<String>,
}

impl Caller {
    /// `system:anonymous` in `system:unauthenticated`.
    pub fn anonymous() -> Self {
        Self {
            name: "system:anonymous".into(),
            groups: vec!["system:unauthenticated".into()],
        }
    }

    fn authenticated(name: String, mut groups: Vec<String>) -> Self {
        if !groups.iter().any(|g| g == AUTHENTICATED) {
            groups.push(AUTHENTICATED.into());
        }
        Self { name, groups }
    }
}

/// Why a request is answered 401.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unauthenticated {
    /// The TokenReview said no.
    InvalidToken,
    /// The TokenReview could not be made (the API server is unreachable or refused it).
    ReviewFailed(String),
}

/// Authenticates the requests of the secure port.
pub struct Authenticator {
    reviews: Option<Api<TokenReview>>,
    cache: TtlCache<String, Option<Caller>>,
    ttl: Duration,
}

/// The bearer token of `Authorization: Bearer <token>` (scheme case-insensitive), if any.
fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.trim().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// CN and O of a verified client certificate.
fn certificate_caller(cert: &ClientCertificate) -> Option<Caller> {
    let (_, parsed) = x509_parser::parse_x509_certificate(cert.0.as_ref()).ok()?;
    let subject = parsed.subject();
    let name = subject
        .iter_common_name()
        .next()?
        .as_str()
        .ok()?
        .to_string();
    let groups = subject
        .iter_organization()
        .filter_map(|o| o.as_str().ok().map(String::from))
        .collect();
    Some(Caller::authenticated(name, groups))
}

impl Authenticator {
    /// Token reviews through `client` (none: bearer tokens are not looked at), cached `ttl`.
    pub fn new(client: Option<kube::Client>, ttl: Duration) -> Self {
        Self {
            reviews: client.map(Api::all),
            cache: TtlCache::new(),
            ttl,
        }
    }

    /// The caller of a request with these headers and client certificate.
    pub async fn authenticate(
        &self,
        headers: &HeaderMap,
        cert: Option<&ClientCertificate>,
    ) -> Result<Caller, Unauthenticated> {
        if let Some(caller) = cert.and_then(certificate_caller) {
            return Ok(caller);
        }
        let (Some(reviews), Some(token)) = (&self.reviews, bearer(headers)) else {
            return Ok(Caller::anonymous());
        };
        let answer = match self.cache.get(&token.to_string()) {
            Some(answer) => answer,
            None => {
                let answer = review(reviews, token).await?;
                self.cache.put(token.to_string(), answer.clone(), self.ttl);
                answer
            }
        };
        answer.ok_or(Unauthenticated::InvalidToken)
    }
}

async fn review(
    reviews: &Api<TokenReview>,
    token: &str,
) -> Result<Option<Caller>, Unauthenticated> {
    let request = TokenReview {
        spec: TokenReviewSpec {
            token: Some(token.to_string()),
            audiences: None,
        },
        ..Default::default()
    };
    let answer = reviews
        .create(&PostParams::default(), &request)
        .await
        // The error names the request, never the token.
        .map_err(|e| Unauthenticated::ReviewFailed(e.to_string()))?;
    let status = answer.status.unwrap_or_default();
    if status.authenticated != Some(true) {
        return Ok(None);
    }
    let user = status.user.unwrap_or_default();
    let Some(name) = user.username.filter(|n| !n.is_empty()) else {
        return Ok(None);
    };
    Ok(Some(Caller::authenticated(
        name,
        user.groups.unwrap_or_default(),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_scheme_is_case_insensitive_and_needs_a_token() {
        let headers = |v: &str| {
            let mut h = HeaderMap::new();
            h.insert(header::AUTHORIZATION, v.parse().unwrap());
            h
        };
        assert_eq!(bearer(&headers("Bearer abc")), Some("abc"));
        assert_eq!(bearer(&headers("bearer abc")), Some("abc"));
        assert_eq!(bearer(&headers("Basic abc")), None);
        assert_eq!(bearer(&headers("Bearer ")), None);
        assert_eq!(bearer(&HeaderMap::new()), None);
    }
}
