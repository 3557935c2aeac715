//! The IMDS HTTP client: `GET` with `Metadata: true`, bounded retries on the statuses IMDS asks to
//! retry, typed documents, and the instance document (with load-balancer public IPs filled in)
//! cached for 60 s under one key.
//!
//! Proxies: the environment's (`HTTP_PROXY`/`HTTPS_PROXY`, exempted by `NO_PROXY`), as upstream's
//! IMDS client does (`pkg/provider/azure_instance_metadata.go`, `getInstanceMetadata`: a plain
//! `http.Client` on Go's `DefaultTransport`, which reads `ProxyFromEnvironment`). A node whose
//! pods get a proxy must list `169.254.169.254` in `NO_PROXY` for either build to reach IMDS
//! directly; the parity harness relies on the opposite, giving each node's managers a proxy that
//! answers as that node's IMDS.

use std::sync::Arc;
use std::time::Duration;

use serde::de::DeserializeOwned;

use super::document::{InstanceMetadata, LoadBalancerMetadata};
use super::public_ips::{fill_public_ips, has_public_ip};
use super::retry::{RetryPolicy, retry_after};
use super::{ImdsEndpoint, ImdsError};
use crate::cache::{CachePolicy, INSTANCE_METADATA_TTL, ReadMode, TtlCache};

/// Whole-request timeout (upstream's IMDS client uses one minute).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);
/// Connection timeout, so an absent IMDS fails fast (deliberate; upstream has none).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest error body kept in [`ImdsError::Status`].
const BODY_LIMIT: usize = 512;

/// Builds an [`ImdsClient`].
#[derive(Debug, Clone, Default)]
pub struct ImdsClientBuilder {
    endpoint: ImdsEndpoint,
    ca_pem: Option<Vec<u8>>,
    retry: RetryPolicy,
}

impl ImdsClientBuilder {
    /// Where IMDS is (default: the real `http://169.254.169.254`).
    pub fn endpoint(mut self, endpoint: ImdsEndpoint) -> Self {
        self.endpoint = endpoint;
        self
    }

    /// A PEM CA trusted in addition to the system roots, for an `https` endpoint.
    pub fn ca_pem(mut self, pem: Vec<u8>) -> Self {
        self.ca_pem = Some(pem);
        self
    }

    /// The retry schedule.
    pub fn retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// The client.
    pub fn build(self) -> Result<ImdsClient, ImdsError> {
        // One TLS stack in the workspace (rustls + ring); installing twice is harmless.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut http = reqwest::Client::builder()
            .timeout(REQUEST_TIMEOUT)
            .connect_timeout(CONNECT_TIMEOUT)
            .user_agent(concat!("ccm-azure/", env!("CARGO_PKG_VERSION")));
        if let Some(pem) = &self.ca_pem {
            let ca = reqwest::Certificate::from_pem(pem).map_err(ImdsError::InvalidCa)?;
            http = http.tls_certs_merge([ca]);
        }
        Ok(ImdsClient {
            http: http.build().map_err(ImdsError::Client)?,
            endpoint: self.endpoint,
            retry: self.retry,
            cache: TtlCache::new(CachePolicy::with_ttl(INSTANCE_METADATA_TTL)),
        })
    }
}

/// A client of one VM's IMDS with a 60 s cache of its instance document.
#[derive(Debug)]
pub struct ImdsClient {
    http: reqwest::Client,
    endpoint: ImdsEndpoint,
    retry: RetryPolicy,
    cache: TtlCache<(), Arc<InstanceMetadata>>,
}

impl ImdsClient {
    /// A builder with the real IMDS, no extra CA and the default retries.
    pub fn builder() -> ImdsClientBuilder {
        ImdsClientBuilder::default()
    }

    /// The endpoint this client asks.
    pub fn endpoint(&self) -> &ImdsEndpoint {
        &self.endpoint
    }

    /// `/metadata/instance`, uncached and as IMDS sent it.
    pub async fn instance_document(&self) -> Result<InstanceMetadata, ImdsError> {
        self.fetch(&self.endpoint.instance_url(), "instance metadata")
            .await
    }

    /// `/metadata/loadbalancer`, uncached (404 when the VM is behind no Standard LB).
    pub async fn load_balancer_document(&self) -> Result<LoadBalancerMetadata, ImdsError> {
        self.fetch(&self.endpoint.load_balancer_url(), "load balancer metadata")
            .await
    }

