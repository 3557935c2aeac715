//! Mints and validates the fake's access tokens. One issuer is shared by the token endpoint, the
//! IMDS managed-identity endpoint and the ARM bearer check, so a token from any of them works on ARM.
//!
//! Tokens are real JWTs (v1 access-token claims: `aud`, `iss`, `tid`, `appid`, `oid`, `iat`, `nbf`,
//! `exp`) signed with HS256 under a per-installation key. Entra signs with RS256 and publishes JWKS;
//! the fake uses HMAC because only the fake itself validates its tokens and HMAC keeps the ARM hot
//! path cheap (a few microseconds per request).

use std::path::Path;
use std::sync::Arc;

use ring::hmac;
use ring::rand::{SecureRandom, SystemRandom};
use serde_json::{Value, json};

use super::jwt::{self, Jwt};
use crate::stable_guid::stable_guid;

/// Default token lifetime in seconds (Entra's usual value, what azure_identity expects).
pub const DEFAULT_LIFETIME_SECS: i64 = 3599;
/// File (next to the CA) holding the signing key, so a restarted fake still accepts tokens that
/// running clients have cached.
const KEY_FILE: &str = "token-signing.key";
/// Allowed clock skew when checking `nbf`.
const SKEW_SECS: i64 = 300;

/// Why a bearer token is not accepted; the ARM layer maps each to its ARM error code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    /// Not a JWT, wrong algorithm, or claims missing.
    #[error("the access token is malformed: {0}")]
    Malformed(String),
    /// Signature does not verify under this installation's key.
    #[error("the access token signature is invalid")]
    BadSignature,
    /// `exp` is in the past.
    #[error("the access token expired at {expired_at}")]
    Expired {
        /// Unix seconds of `exp`.
        expired_at: i64,
    },
    /// `nbf` is in the future (beyond the allowed skew).
    #[error("the access token is not valid before {not_before}")]
    NotYetValid {
        /// Unix seconds of `nbf`.
        not_before: i64,
    },
}

/// Failure to load or persist the signing key.
#[derive(Debug, thiserror::Error)]
pub enum IssuerError {
    /// Reading or writing the key file failed.
    #[error("token signing key {path}: {source}")]
    Io {
        /// Key file path.
        path: std::path::PathBuf,
        /// Underlying error.
        source: std::io::Error,
    },
    /// The key file does not hold a hex key of at least 32 bytes.
    #[error("token signing key {path}: expected at least 64 hex characters")]
    BadKey {
        /// Key file path.
        path: std::path::PathBuf,
    },
    /// The system random generator failed.
    #[error("cannot generate a token signing key")]
    Random,
}

/// What a token is for; everything else is derived.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenRequest {
    /// Directory (tenant) id.
    pub tenant_id: String,
    /// Application (client) id of the caller.
    pub client_id: String,
    /// Object id of the service principal / managed identity; derived from tenant + client when `None`.
    pub object_id: Option<String>,
    /// Resource (`https://management.azure.com/`) or scope (`https://management.azure.com/.default`).
    pub resource_or_scope: String,
    /// Lifetime in seconds; negative values mint already-expired tokens (for tests).
    pub lifetime_secs: i64,
}

/// A freshly minted token with the numbers both the v2 endpoint and IMDS report.
#[derive(Clone, PartialEq, Eq)]
pub struct IssuedToken {
    /// The JWT. Never log it.
    pub access_token: String,
    /// Always `Bearer`.
    pub token_type: &'static str,
    /// Seconds until expiry.
    pub expires_in: i64,
    /// Unix seconds of expiry.
    pub expires_on: i64,
    /// Unix seconds the token becomes valid.
    pub not_before: i64,
    /// Resource the token is for (scope without `/.default`).
    pub resource: String,
    /// Client id the token was issued to.
    pub client_id: String,
}

impl std::fmt::Debug for IssuedToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IssuedToken")
            .field("access_token", &"<redacted>")
            .field("expires_on", &self.expires_on)
            .field("resource", &self.resource)
            .field("client_id", &self.client_id)
            .finish()
    }
}

/// Claims of a validated token: who called (throttling and journal key on these) and for what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenClaims {
    /// `tid`.
    pub tenant_id: String,
    /// `appid`.
    pub client_id: String,
    /// `oid`.
    pub object_id: String,
    /// `aud`.
    pub audience: String,
    /// `exp`, unix seconds.
    pub expires_on: i64,
}

/// Cloneable token minter/validator shared by every endpoint of one fake cloud.
#[derive(Clone)]
pub struct TokenIssuer {
    inner: Arc<Inner>,
}

struct Inner {
    key: hmac::Key,
    lifetime_secs: i64,
}

