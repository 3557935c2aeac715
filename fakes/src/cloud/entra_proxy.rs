//! The fake's Entra endpoint for the public Entra hosts and the CONNECT proxy in front of it: a
//! second TLS listener on 127.0.0.1 presenting a certificate for every public Entra authority host
//! (signed by the fake's CA), serving the Entra routes only (journalled and faulted like the main
//! listener's), reached through [`crate::proxy::ConnectProxy`].

use std::net::SocketAddr;
use std::sync::Arc;

use fake_tls::{ClientAuth, HttpsServer, Pki};
use tokio::net::TcpListener;

use super::error::CloudError;
use super::router;
use crate::entra::{Entra, public_authority_hosts};
use crate::faults::FaultEngine;
use crate::journal::Journal;
use crate::proxy::{ConnectProxy, Tunnels};

/// The proxy and the Entra endpoint it tunnels to.
#[derive(Debug)]
pub(super) struct EntraProxy {
    /// The CONNECT proxy.
    pub proxy: ConnectProxy,
    endpoint: HttpsServer,
}

impl EntraProxy {
    /// Starts the Entra endpoint on a free port and the proxy on `listen`.
    pub async fn start(
        listen: SocketAddr,
        pki: &Pki,
        entra: Entra,
        faults: &Arc<FaultEngine>,
        journal: &Arc<Journal>,
    ) -> Result<Self, CloudError> {
        let hosts = public_authority_hosts();
        let leaf = pki.issue_server(&hosts)?;
        let tls = fake_tls::server_config(pki, &leaf, ClientAuth::None)?;
        let loopback = SocketAddr::from(([127, 0, 0, 1], 0));
        let endpoint =
            HttpsServer::start(loopback, tls, router::entra_only(entra, faults, journal))
                .await
                .map_err(|source| CloudError::Bind {
                    addr: loopback,
                    source,
                })?;
        let bind = |source| CloudError::Bind {
            addr: listen,
            source,
        };
        let listener = TcpListener::bind(listen).await.map_err(bind)?;
        let tunnels = Tunnels {
            hosts: hosts.iter().map(|h| (*h).to_owned()).collect(),
            endpoint: endpoint.local_addr(),
        };
        let proxy = ConnectProxy::start(listener, tunnels, journal.clone()).map_err(bind)?;
        tracing::info!(proxy = %proxy.url(), entra = %endpoint.base_url(), "CONNECT proxy for the Entra hosts serving");
        Ok(Self { proxy, endpoint })
    }

    /// Stops the proxy, then the endpoint.
    pub async fn shutdown(self) {
        self.proxy.shutdown().await;
        if let Err(error) = self.endpoint.shutdown().await {
            tracing::warn!(%error, "stopping the Entra endpoint of the proxy");
        }
    }
}
