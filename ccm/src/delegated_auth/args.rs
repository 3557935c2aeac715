//! The delegated authentication and authorization flags of both binaries, with the names and
//! defaults of k8s.io/apiserver's `DelegatingAuthenticationOptions` and
//! `DelegatingAuthorizationOptions` (`pkg/server/options/authentication.go`, `authorization.go`):
//! cache TTLs 10s, always-allowed paths `/healthz,/readyz,/livez`.

use std::path::PathBuf;
use std::time::Duration;

use clap::{ArgAction, Args};

use crate::go_duration;

fn duration(text: &str) -> Result<Duration, String> {
    go_duration::parse(text).map_err(|e| e.to_string())
}

/// `--authentication-*`, `--client-ca-file` and `--authorization-*`.
#[derive(Debug, Clone, Args)]
pub struct DelegatedAuthArgs {
    /// Kubeconfig for TokenReviews (and the client CA lookup) on the secure port; without it the
    /// in-cluster configuration is used, and outside a cluster only anonymous requests remain.
    #[arg(long, value_name = "FILE")]
    pub authentication_kubeconfig: Option<PathBuf>,

    /// How long TokenReview answers are cached.
    #[arg(long, value_parser = duration, default_value = "10s", value_name = "DURATION")]
    pub authentication_token_webhook_cache_ttl: Duration,

    /// Do not read the client CA from the kube-system/extension-apiserver-authentication ConfigMap.
    #[arg(long, action = ArgAction::Set, num_args = 0..=1, require_equals = true,
          default_value = "false", default_missing_value = "true", value_name = "BOOL")]
    pub authentication_skip_lookup: bool,

    /// Start anyway when that ConfigMap cannot be read.
    #[arg(long, action = ArgAction::Set, num_args = 0..=1, require_equals = true,
          default_value = "false", default_missing_value = "true", value_name = "BOOL")]
    pub authentication_tolerate_lookup_failure: bool,

    /// CA bundle (PEM) of the client certificates accepted on the secure port (CN = user,
    /// O = groups).
    #[arg(long, value_name = "FILE")]
    pub client_ca_file: Option<PathBuf>,

    /// Kubeconfig for SubjectAccessReviews on the secure port; without it the in-cluster
    /// configuration is used, and outside a cluster only the always-allowed paths are served.
    #[arg(long, value_name = "FILE")]
    pub authorization_kubeconfig: Option<PathBuf>,

    /// How long allowed SubjectAccessReview answers are cached.
    #[arg(long, value_parser = duration, default_value = "10s", value_name = "DURATION")]
    pub authorization_webhook_cache_authorized_ttl: Duration,

    /// How long denied SubjectAccessReview answers are cached.
    #[arg(long, value_parser = duration, default_value = "10s", value_name = "DURATION")]
    pub authorization_webhook_cache_unauthorized_ttl: Duration,

    /// Paths served without authorization (exact, or a prefix ending in `*`).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "/healthz,/readyz,/livez",
        value_name = "PATHS"
    )]
    pub authorization_always_allow_paths: Vec<String>,
}
