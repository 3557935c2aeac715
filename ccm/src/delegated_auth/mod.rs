//! Delegated authentication and authorization of the secure port of both binaries, as
//! k8s.io/apiserver's `DelegatingAuthenticationOptions`/`DelegatingAuthorizationOptions` with
//! `RemoteKubeConfigFileOptional` (how k8s.io/cloud-provider and cloud-node-manager use them):
//!
//! - callers: a client certificate signed by the client CA ([`client_ca`]), else a bearer token
//!   checked with a TokenReview, else `system:anonymous`; a token that does not authenticate is a
//!   401 (never anonymous);
//! - decisions: `system:masters` and `--authorization-always-allow-paths` (default
//!   `/healthz,/readyz,/livez`, exact or `*`-prefix) are allowed, anything else is decided by a
//!   SubjectAccessReview (non-resource path, lower-cased method as verb): 403 when denied, 500 when
//!   the review fails;
//! - clients: `--authentication-kubeconfig` / `--authorization-kubeconfig`, else the in-cluster
//!   configuration; outside a cluster without them there is no reviewer (bearer tokens are not
//!   looked at and only the always-allowed paths are served), with a warning. The main
//!   `--kubeconfig` is not used for delegation (upstream `getClient` falls back to in-cluster only).
//! - answers cached per token (`--authentication-token-webhook-cache-ttl`) and per
//!   user/groups/verb/path (`--authorization-webhook-cache-{authorized,unauthorized}-ttl`);
//!   review failures are not cached.
//!
//! No credential is logged: tokens stay in the cache's memory, log lines name users and paths.

pub mod args;
mod authenticate;
mod authorize;
mod cache;
pub mod client_ca;
mod response;

pub use args::DelegatedAuthArgs;
pub use authenticate::{Authenticator, Caller, Unauthenticated};
pub use authorize::{Authorizer, Decision};

use std::path::PathBuf;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;

use crate::https_server::ClientCertificate;

/// Why delegated authn/z could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum DelegatedAuthError {
    /// A delegation kubeconfig is unusable.
    #[error("{flag} {}: cannot build a client", path.display())]
    Client {
        /// `--authentication-kubeconfig` or `--authorization-kubeconfig`.
        flag: &'static str,
        /// The file.
        path: PathBuf,
        /// Why.
        source: crate::kube_client::KubeClientError,
    },
    /// `--client-ca-file` cannot be read.
    #[error("--client-ca-file {}: cannot read", path.display())]
    ClientCaFile {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The client CA bundle holds no usable certificate.
    #[error("client CA from {origin}: {reason}")]
    ClientCa {
        /// `--client-ca-file <path>` or the ConfigMap.
        origin: String,
        /// What is wrong.
        reason: String,
    },
    /// The ConfigMap lookup failed (and `--authentication-tolerate-lookup-failure` is off).
    #[error(
        "unable to read configmap {}/{} for the client CA (set --authentication-skip-lookup or --authentication-tolerate-lookup-failure to start without it)",
        client_ca::NAMESPACE,
        client_ca::CONFIG_MAP
    )]
    Lookup(#[source] kube::Error),
}

/// The authenticator, the authorizer and the client CA of one secure port.
pub struct DelegatedAuth {
    /// Who is calling.
    pub authenticator: Authenticator,
    /// Whether they may.
    pub authorizer: Authorizer,
    /// Roots of the accepted client certificates (the TLS config must request them).
    pub client_ca: Option<rustls::RootCertStore>,
}

