//! Authentication as the real server does it for our two credential types: a client certificate
//! signed by the cluster CA (CN = user, O = groups) or a bearer token (the admin token and those of
//! `--token-auth-file`). Anything else gets a 401 `metav1.Status`. Authorization of this server's
//! own requests is not modelled: every authenticated user may do everything; SubjectAccessReviews
//! are evaluated against the stored RBAC objects (see [`crate::rbac`]).

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use fake_tls::ClientIdentity;

use crate::status::ApiError;

/// A token user.
#[derive(Clone)]
pub struct TokenUser {
    /// The bearer token. Never logged.
    pub token: String,
    /// User name.
    pub user: String,
    /// Groups.
    pub groups: Vec<String>,
}

impl std::fmt::Debug for TokenUser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenUser")
            .field("user", &self.user)
            .field("token", &"<redacted>")
            .finish()
    }
}

/// Accepted tokens.
#[derive(Debug, Clone, Default)]
pub struct Authenticator {
    tokens: Arc<Vec<TokenUser>>,
}

/// The authenticated caller, attached to each request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    /// User name.
    pub name: String,
    /// Groups.
    pub groups: Vec<String>,
}

impl Authenticator {
    /// Accepts client certificates from the CA and these tokens.
    pub fn new(tokens: Vec<TokenUser>) -> Self {
        Self {
            tokens: Arc::new(tokens),
        }
    }

    fn authenticate(&self, request: &Request) -> Option<User> {
        if let Some(id) = request.extensions().get::<ClientIdentity>() {
            return Some(User {
                name: id.user.clone(),
                groups: id.groups.clone(),
            });
        }
        let value = request
            .headers()
            .get(header::AUTHORIZATION)?
            .to_str()
            .ok()?;
        let token = value
            .strip_prefix("Bearer ")
            .or_else(|| value.strip_prefix("bearer "))?
            .trim();
        self.token_user(token)
    }

    /// The user of a bearer token (what a TokenReview answers), `None` when unknown.
    pub fn token_user(&self, token: &str) -> Option<User> {
        self.tokens
            .iter()
            .find(|t| constant_time_eq(t.token.as_bytes(), token.as_bytes()))
            .map(|t| User {
                name: t.user.clone(),
                groups: t.groups.clone(),
            })
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Paths anyone may read (health and version), like the real default RBAC for unauthenticated users.
fn is_public(path: &str) -> bool {
    matches!(path, "/healthz" | "/livez" | "/readyz" | "/version")
}

/// Middleware: 401 unless the request carries a valid certificate or token.
pub async fn require(
    State(auth): State<Authenticator>,
    mut request: Request,
    next: Next,
) -> Response {
    if is_public(request.uri().path()) {
        return next.run(request).await;
    }
    match auth.authenticate(&request) {
        Some(user) => {
            request.extensions_mut().insert(user);
            next.run(request).await
        }
        None => ApiError::unauthorized().into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_matched_exactly_and_never_printed() {
        let auth = Authenticator::new(vec![TokenUser {
            token: "s3cret".into(),
            user: "u".into(),
            groups: vec![],
        }]);
        let req = |v: &str| {
            Request::builder()
                .uri("/api")
                .header(header::AUTHORIZATION, v)
                .body(axum::body::Body::empty())
                .unwrap()
        };
        assert_eq!(auth.authenticate(&req("Bearer s3cret")).unwrap().name, "u");
        assert!(auth.authenticate(&req("Bearer s3cre")).is_none());
        assert!(!format!("{auth:?}").contains("s3cret"));
    }
}
