//! The fake's HTTP proxies, one implementation for two uses:
//!
//! - **Entra-only** (`azure-fakes serve --proxy-listen ADDR`): clients built on MSAL ask the public
//!   Entra hosts (`login.microsoftonline.com/common/discovery/instance`) about any authority they do
//!   not know, so a rehearsal with such a client needs those hosts offline. Given as
//!   `HTTPS_PROXY=http://ADDR`, the proxy tunnels `CONNECT <entra host>:443` to the fake's Entra
//!   endpoint (a TLS listener presenting a certificate for the Entra hosts, signed by the fake's CA,
//!   serving the Entra routes only; see [`endpoint`] for when it starts).
//! - **Per host** (`POST /admin/proxies`, [`hosts`]): production managers (the upstream Go
//!   cloud-node-manager, a Rust build on reqwest) read IMDS only at `http://169.254.169.254`, and
//!   the harness runs every node's manager on one machine, so each process must see *its* node's
//!   IMDS. The standard way is a proxy per node: `HTTP_PROXY=HTTPS_PROXY=http://127.0.0.1:PORT`
//!   makes Go's `ProxyFromEnvironment` and reqwest send `GET http://169.254.169.254/metadata/...`
//!   in absolute form to the proxy, which answers it from that host's IMDS exactly as the direct
//!   route `/imds/{host}/metadata/...` would (same guards, rate limits, faults, journal entry: the
//!   request is dispatched in-process into the same router, nothing is dialled), plus the Entra
//!   tunnel above.
//!
//! Anything else (another host, an origin-form request, a CONNECT elsewhere; on the Entra-only
//! proxy any method but CONNECT) is refused with 403 (400, 405) and journalled (surface `proxy`),
//! since the rehearsal is offline: the proxies never open a connection to any address but the
//! fake's own loopback tunnel endpoint.
//!
//! Connections are served by hyper (HTTP/1.1 keep-alive and pipelining as clients use them; a
//! CONNECT through hyper's upgrade, RFC 9110 §9.3.6); stopping a proxy cuts its open connections
//! and tunnels, as a node going away would.

mod decide;
pub mod endpoint;
pub mod hosts;
mod service;

pub use decide::IMDS_ADDRESS;
pub use endpoint::{EndpointError, LazyEndpoint};
pub use hosts::{HostProxies, HostProxy, HostProxyError, Started};

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;

use crate::journal::Journal;
use service::Context;

/// Longest request head a client may send (hyper answers 431 beyond it).
const MAX_HEAD: usize = 16 * 1024;

/// How long a client may take to send a request head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(30);

/// Where a CONNECT may go: the hosts tunnelled to one local TLS endpoint.
#[derive(Debug, Clone)]
pub struct Tunnels {
    /// Host names (lower case) tunnelled on port 443.
    pub hosts: Vec<String>,
    /// The local TLS endpoint serving them, shared by every proxy.
    pub endpoint: Arc<LazyEndpoint>,
}

/// The IMDS a per-host proxy answers `http://169.254.169.254/...` from.
#[derive(Clone)]
pub struct HostImds {
    /// Host (node) name: requests are served as `/imds/{host}/...`.
    pub host: String,
    /// The fake's IMDS stack (journal -> faults -> IMDS), the router the direct route uses.
    pub service: Router,
}

impl std::fmt::Debug for HostImds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostImds")
            .field("host", &self.host)
            .finish_non_exhaustive()
    }
}

/// What one proxy serves.
#[derive(Debug, Clone)]
pub struct Routes {
    /// CONNECT targets.
    pub tunnels: Tunnels,
    /// Absolute-form requests to [`IMDS_ADDRESS`]; `None` (the Entra-only proxy): refused.
    pub imds: Option<HostImds>,
}

/// A running proxy.
#[derive(Debug)]
pub struct Proxy {
    local_addr: SocketAddr,
    stop: watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
}

impl Proxy {
    /// Serves `routes` on `listener`, journalling refusals and tunnels in `journal`.
    pub fn start(
        listener: TcpListener,
        routes: Routes,
        journal: Arc<Journal>,
    ) -> std::io::Result<Self> {
        let local_addr = listener.local_addr()?;
        let (stop, mut stopped) = watch::channel(false);
        let ctx = Arc::new(Context {
            routes,
            journal,
            stopped: stopped.clone(),
        });
        let task = tokio::spawn(async move {
            let mut connections = JoinSet::new();
            loop {
                tokio::select! {
                    _ = stopped.wait_for(|s| *s) => break,
                    accepted = listener.accept() => match accepted {
                        Ok((stream, peer)) => {
                            connections.spawn(serve_connection(stream, peer, ctx.clone()));
                        }
                        Err(error) => tracing::warn!(%error, "proxy accept failed"),
                    },
                    Some(_) = connections.join_next(), if !connections.is_empty() => {}
                }
            }
            connections.abort_all();
            while connections.join_next().await.is_some() {}
        });
        Ok(Self {
            local_addr,
            stop,
            task,
        })
    }

    /// The address it listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// `http://host:port` to give clients as `HTTP_PROXY` / `HTTPS_PROXY`.
    pub fn url(&self) -> String {
        format!("http://{}", self.local_addr)
    }

    /// Stops accepting and cuts open connections and tunnels.
    pub async fn shutdown(self) {
        let _ = self.stop.send(true);
        let _ = self.task.await;
    }
}

async fn serve_connection(stream: TcpStream, peer: SocketAddr, ctx: Arc<Context>) {
    let _ = stream.set_nodelay(true);
    let service =
        hyper::service::service_fn(move |request| service::handle(ctx.clone(), peer, request));
    let served = hyper::server::conn::http1::Builder::new()
        .keep_alive(true)
        .max_buf_size(MAX_HEAD)
        .timer(TokioTimer::new())
        .header_read_timeout(HEAD_TIMEOUT)
        .serve_connection(TokioIo::new(stream), service)
        .with_upgrades()
        .await;
    if let Err(error) = served {
        tracing::debug!(%error, %peer, "proxy connection ended with an error");
    }
}
