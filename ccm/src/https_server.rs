//! HTTPS accept loop serving an axum router (the secure port of the manager binaries). A client
//! certificate the TLS layer verified is handed to the router as a [`ClientCertificate`]
//! request extension.

use std::future::Future;
use std::sync::Arc;

use axum::Router;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo};
use prometheus_client::registry::Registry;
use tokio::net::TcpListener;
use tokio::task::JoinSet;
use tokio_rustls::TlsAcceptor;
use tower::ServiceExt;

/// The leaf certificate a client presented and the TLS layer verified against the client CA.
#[derive(Debug, Clone)]
pub struct ClientCertificate(pub rustls::pki_types::CertificateDer<'static>);

/// Serves `router` over TLS on `listener` until `shutdown` resolves, then cuts open connections.
pub async fn serve(
    listener: TcpListener,
    tls: Arc<rustls::ServerConfig>,
    router: Router,
    shutdown: impl Future<Output = ()>,
) {
    let acceptor = TlsAcceptor::from(tls);
    let mut connections = JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => {
                let stream = match accepted {
                    Ok((stream, _)) => stream,
                    Err(error) => {
                        // Per-connection accept errors (e.g. EMFILE) must not stop the server.
                        tracing::warn!(%error, "secure port: accept failed");
                        continue;
                    }
                };
                let acceptor = acceptor.clone();
                let router = router.clone();
                connections.spawn(async move { connection(acceptor, stream, router).await });
            }
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    connections.abort_all();
    while connections.join_next().await.is_some() {}
}

async fn connection(acceptor: TlsAcceptor, stream: tokio::net::TcpStream, router: Router) {
    let tls = match acceptor.accept(stream).await {
        Ok(tls) => tls,
        Err(error) => {
            tracing::debug!(%error, "secure port: TLS handshake failed");
            return;
        }
    };
    let peer = tls
        .get_ref()
        .1
        .peer_certificates()
        .and_then(|chain| chain.first())
        .map(|leaf| ClientCertificate(leaf.clone().into_owned()));
    let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
        if let Some(peer) = &peer {
            request.extensions_mut().insert(peer.clone());
        }
        router.clone().oneshot(request)
    });
    let builder = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
    if let Err(error) = builder.serve_connection(TokioIo::new(tls), service).await {
        tracing::debug!(%error, "secure port: connection ended with an error");
    }
}

/// `/metrics`: the registry in the OpenMetrics text format `prometheus_client` encodes.
pub fn metrics_response(registry: &Registry) -> Response {
    let mut text = String::new();
    match prometheus_client::encoding::text::encode(&mut text, registry) {
        Ok(()) => (
            [(
                header::CONTENT_TYPE,
                "application/openmetrics-text; version=1.0.0; charset=utf-8",
            )],
            text,
        )
            .into_response(),
        Err(error) => (StatusCode::INTERNAL_SERVER_ERROR, error.to_string()).into_response(),
    }
}