    /// The instance document with the first NIC's public IPs completed from the load-balancer
    /// document, through the 60 s cache.
    pub async fn metadata(&self, mode: ReadMode) -> Result<Arc<InstanceMetadata>, ImdsError> {
        self.cache
            .get(&(), mode, || async { self.load().await.map(Arc::new) })
            .await
    }

    /// Drops the cached document (upstream does so when it lacks addresses or a resource ID).
    pub fn invalidate(&self) {
        self.cache.invalidate(&());
    }

    /// The local node's metadata (providerID, instance type, addresses, zone, region); drops the
    /// cached document when it lacks a field so the next call asks IMDS again.
    pub async fn local_node_metadata(
        &self,
        node_name: &str,
        mode: ReadMode,
    ) -> Result<ccm_cloud::InstanceMetadata, ImdsError> {
        let doc = self.metadata(mode).await?;
        super::local_node_metadata(&doc, node_name).inspect_err(|e| {
            if e.purges_cache() {
                self.invalidate();
            }
        })
    }

    /// The local zone and region, serving a stale document like upstream's `GetZone`.
    pub async fn zone(&self) -> Result<ccm_cloud::Zone, ImdsError> {
        let doc = self.metadata(ReadMode::Unsafe).await?;
        let Some(compute) = doc.compute.as_ref() else {
            self.invalidate();
            return Err(ImdsError::Missing("compute section"));
        };
        super::zone(compute)
    }

    /// Upstream's `getMetadata`: instance document, then the LB document only when the first NIC
    /// has no public IP; a failed LB read leaves the addresses as they are.
    async fn load(&self) -> Result<InstanceMetadata, ImdsError> {
        let mut doc = self.instance_document().await?;
        let Some(nic) = doc.network.as_mut().and_then(|n| n.interface.first_mut()) else {
            return Ok(doc);
        };
        if has_public_ip(nic) {
            return Ok(doc);
        }
        match self.load_balancer_document().await {
            Ok(LoadBalancerMetadata {
                loadbalancer: Some(lb),
            }) => fill_public_ips(nic, &lb.public_ip_addresses),
            Ok(_) => tracing::debug!("IMDS load balancer metadata has no loadbalancer object"),
            Err(error) => tracing::debug!(%error, "no IMDS load balancer metadata"),
        }
        Ok(doc)
    }

    async fn fetch<T: DeserializeOwned>(
        &self,
        url: &str,
        document: &'static str,
    ) -> Result<T, ImdsError> {
        let max_attempts = self.retry.max_attempts.max(1);
        let mut attempt = 1;
        loop {
            let response = self
                .http
                .get(url)
                .header("Metadata", "True")
                .send()
                .await
                .map_err(|source| ImdsError::Unreachable {
                    url: url.to_string(),
                    cause: innermost(&source),
                    source,
                })?;
            let status = response.status().as_u16();
            let wait = retry_after(response.headers());
            let body = response
                .bytes()
                .await
                .map_err(|source| ImdsError::Unreachable {
                    url: url.to_string(),
                    cause: innermost(&source),
                    source,
                })?;
            if status == 200 {
                return serde_json::from_slice(&body).map_err(|source| ImdsError::Decode {
                    url: url.to_string(),
                    document,
                    source,
                });
            }
            if !RetryPolicy::retryable(status) || attempt >= max_attempts {
                let text = String::from_utf8_lossy(&body);
                let mut body: String = text.chars().take(BODY_LIMIT).collect();
                if text.chars().nth(BODY_LIMIT).is_some() {
                    body.push('…');
                }
                return Err(ImdsError::Status {
                    url: url.to_string(),
                    status,
                    attempts: attempt,
                    body,
                });
            }
            let delay = self.retry.delay(attempt, wait);
            tracing::debug!(url, status, attempt, ?delay, "retrying IMDS request");
            tokio::time::sleep(delay).await;
            attempt += 1;
        }
    }
}

/// The last error in a source chain (e.g. `Connection refused (os error 111)`).
fn innermost(error: &(dyn std::error::Error + 'static)) -> String {
    let mut current = error;
    while let Some(next) = current.source() {
        current = next;
    }
    current.to_string()
}
