//! The embedded API server with one ready kube `Client`, for the node controllers' tests.

use std::time::Duration;

use kube::Client;

use crate::api_server::ApiServer;

/// A running embedded API server and a client of it; the server is killed on drop.
pub struct KubeApi {
    _server: ApiServer,
    /// Client authenticated with the written kubeconfig.
    pub client: Client,
}

impl KubeApi {
    /// Starts the process (see [`ApiServer::start`]) and builds a client from its kubeconfig.
    pub async fn start() -> KubeApi {
        let server = ApiServer::start();
        let client = server.client().await;
        KubeApi {
            _server: server,
            client,
        }
    }
}

/// Polls `probe` until it yields a value; panics with `what` after a generous minute (a hang
/// guard, not a timing assertion).
pub async fn wait_for<T, F, Fut>(what: &str, mut probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    for _ in 0..600 {
        if let Some(value) = probe().await {
            return value;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("timed out waiting for {what}");
}
