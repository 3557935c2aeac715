//! Bearer-token check in front of every ARM call: a missing, malformed, forged, expired or
//! wrong-audience token gets ARM's 401 (`AuthenticationFailed`, `InvalidAuthenticationToken`,
//! `ExpiredAuthenticationToken`, `InvalidAuthenticationTokenAudience`) with `WWW-Authenticate`.
//! Tenant/subscription binding (`InvalidAuthenticationTokenTenant`) is not modelled.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use fake_arm::ArmError;
use fake_arm::error_codes::{self, ErrorCode};
use http::HeaderValue;

use crate::entra::{AuthError, TokenClaims, TokenIssuer, now_unix};
use crate::token_cache::TokenCache;

/// Audiences ARM accepts when the fake is not told otherwise (public cloud names).
pub const DEFAULT_ARM_AUDIENCES: [&str; 2] = [
    "https://management.core.windows.net/",
    "https://management.azure.com/",
];

/// The authenticated caller of an ARM request (request and response extension).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal(pub TokenClaims);

/// What the bearer check needs: the shared issuer, the accepted audiences and the tokens already
/// validated.
#[derive(Clone)]
pub struct ArmAuth {
    issuer: TokenIssuer,
    audiences: Arc<Vec<String>>,
    /// `audiences` lower-cased without trailing `/`, compared against each token's `aud`.
    normalized: Arc<Vec<String>>,
    validated: Arc<TokenCache>,
}

fn normalized_audience(audience: &str) -> String {
    audience.trim_end_matches('/').to_ascii_lowercase()
}

impl ArmAuth {
    /// Accepts tokens from `issuer` whose `aud` is one of `audiences` (trailing `/` ignored).
    pub fn new(issuer: TokenIssuer, audiences: Vec<String>) -> Self {
        Self {
            issuer,
            normalized: Arc::new(audiences.iter().map(|a| normalized_audience(a)).collect()),
            audiences: Arc::new(audiences),
            validated: Arc::new(TokenCache::default()),
        }
    }

    /// Validates the `Authorization` header value.
    pub fn check(&self, authorization: Option<&str>) -> Result<TokenClaims, ArmError> {
        let value = authorization.ok_or_else(|| {
            unauthorized(
                error_codes::AUTHENTICATION_FAILED,
                "Authentication failed. The 'Authorization' header is missing.",
                "The authentication failed because of missing 'Authorization' header.",
            )
        })?;
        let token = value
            .strip_prefix("Bearer ")
            .or_else(|| value.strip_prefix("bearer "))
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .ok_or_else(|| {
                unauthorized(
                    error_codes::AUTHENTICATION_FAILED,
                    "Authentication failed. The 'Authorization' header is provided in an invalid format.",
                    "The authentication failed because the 'Authorization' header is not a bearer token.",
                )
            })?;
        let claims = match self.validated.get(token, now_unix()) {
            Some(claims) => claims,
            None => {
                let claims = self.validate(token)?;
                self.validated.insert(token, &claims);
                claims
            }
        };
        let audience = normalized_audience(&claims.audience);
        if !self.normalized.contains(&audience) {
            let allowed = self
                .audiences
                .iter()
                .flat_map(|a| [format!("'{a}'"), format!("'{}'", a.trim_end_matches('/'))])
                .collect::<Vec<_>>()
                .join(",");
            return Err(unauthorized(
                error_codes::INVALID_AUTHENTICATION_TOKEN_AUDIENCE,
                &format!(
                    "The access token has been obtained for wrong audience or resource '{}'. It should exactly match with one of the allowed audiences {allowed}.",
                    claims.audience
                ),
                "The access token audience is invalid.",
            ));
        }
        Ok(claims)
    }

    /// Signature and claim checks, mapped to ARM's 401 codes.
    fn validate(&self, token: &str) -> Result<TokenClaims, ArmError> {
        self.issuer.validate(token).map_err(|e| match e {
            AuthError::Expired { expired_at } => unauthorized(
                error_codes::EXPIRED_AUTHENTICATION_TOKEN,
                &format!(
                    "The access token expiry UTC time '{}' is earlier than current UTC time '{}'.",
                    utc(expired_at),
                    utc(now_unix())
                ),
                "The access token has expired.",
            ),
            AuthError::Malformed(_) | AuthError::BadSignature | AuthError::NotYetValid { .. } => {
                unauthorized(
                    error_codes::INVALID_AUTHENTICATION_TOKEN,
                    "The access token is invalid.",
                    "The access token is invalid.",
                )
            }
        })
    }
}

