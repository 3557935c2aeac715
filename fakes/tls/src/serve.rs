//! HTTPS accept loop that hands each request to an axum router, tagged with the client
//! certificate identity, and that can drop a connection on purpose for fault injection.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio_rustls::TlsAcceptor;
use tower::ServiceExt;

use crate::ClientIdentity;

/// Response extension: when a handler or layer sets it, the answer is cut instead of sent (fault
/// injection): an HTTP/2 client sees its stream reset with `INTERNAL_ERROR`, an HTTP/1.1 client the
/// connection closed without TLS `close_notify` (an unexpected EOF); neither is a TCP reset.
#[derive(Debug, Clone, Copy)]
pub struct AbortConnection;

#[derive(Debug)]
struct ConnectionAborted;

impl std::fmt::Display for ConnectionAborted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("connection aborted on purpose")
    }
}

impl std::error::Error for ConnectionAborted {}

/// Serves `router` over TLS on `listener` until `shutdown` resolves; open connections (watches
/// included) are cut at shutdown so a restart looks like a real server going away.
pub async fn serve_https(
    listener: TcpListener,
    tls: Arc<rustls::ServerConfig>,
    router: Router,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let acceptor = TlsAcceptor::from(tls);
    let mut connections = JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => {
                let (stream, peer) = match accepted {
                    Ok(pair) => pair,
                    Err(error) => {
                        // Per-connection accept errors (e.g. EMFILE) must not stop the server.
                        tracing::warn!(%error, "accept failed");
                        continue;
                    }
                };
                let acceptor = acceptor.clone();
                let router = router.clone();
                connections.spawn(async move { serve_connection(acceptor, stream, peer, router).await });
            }
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    connections.abort_all();
    while connections.join_next().await.is_some() {}
    Ok(())
}

async fn serve_connection(
    acceptor: TlsAcceptor,
    stream: tokio::net::TcpStream,
    peer: SocketAddr,
    router: Router,
) {
    let _ = stream.set_nodelay(true);
    let tls_stream = match acceptor.accept(stream).await {
        Ok(s) => s,
        Err(error) => {
            tracing::debug!(%error, %peer, "TLS handshake failed");
            return;
        }
    };
    let identity = tls_stream
        .get_ref()
        .1
        .peer_certificates()
        .and_then(|chain| chain.first())
        .and_then(ClientIdentity::from_der);
    let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
        let router = router.clone();
        if let Some(identity) = &identity {
            request.extensions_mut().insert(identity.clone());
        }
        request.extensions_mut().insert(ConnectInfo(peer));
        async move {
            let response = match router.oneshot(request).await {
                Ok(response) => response,
                Err(never) => match never {},
            };
            if response.extensions().get::<AbortConnection>().is_some() {
                return Err(ConnectionAborted);
            }
            Ok(response)
        }
    });
    let builder = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
    if let Err(error) = builder
        .serve_connection_with_upgrades(TokioIo::new(tls_stream), service)
        .await
    {
        tracing::debug!(%error, %peer, "connection ended with an error");
    }
}

/// A running HTTPS server with its address and a handle to stop it.
#[derive(Debug)]
pub struct HttpsServer {
    local_addr: SocketAddr,
    stop: watch::Sender<bool>,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl HttpsServer {
    /// Binds `addr` (port 0 picks a free port) and serves `router` in a background task.
    pub async fn start(
        addr: SocketAddr,
        tls: Arc<rustls::ServerConfig>,
        router: Router,
    ) -> std::io::Result<Self> {
        let listener = TcpListener::bind(addr).await?;
        let local_addr = listener.local_addr()?;
        let (stop, mut stopped) = watch::channel(false);
        let task = tokio::spawn(async move {
            let shutdown = async move {
                let _ = stopped.wait_for(|s| *s).await;
            };
            serve_https(listener, tls, router, shutdown).await
        });
        Ok(Self {
            local_addr,
            stop,
            task,
        })
    }

    /// The address actually bound.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// `https://127.0.0.1:PORT` style base URL for clients.
    pub fn base_url(&self) -> String {
        format!("https://{}", self.local_addr)
    }

    /// Stops accepting, cuts open connections and waits for the accept loop to end.
    pub async fn shutdown(self) -> std::io::Result<()> {
        let _ = self.stop.send(true);
        match self.task.await {
            Ok(result) => result,
            Err(join) => Err(std::io::Error::other(join)),
        }
    }
}
