//! The fake's Entra endpoint for the public Entra hosts and the proxies in front of it: the
//! [`Tunnels`] every proxy shares (a TLS listener on 127.0.0.1, started on the first CONNECT, with a
//! certificate for every public Entra authority host signed by the fake's CA, serving the Entra
//! routes only, journalled and faulted like the main listener's), and the Entra-only proxy of
//! `--proxy-listen` ([`crate::proxy`]).

use std::net::SocketAddr;
use std::sync::Arc;

use fake_tls::{ClientAuth, Pki};
use tokio::net::TcpListener;

use super::error::CloudError;
use super::router;
use crate::entra::{Entra, public_authority_hosts};
use crate::faults::FaultEngine;
use crate::journal::Journal;
use crate::proxy::{LazyEndpoint, Proxy, Routes, Tunnels};

/// The public Entra hosts, tunnelled to an endpoint that starts on first need.
pub(super) fn tunnels(
    pki: &Pki,
    entra: Entra,
    faults: &Arc<FaultEngine>,
    journal: &Arc<Journal>,
) -> Result<Tunnels, CloudError> {
    let hosts = public_authority_hosts();
    let leaf = pki.issue_server(&hosts)?;
    let tls = fake_tls::server_config(pki, &leaf, ClientAuth::None)?;
    let endpoint = LazyEndpoint::new(tls, router::entra_only(entra, faults, journal));
    Ok(Tunnels {
        hosts: hosts.iter().map(|h| (*h).to_owned()).collect(),
        endpoint: Arc::new(endpoint),
    })
}

/// Starts the Entra-only proxy (`--proxy-listen`) on `listen`.
pub(super) async fn start_proxy(
    listen: SocketAddr,
    tunnels: Tunnels,
    journal: &Arc<Journal>,
) -> Result<Proxy, CloudError> {
    let bind = |source| CloudError::Bind {
        addr: listen,
        source,
    };
    let listener = TcpListener::bind(listen).await.map_err(bind)?;
    let routes = Routes {
        tunnels,
        imds: None,
    };
    let proxy = Proxy::start(listener, routes, journal.clone()).map_err(bind)?;
    tracing::info!(proxy = %proxy.url(), "CONNECT proxy for the Entra hosts serving");
    Ok(proxy)
}