fn unauthorized(code: ErrorCode, message: &str, description: &str) -> ArmError {
    ArmError::new(code, message).with_header(
        "www-authenticate",
        format!(
            "Bearer authorization_uri=\"https://login.microsoftonline.com/common\", error=\"invalid_token\", error_description=\"{description}\""
        ),
    )
}

fn utc(unix: i64) -> String {
    time::OffsetDateTime::from_unix_timestamp(unix)
        .map(|t| {
            format!(
                "{}/{}/{} {:02}:{:02}:{:02}",
                u8::from(t.month()),
                t.day(),
                t.year(),
                t.hour(),
                t.minute(),
                t.second()
            )
        })
        .unwrap_or_else(|_| unix.to_string())
}

/// Middleware: rejects unauthenticated ARM calls, tags the rest with their [`Principal`].
pub async fn layer(
    State(auth): State<ArmAuth>,
    mut request: Request<Body>,
    next: Next,
) -> Response {
    let header = request
        .headers()
        .get(http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok());
    match auth.check(header) {
        Ok(claims) => {
            let principal = Principal(claims);
            request.extensions_mut().insert(principal.clone());
            let mut response = next.run(request).await;
            response.extensions_mut().insert(principal);
            response
        }
        Err(error) => {
            let mut response = error.into_response();
            response
                .headers_mut()
                .insert("x-ms-failure-cause", HeaderValue::from_static("gateway"));
            response
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entra::TokenRequest;

    fn auth() -> (ArmAuth, TokenIssuer) {
        let issuer = TokenIssuer::from_key(&[1u8; 32], 3599);
        (
            ArmAuth::new(
                issuer.clone(),
                DEFAULT_ARM_AUDIENCES
                    .iter()
                    .map(|s| s.to_string())
                    .collect(),
            ),
            issuer,
        )
    }

    fn code(result: Result<TokenClaims, ArmError>) -> String {
        result.unwrap_err().code().to_string()
    }

    #[test]
    fn each_failure_has_its_arm_code() {
        let (auth, issuer) = auth();
        assert_eq!(code(auth.check(None)), "AuthenticationFailed");
        assert_eq!(code(auth.check(Some("Basic abc"))), "AuthenticationFailed");
        assert_eq!(
            code(auth.check(Some("Bearer junk"))),
            "InvalidAuthenticationToken"
        );
        let wrong_aud = issuer.issue("t", "c", "https://vault.azure.net/.default");
        assert_eq!(
            code(auth.check(Some(&format!("Bearer {}", wrong_aud.access_token)))),
            "InvalidAuthenticationTokenAudience"
        );
        let expired = issuer.issue_with(&TokenRequest {
            tenant_id: "t".into(),
            client_id: "c".into(),
            object_id: None,
            resource_or_scope: "https://management.azure.com/.default".into(),
            lifetime_secs: -5,
        });
        assert_eq!(
            code(auth.check(Some(&format!("Bearer {}", expired.access_token)))),
            "ExpiredAuthenticationToken"
        );
    }

    #[test]
    fn audiences_match_with_or_without_trailing_slash() {
        let (auth, issuer) = auth();
        for scope in [
            "https://management.azure.com/.default",
            "https://management.core.windows.net//.default",
            "https://management.azure.com",
        ] {
            let token = issuer.issue("t", "c", scope);
            assert!(
                auth.check(Some(&format!("Bearer {}", token.access_token)))
                    .is_ok(),
                "{scope}"
            );
        }
    }

    #[test]
    fn validated_tokens_are_remembered_until_they_expire() {
        let (auth, issuer) = auth();
        let token = issuer
            .issue("t", "c", "https://management.azure.com/.default")
            .access_token;
        let header = format!("Bearer {token}");
        let first = auth.check(Some(&header)).unwrap();
        assert_eq!(auth.validated.get(&token, now_unix()), Some(first.clone()));
        assert_eq!(auth.check(Some(&header)).unwrap(), first);
        assert_eq!(
            auth.validated.get(&token, first.expires_on),
            None,
            "an expired token goes through full validation again"
        );
        let mut forged = token.clone();
        forged.push('x');
        assert_eq!(
            code(auth.check(Some(&format!("Bearer {forged}")))),
            "InvalidAuthenticationToken"
        );
        assert_eq!(auth.validated.get(&forged, now_unix()), None);
    }

    #[test]
    fn errors_carry_www_authenticate() {
        let (auth, _) = auth();
        let error = auth.check(None).unwrap_err();
        assert!(
            error
                .headers()
                .iter()
                .any(|(name, value)| *name == "www-authenticate" && value.starts_with("Bearer "))
        );
    }
}