impl std::fmt::Debug for TokenIssuer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenIssuer")
            .field("lifetime_secs", &self.inner.lifetime_secs)
            .finish_non_exhaustive()
    }
}

impl TokenIssuer {
    /// Issuer with a caller-provided key (tests, benchmarks).
    pub fn from_key(key: &[u8], lifetime_secs: i64) -> Self {
        Self {
            inner: Arc::new(Inner {
                key: hmac::Key::new(hmac::HMAC_SHA256, key),
                lifetime_secs,
            }),
        }
    }

    /// Issuer with a fresh random key that lives only in memory.
    pub fn generate(lifetime_secs: i64) -> Result<Self, IssuerError> {
        Ok(Self::from_key(&random_key()?, lifetime_secs))
    }

    /// Loads the key from `dir/token-signing.key` or creates it (mode 0600), so restarts keep tokens valid.
    pub fn load_or_create(dir: &Path, lifetime_secs: i64) -> Result<Self, IssuerError> {
        let path = dir.join(KEY_FILE);
        let io = |source| IssuerError::Io {
            path: path.clone(),
            source,
        };
        if path.exists() {
            let text = std::fs::read_to_string(&path).map_err(io)?;
            let key = hex::decode(text.trim()).ok().filter(|k| k.len() >= 32);
            let key = key.ok_or_else(|| IssuerError::BadKey { path: path.clone() })?;
            return Ok(Self::from_key(&key, lifetime_secs));
        }
        let key = random_key()?;
        std::fs::create_dir_all(dir).map_err(|source| IssuerError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        write_private(&path, &hex::encode(&key)).map_err(io)?;
        Ok(Self::from_key(&key, lifetime_secs))
    }

    /// Lifetime given to tokens by [`TokenIssuer::issue`].
    pub fn lifetime_secs(&self) -> i64 {
        self.inner.lifetime_secs
    }

    /// Mints a token for `client_id` in `tenant_id` for a resource or `.default` scope.
    pub fn issue(&self, tenant_id: &str, client_id: &str, resource_or_scope: &str) -> IssuedToken {
        self.issue_with(&TokenRequest {
            tenant_id: tenant_id.to_string(),
            client_id: client_id.to_string(),
            object_id: None,
            resource_or_scope: resource_or_scope.to_string(),
            lifetime_secs: self.inner.lifetime_secs,
        })
    }

    /// Mints a token with every field chosen by the caller.
    pub fn issue_with(&self, request: &TokenRequest) -> IssuedToken {
        let now = now_unix();
        let resource = resource_of(&request.resource_or_scope);
        let object_id = request
            .object_id
            .clone()
            .unwrap_or_else(|| derived_object_id(&request.tenant_id, &request.client_id));
        let expires_on = now + request.lifetime_secs;
        let not_before = now.min(expires_on) - 1;
        let claims = json!({
            "aud": resource,
            "iss": format!("https://sts.windows.net/{}/", request.tenant_id),
            "iat": not_before,
            "nbf": not_before,
            "exp": expires_on,
            "appid": request.client_id,
            "appidacr": "1",
            "idtyp": "app",
            "oid": object_id,
            "sub": object_id,
            "tid": request.tenant_id,
            "ver": "1.0",
        });
        let input = jwt::signing_input(&json!({"alg": "HS256", "typ": "JWT"}), &claims);
        let tag = hmac::sign(&self.inner.key, input.as_bytes());
        IssuedToken {
            access_token: jwt::assemble(&input, tag.as_ref()),
            token_type: "Bearer",
            expires_in: request.lifetime_secs,
            expires_on,
            not_before,
            resource,
            client_id: request.client_id.clone(),
        }
    }

    /// Checks signature and time window of a bearer token and returns its claims.
    pub fn validate(&self, bearer: &str) -> Result<TokenClaims, AuthError> {
        let token = Jwt::parse(bearer).map_err(|e| AuthError::Malformed(e.to_string()))?;
        if token.header_str("alg") != Some("HS256") {
            return Err(AuthError::Malformed("unsupported signing algorithm".into()));
        }
        hmac::verify(
            &self.inner.key,
            token.signing_input.as_bytes(),
            &token.signature,
        )
        .map_err(|_| AuthError::BadSignature)?;
        let field = |name: &str| {
            token
                .claim_str(name)
                .map(str::to_string)
                .ok_or_else(|| AuthError::Malformed(format!("claim '{name}' missing")))
        };
        let expires_on = token
            .claim_time("exp")
            .ok_or_else(|| AuthError::Malformed("claim 'exp' missing".into()))?;
        let now = now_unix();
        if expires_on <= now {
            return Err(AuthError::Expired {
                expired_at: expires_on,
            });
        }
        if let Some(not_before) = token.claim_time("nbf").filter(|nbf| *nbf > now + SKEW_SECS) {
            return Err(AuthError::NotYetValid { not_before });
        }
        Ok(TokenClaims {
            tenant_id: field("tid")?,
            client_id: field("appid")?,
            object_id: field("oid")?,
            audience: field("aud")?,
            expires_on,
        })
    }
}

/// Resource a scope names: `https://x/.default` -> `https://x/`; a bare resource is kept.
pub fn resource_of(resource_or_scope: &str) -> String {
    let first = resource_or_scope
        .split_whitespace()
        .next()
        .unwrap_or_default();
    match first.strip_suffix(".default") {
        Some(base) if base.ends_with("//") => base[..base.len() - 1].to_string(),
        Some(base) => base.to_string(),
        None => first.to_string(),
    }
}

/// Stable object id for a principal that the registry gives none: the same app always gets the same
/// oid, as in a real tenant.
pub fn derived_object_id(tenant_id: &str, client_id: &str) -> String {
    stable_guid(&format!(
        "oid:{}:{}",
        tenant_id.to_ascii_lowercase(),
        client_id.to_ascii_lowercase()
    ))
}

/// Current unix time in seconds.
pub fn now_unix() -> i64 {
    time::OffsetDateTime::now_utc().unix_timestamp()
}

fn random_key() -> Result<Vec<u8>, IssuerError> {
    let mut key = vec![0u8; 32];
    SystemRandom::new()
        .fill(&mut key)
        .map_err(|_| IssuerError::Random)?;
    Ok(key)
}

fn write_private(path: &Path, contents: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)?.write_all(contents.as_bytes())
}

