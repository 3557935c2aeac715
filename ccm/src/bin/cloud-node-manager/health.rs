//! The secure port of cloud-node-manager (off unless `--secure-port` is set, as upstream):
//! `/healthz` with a ping check named after the node, `/livez`, `/readyz`, and `/metrics` (the
//! node controller's metrics), behind the same delegated authn/z as the CCM's (upstream's
//! `CloudNodeManagerOptions` has `DelegatingAuthenticationOptions`/`DelegatingAuthorizationOptions`
//! with optional kubeconfigs and the default always-allowed paths).

use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::Context;
use axum::Router;
use axum::extract::State;
use axum::response::Response;
use axum::routing::get;
use azure_ccm::delegated_auth::{self, DelegatedAuth};
use azure_ccm::serving_cert::CertSource;
use prometheus_client::registry::Registry;

use crate::flags::Flags;

/// The upstream pair name of a generated certificate in `--cert-dir`.
const CERT_PAIR_NAME: &str = "cloud-node-manager";

/// The certificate source of the serving flags; `None` when `--secure-port=0`.
fn source(flags: &Flags) -> Option<CertSource> {
    (flags.secure_port != 0).then(|| CertSource {
        cert_file: flags.tls_cert_file.clone(),
        key_file: flags.tls_private_key_file.clone(),
        cert_dir: flags.cert_dir.clone(),
        pair_name: CERT_PAIR_NAME.to_owned(),
    })
}

/// The TLS configuration of the serving flags (validated early); `None` when `--secure-port=0`.
pub fn tls(flags: &Flags) -> anyhow::Result<Option<Arc<rustls::ServerConfig>>> {
    Ok(source(flags).map(|s| s.server_config()).transpose()?)
}

async fn ok() -> &'static str {
    "ok"
}

async fn metrics(State(registry): State<Arc<Registry>>) -> Response {
    azure_ccm::https_server::metrics_response(&registry)
}

/// Binds the secure port and serves until the returned sender is dropped or set.
pub async fn serve(
    flags: &Flags,
    tls: Arc<rustls::ServerConfig>,
    node_name: &str,
    registry: Registry,
) -> anyhow::Result<tokio::sync::watch::Sender<bool>> {
    let auth = Arc::new(
        DelegatedAuth::from_args(&flags.auth)
            .await
            .context("delegated authentication/authorization of the secure port")?,
    );
    let tls = match (&auth.client_ca, source(flags)) {
        (Some(roots), Some(source)) => source.server_config_with_client_ca(Some(roots.clone()))?,
        _ => tls,
    };
    let addr = SocketAddr::new(flags.bind_address, flags.secure_port);
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("--bind-address/--secure-port {addr}: cannot listen"))?;
    let router = Router::new()
        .route("/healthz", get(ok))
        .route("/healthz/ping", get(ok))
        .route(&format!("/healthz/{node_name}"), get(ok))
        .route("/livez", get(ok))
        .route("/readyz", get(ok))
        .route("/metrics", get(metrics))
        .with_state(Arc::new(registry));
    let router = delegated_auth::protect(router, auth);
    let (stop, mut stopped) = tokio::sync::watch::channel(false);
    tokio::spawn(async move {
        let shutdown = async move {
            let _ = stopped.wait_for(|s| *s).await;
        };
        azure_ccm::https_server::serve(listener, tls, router, shutdown).await;
    });
    tracing::info!(%addr, "serving /healthz, /livez, /readyz and /metrics over HTTPS");
    Ok(stop)
}