/// The delegation client of `flag`: the file, else in-cluster, else none.
async fn client(
    flag: &'static str,
    path: Option<&std::path::Path>,
) -> Result<Option<kube::Client>, DelegatedAuthError> {
    if let Some(path) = path.filter(|p| !p.as_os_str().is_empty()) {
        let client = crate::kube_client::build(Some(path), None, None)
            .await
            .map_err(|source| DelegatedAuthError::Client {
                flag,
                path: path.to_owned(),
                source,
            })?;
        return Ok(Some(client));
    }
    let config = match kube::Config::incluster() {
        Ok(config) => config,
        Err(error) => {
            let what = if flag == "--authentication-kubeconfig" {
                "bearer tokens are not checked and client certificates only with --client-ca-file"
            } else {
                "only --authorization-always-allow-paths are served"
            };
            tracing::warn!(%error, "no {flag} and no in-cluster configuration: {what}");
            return Ok(None);
        }
    };
    match kube::Client::try_from(config) {
        Ok(client) => Ok(Some(client)),
        Err(error) => {
            tracing::warn!(%error, "{flag}: the in-cluster client cannot be built");
            Ok(None)
        }
    }
}

impl DelegatedAuth {
    /// Builds both halves from the flags (reads the client CA once).
    pub async fn from_args(args: &DelegatedAuthArgs) -> Result<Self, DelegatedAuthError> {
        let authn_client = client(
            "--authentication-kubeconfig",
            args.authentication_kubeconfig.as_deref(),
        )
        .await?;
        let authz_client = client(
            "--authorization-kubeconfig",
            args.authorization_kubeconfig.as_deref(),
        )
        .await?;
        let client_ca = match (&args.client_ca_file, &authn_client) {
            (Some(path), _) if !path.as_os_str().is_empty() => {
                let pem = client_ca::from_file(path)?;
                Some(client_ca::roots(
                    &pem,
                    &format!("--client-ca-file {}", path.display()),
                )?)
            }
            (_, Some(c)) if !args.authentication_skip_lookup => match client_ca::lookup(c).await {
                Ok(Some(pem)) => Some(client_ca::roots(&pem, client_ca::CONFIG_MAP)?),
                Ok(None) => None,
                Err(error) if args.authentication_tolerate_lookup_failure => {
                    tracing::warn!(%error, "continuing without the client CA of the cluster");
                    None
                }
                Err(error) => return Err(error),
            },
            _ => None,
        };
        Ok(Self {
            authenticator: Authenticator::new(
                authn_client,
                args.authentication_token_webhook_cache_ttl,
            ),
            authorizer: Authorizer::new(
                &args.authorization_always_allow_paths,
                authz_client,
                args.authorization_webhook_cache_authorized_ttl,
                args.authorization_webhook_cache_unauthorized_ttl,
            ),
            client_ca,
        })
    }
}

/// Middleware: authenticate, authorize, then serve (401/403/500 otherwise).
pub async fn guard(
    State(auth): State<Arc<DelegatedAuth>>,
    request: Request,
    next: Next,
) -> Response {
    let path = request.uri().path().to_string();
    let verb = request.method().as_str().to_ascii_lowercase();
    let cert = request.extensions().get::<ClientCertificate>();
    let caller = match auth
        .authenticator
        .authenticate(request.headers(), cert)
        .await
    {
        Ok(caller) => caller,
        Err(Unauthenticated::InvalidToken) => {
            tracing::debug!(%path, "secure port: the bearer token did not authenticate");
            return response::unauthorized();
        }
        Err(Unauthenticated::ReviewFailed(error)) => {
            tracing::warn!(%path, %error, "secure port: TokenReview failed");
            return response::unauthorized();
        }
    };
    match auth.authorizer.authorize(&caller, &verb, &path).await {
        Decision::Allow => next.run(request).await,
        Decision::Deny(reason) => {
            tracing::debug!(user = %caller.name, %verb, %path, %reason, "secure port: forbidden");
            response::forbidden(&caller.name, &verb, &path, &reason)
        }
        Decision::Error(error) => {
            tracing::warn!(user = %caller.name, %path, %error, "secure port: SubjectAccessReview failed");
            response::internal_error(&error)
        }
    }
}

/// `router` behind [`guard`].
pub fn protect(router: axum::Router, auth: Arc<DelegatedAuth>) -> axum::Router {
    router.layer(axum::middleware::from_fn_with_state(auth, guard))
}