/// Claims of a token as JSON (admin API answers; never contains the token itself).
pub fn claims_json(claims: &TokenClaims) -> Value {
    json!({
        "tenantId": claims.tenant_id,
        "clientId": claims.client_id,
        "objectId": claims.object_id,
        "audience": claims.audience,
        "expiresOn": claims.expires_on,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn issuer() -> TokenIssuer {
        TokenIssuer::from_key(&[7u8; 32], 3599)
    }

    #[test]
    fn issued_tokens_validate_with_their_claims() {
        let t = issuer().issue("tenant-1", "app-1", "https://management.azure.com/.default");
        assert_eq!(t.resource, "https://management.azure.com/");
        assert_eq!(t.expires_in, 3599);
        let claims = issuer().validate(&t.access_token).unwrap();
        assert_eq!(claims.tenant_id, "tenant-1");
        assert_eq!(claims.client_id, "app-1");
        assert_eq!(claims.audience, "https://management.azure.com/");
        assert_eq!(claims.object_id, derived_object_id("tenant-1", "app-1"));
    }

    #[test]
    fn other_keys_and_tampering_are_rejected() {
        let t = issuer().issue("t", "a", "https://management.azure.com/");
        let other = TokenIssuer::from_key(&[8u8; 32], 3599);
        assert_eq!(
            other.validate(&t.access_token),
            Err(AuthError::BadSignature)
        );
        let mut tampered = t.access_token.clone();
        tampered.pop();
        tampered.push(if t.access_token.ends_with('A') {
            'B'
        } else {
            'A'
        });
        assert!(issuer().validate(&tampered).is_err());
        assert!(matches!(
            issuer().validate("nope"),
            Err(AuthError::Malformed(_))
        ));
    }

    #[test]
    fn expired_tokens_are_rejected() {
        let t = issuer().issue_with(&TokenRequest {
            tenant_id: "t".into(),
            client_id: "a".into(),
            object_id: None,
            resource_or_scope: "https://management.azure.com/".into(),
            lifetime_secs: -10,
        });
        assert!(matches!(
            issuer().validate(&t.access_token),
            Err(AuthError::Expired { .. })
        ));
    }

    #[test]
    fn scopes_map_to_resources() {
        assert_eq!(
            resource_of("https://management.azure.com/.default"),
            "https://management.azure.com/"
        );
        assert_eq!(
            resource_of("https://management.core.windows.net//.default"),
            "https://management.core.windows.net/"
        );
        assert_eq!(
            resource_of("https://management.azure.com"),
            "https://management.azure.com"
        );
        assert_eq!(resource_of("api://x/.default other"), "api://x/");
    }

    #[test]
    fn key_file_is_reused_and_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let a = TokenIssuer::load_or_create(dir.path(), 3599).unwrap();
        let b = TokenIssuer::load_or_create(dir.path(), 3599).unwrap();
        let t = a.issue("t", "c", "https://management.azure.com/");
        assert!(b.validate(&t.access_token).is_ok());
        let mode = std::fs::metadata(dir.path().join(KEY_FILE))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn debug_hides_the_token() {
        let t = issuer().issue("t", "c", "r");
        assert!(!format!("{t:?}").contains(&t.access_token));
    }
}
