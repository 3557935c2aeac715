//! The stand-in's secure port: `/healthz`, `/livez` and `/readyz` over HTTPS with a self-signed
//! certificate, as kube-controller-manager serves them on 10257 (anonymous: they are in its
//! `--authorization-always-allow-paths`). The harness decides a stand-in is up the way it decides
//! any manager is: by `/healthz`, never by its log.

use std::net::{IpAddr, SocketAddr};

use anyhow::Context;
use axum::Router;
use axum::routing::get;
use azure_ccm::serving_cert::CertSource;
use tokio::sync::watch;

async fn ok() -> &'static str {
    "ok"
}

/// Binds `address:port` and serves until the returned sender is dropped; `None` for port 0.
pub async fn serve(address: IpAddr, port: u16) -> anyhow::Result<Option<watch::Sender<bool>>> {
    if port == 0 {
        return Ok(None);
    }
    let tls = CertSource {
        cert_file: None,
        key_file: None,
        cert_dir: None,
        pair_name: "kube-controller-manager".to_owned(),
    }
    .server_config()
    .context("the secure port's self-signed certificate")?;
    let addr = SocketAddr::new(address, port);
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("--bind-address/--secure-port {addr}: cannot listen"))?;
    let router = Router::new()
        .route("/healthz", get(ok))
        .route("/livez", get(ok))
        .route("/readyz", get(ok));
    let (stop, mut stopped) = watch::channel(false);
    tokio::spawn(async move {
        let shutdown = async move {
            let _ = stopped.wait_for(|s| *s).await;
        };
        azure_ccm::https_server::serve(listener, tls, router, shutdown).await;
    });
    tracing::info!(%addr, "serving /healthz, /livez and /readyz over HTTPS");
    Ok(Some(stop))
}
