//! Per-host proxies: one [`Proxy`] on a free 127.0.0.1 port per host name, answering
//! `http://169.254.169.254/...` from that host's IMDS (`POST|GET /admin/proxies`,
//! `DELETE /admin/proxies/{host}`). A manager process given `HTTP_PROXY=HTTPS_PROXY=<url>` then
//! sees the IMDS of the node it stands for, as a pod on that node would. The host is usually a node
//! name (VM or scale-set instance computer name, as `/imds/{node}` takes) but need not have a VM (a
//! control-plane host): its IMDS then answers whatever `/imds/{host}/...` answers.
//!
//! Host names are matched without regard to case (as the IMDS node lookup does): starting `Node-1`
//! after `node-1` hands back the proxy already serving `node-1`.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use serde::Serialize;
use tokio::net::TcpListener;
use tokio::sync::Mutex;

use super::{HostImds, Proxy, Routes, Tunnels};
use crate::journal::Journal;

/// Longest host name (a DNS name's limit).
const MAX_HOST_LEN: usize = 253;

/// What a host name may be, for error messages.
pub const ACCEPTED_HOSTS: &str = "a node or host name: 1-253 ASCII letters, digits, '-', '.' or '_', starting and ending with a letter or digit";

/// One running per-host proxy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HostProxy {
    /// The host name as first given.
    pub host: String,
    /// `http://127.0.0.1:PORT` (`HTTP_PROXY` and `HTTPS_PROXY` of that host's processes).
    pub url: String,
}

/// What [`HostProxies::start`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Started {
    /// The proxy serving the host.
    pub proxy: HostProxy,
    /// `false` when it was already running (the same proxy is handed back).
    pub created: bool,
}

/// Why no proxy was started.
#[derive(Debug, thiserror::Error)]
pub enum HostProxyError {
    /// The host name cannot be one (bad input).
    #[error("'{host}' is not a host name: {reason} (accepted: {ACCEPTED_HOSTS})")]
    InvalidHost {
        /// The name given.
        host: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// Binding a loopback port failed.
    #[error("binding a proxy for host '{host}' on 127.0.0.1: {source}")]
    Bind {
        /// The host the proxy was for.
        host: String,
        /// The bind error.
        #[source]
        source: std::io::Error,
    },
    /// The fake is shutting down.
    #[error("the fake is shutting down: no proxy is started for host '{host}'")]
    ShuttingDown {
        /// The host the proxy was for.
        host: String,
    },
}

impl HostProxyError {
    /// Whether the caller's input was wrong (as opposed to the fake failing).
    pub fn is_bad_input(&self) -> bool {
        matches!(self, Self::InvalidHost { .. })
    }
}

/// Checks `host` is a name [`HostProxies::start`] accepts.
pub fn validate_host(host: &str) -> Result<(), HostProxyError> {
    let invalid = |reason| {
        Err(HostProxyError::InvalidHost {
            host: host.to_owned(),
            reason,
        })
    };
    let alnum = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    if host.is_empty() {
        invalid("it is empty")
    } else if host.len() > MAX_HOST_LEN {
        invalid("it is longer than 253 characters")
    } else if !host
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'))
    {
        invalid("it has a character other than a letter, digit, '-', '.' or '_'")
    } else if !alnum(host.chars().next()) || !alnum(host.chars().last()) {
        invalid("it does not start and end with a letter or digit")
    } else {
        Ok(())
    }
}

struct Running {
    host: String,
    proxy: Proxy,
}

impl Running {
    fn listed(&self) -> HostProxy {
        HostProxy {
            host: self.host.clone(),
            url: self.proxy.url(),
        }
    }
}

#[derive(Default)]
struct Registry {
    /// Keyed by the lower-cased host name.
    running: BTreeMap<String, Running>,
    closed: bool,
}

/// The per-host proxies of one fake cloud (one owner, one mutation path).
pub struct HostProxies {
    tunnels: Tunnels,
    imds: Router,
    journal: Arc<Journal>,
    registry: Mutex<Registry>,
}

impl std::fmt::Debug for HostProxies {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostProxies").finish_non_exhaustive()
    }
}

impl HostProxies {
    /// Proxies answering IMDS from `imds` (the fake's IMDS stack), tunnelling to `tunnels` and
    /// journalling in `journal`; none runs yet.
    pub fn new(tunnels: Tunnels, imds: Router, journal: Arc<Journal>) -> Self {
        Self {
            tunnels,
            imds,
            journal,
            registry: Mutex::new(Registry::default()),
        }
    }

    /// The proxy of `host`, started on a free 127.0.0.1 port unless it runs already.
    pub async fn start(&self, host: &str) -> Result<Started, HostProxyError> {
        validate_host(host)?;
        let key = host.to_ascii_lowercase();
        let mut registry = self.registry.lock().await;
        if registry.closed {
            return Err(HostProxyError::ShuttingDown {
                host: host.to_owned(),
            });
        }
        if let Some(running) = registry.running.get(&key) {
            return Ok(Started {
                proxy: running.listed(),
                created: false,
            });
        }
        let bind = |source| HostProxyError::Bind {
            host: host.to_owned(),
            source,
        };
        let listener = TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0)))
            .await
            .map_err(bind)?;
        let routes = Routes {
            tunnels: self.tunnels.clone(),
            imds: Some(HostImds {
                host: host.to_owned(),
                service: self.imds.clone(),
            }),
        };
        let proxy = Proxy::start(listener, routes, self.journal.clone()).map_err(bind)?;
        tracing::info!(host, proxy = %proxy.url(), "per-host proxy serving");
        let running = Running {
            host: host.to_owned(),
            proxy,
        };
        let listed = running.listed();
        registry.running.insert(key, running);
        Ok(Started {
            proxy: listed,
            created: true,
        })
    }

    /// The running proxies, by host name.
    pub async fn list(&self) -> Vec<HostProxy> {
        let registry = self.registry.lock().await;
        registry.running.values().map(Running::listed).collect()
    }

    /// Stops the proxy of `host` (its open connections are cut); `None` when none runs.
    pub async fn stop(&self, host: &str) -> Option<HostProxy> {
        let running = self
            .registry
            .lock()
            .await
            .running
            .remove(&host.to_ascii_lowercase())?;
        let listed = running.listed();
        running.proxy.shutdown().await;
        tracing::info!(host = %listed.host, "per-host proxy stopped");
        Some(listed)
    }

    /// Stops every proxy; later [`Self::start`] calls fail.
    pub async fn shutdown(&self) {
        let running = {
            let mut registry = self.registry.lock().await;
            registry.closed = true;
            std::mem::take(&mut registry.running)
        };
        for (_, running) in running {
            running.proxy.shutdown().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_names_are_checked() {
        for good in [
            "k8s-master-0",
            "aks-nodepool1-12345-vmss000000",
            "Node_1.example",
            "a",
        ] {
            assert!(validate_host(good).is_ok(), "{good}");
        }
        for bad in ["", "-x", "x.", "..", "a/b", "a b", "é", &"a".repeat(254)] {
            let error = validate_host(bad).unwrap_err();
            assert!(error.is_bad_input());
            assert!(error.to_string().contains("accepted: "), "{error}");
        }
    }
}
