//! The TLS endpoint CONNECT tunnels end at, started on first need: most runs never tunnel (only
//! MSAL-based clients ask the public Entra hosts anything), so the listener is bound the first time
//! any proxy (the `--proxy-listen` one or a per-host one) tunnels, then shared by all of them until
//! the fake shuts down.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use fake_tls::HttpsServer;
use tokio::sync::Mutex;

/// Why the endpoint cannot be reached.
#[derive(Debug, thiserror::Error)]
pub enum EndpointError {
    /// Binding its loopback listener failed.
    #[error("starting the tunnel endpoint on 127.0.0.1: {0}")]
    Start(#[source] std::io::Error),
    /// The fake is shutting down.
    #[error("the tunnel endpoint is stopped (the fake is shutting down)")]
    Stopped,
}

enum State {
    Idle,
    Running(HttpsServer),
    Stopped,
}

/// A TLS listener on a free 127.0.0.1 port serving one router, bound on the first
/// [`LazyEndpoint::addr`].
pub struct LazyEndpoint {
    tls: Arc<rustls::ServerConfig>,
    router: Router,
    state: Mutex<State>,
}

impl std::fmt::Debug for LazyEndpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LazyEndpoint").finish_non_exhaustive()
    }
}

impl LazyEndpoint {
    /// An endpoint that will serve `router` with `tls` once asked for its address.
    pub fn new(tls: Arc<rustls::ServerConfig>, router: Router) -> Self {
        Self {
            tls,
            router,
            state: Mutex::new(State::Idle),
        }
    }

    /// Its address, starting it when it is not running yet.
    pub async fn addr(&self) -> Result<SocketAddr, EndpointError> {
        let mut state = self.state.lock().await;
        match &*state {
            State::Running(server) => return Ok(server.local_addr()),
            State::Stopped => return Err(EndpointError::Stopped),
            State::Idle => {}
        }
        let loopback = SocketAddr::from(([127, 0, 0, 1], 0));
        let server = HttpsServer::start(loopback, self.tls.clone(), self.router.clone())
            .await
            .map_err(EndpointError::Start)?;
        let addr = server.local_addr();
        tracing::info!(endpoint = %server.base_url(), "tunnel endpoint for the Entra hosts serving");
        *state = State::Running(server);
        Ok(addr)
    }

    /// Stops it (when running); later [`Self::addr`] calls fail.
    pub async fn shutdown(&self) {
        let previous = std::mem::replace(&mut *self.state.lock().await, State::Stopped);
        if let State::Running(server) = previous
            && let Err(error) = server.shutdown().await
        {
            tracing::warn!(%error, "stopping the tunnel endpoint");
        }
    }
}
