//! [`ArmClient`]: one request through gate → limiter → token → send → metrics, retried with
//! backoff for transient failures only.

use std::sync::Arc;
use std::time::Duration;

use azure_core::credentials::TokenCredential;
use backon::{ExponentialBuilder, Retryable};
use bytes::Bytes;
use reqwest::Method;
use reqwest::header::{HeaderMap, HeaderValue};
use tokio::time::Instant;
use url::Url;

use super::client_kind::ClientKind;
use super::error::{ArmError, ErrorDetail, ResponseError};
use super::options::ArmClientOptions;
use super::retry_after::retry_after;
use crate::metrics::labels::scope_of;
use crate::metrics::{ArmErrorLabels, ArmLabels, ArmMetrics, LegacyLabels};
use crate::throttle::{Gates, Limiters, OpKind};

/// An ARM client: shared by every resource client (one limiter and pair of gates per
/// [`ClientKind`] inside). Cheap to clone.
#[derive(Clone)]
pub struct ArmClient {
    inner: Arc<Inner>,
}

struct Inner {
    http: reqwest::Client,
    credential: Arc<dyn TokenCredential>,
    options: ArmClientOptions,
    gates: Gates,
    limiters: Limiters,
    metrics: ArmMetrics,
}

/// A successful HTTP answer (status < 400).
#[derive(Debug, Clone)]
pub struct Answer {
    /// HTTP status.
    pub status: u16,
    /// Response headers.
    pub headers: HeaderMap,
    /// Response body.
    pub body: Bytes,
}

impl Answer {
    /// A header as text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

/// One request to send.
pub(crate) struct Outgoing<'a> {
    pub client: ClientKind,
    pub method: Method,
    pub url: &'a Url,
    pub body: Option<&'a [u8]>,
    pub if_match: Option<&'a str>,
}

struct Labels {
    legacy: LegacyLabels,
    arm: ArmLabels,
}

impl ArmClient {
    /// A client over `http` (which must trust ARM's CA) authenticating with `credential`.
    pub fn new(
        options: ArmClientOptions,
        credential: Arc<dyn TokenCredential>,
        http: reqwest::Client,
        metrics: ArmMetrics,
    ) -> ArmClient {
        let limiters = Limiters::from_config(&options.rate_limits);
        ArmClient {
            inner: Arc::new(Inner {
                http,
                credential,
                options,
                gates: Gates::default(),
                limiters,
                metrics,
            }),
        }
    }

    /// The options this client was built with.
    pub fn options(&self) -> &ArmClientOptions {
        &self.inner.options
    }

    /// The throttle gates (read by tests and diagnostics).
    pub fn gates(&self) -> &Gates {
        &self.inner.gates
    }

    /// `endpoint + path` with `api-version` and extra query pairs.
    pub fn url(
        &self,
        path: &str,
        api_version: &str,
        query: &[(&str, &str)],
    ) -> Result<Url, ArmError> {
        let mut url = self
            .inner
            .options
            .endpoint
            .join(path.trim_start_matches('/'))
            .map_err(|e| ArmError::InvalidUrl {
                url: path.to_string(),
                reason: e.to_string(),
            })?;
        {
            let mut pairs = url.query_pairs_mut();
            pairs.append_pair("api-version", api_version);
            for (k, v) in query {
                pairs.append_pair(k, v);
            }
        }
        Ok(url)
    }

    /// Refuses URLs (e.g. `nextLink`, `Azure-AsyncOperation`) outside the ARM endpoint: the bearer
    /// token goes only to the configured host over https.
    pub(crate) fn check_origin(&self, url: &Url) -> Result<(), ArmError> {
        let endpoint = &self.inner.options.endpoint;
        if url.scheme() == "https"
            && url.host_str() == endpoint.host_str()
            && url.port_or_known_default() == endpoint.port_or_known_default()
        {
            Ok(())
        } else {
            Err(ArmError::InvalidUrl {
                url: url.to_string(),
                reason: format!("not on the ARM endpoint {endpoint}"),
            })
        }
    }

    fn labels(&self, out: &Outgoing<'_>, verb: &str) -> Labels {
        let (subscription_id, resource_group) = scope_of(out.url.path());
        Labels {
            legacy: LegacyLabels {
                request: format!("{}_{verb}", out.client.name()),
                resource_group: resource_group.clone(),
                subscription_id: subscription_id.clone(),
                source: self.inner.options.metrics_source.clone(),
            },
            arm: ArmLabels {
                subscription_id,
                resource_group,
                resource: out.client.name().to_string(),
                method: out.method.to_string(),
            },
        }
    }

    /// Sends one request, retrying transient failures with exponential backoff (honouring a
    /// `Retry-After` up to the cap); a 429 is never retried here.
    pub(crate) async fn send(&self, out: Outgoing<'_>, verb: &str) -> Result<Answer, ArmError> {
        self.check_origin(out.url)?;
        let labels = self.labels(&out, verb);
        let retry = &self.inner.options.retry;
        let backoff = ExponentialBuilder::default()
            .with_min_delay(retry.base_delay)
            .with_max_delay(retry.max_delay)
            .with_max_times(retry.max_retries)
            .with_jitter();
        let max_delay = retry.max_delay;
        let started = Instant::now();
        let result = (|| self.attempt(&out, &labels))
            .retry(backoff)
            .sleep(tokio::time::sleep)
            .when(ArmError::is_transient)
            .adjust(move |error: &ArmError, delay| {
                delay.map(|d| match error.retry_after() {
                    Some(asked) => d.max(asked.min(max_delay)),
                    None => d,
                })
            })
            .notify(|error, delay| {
                tracing::debug!(%error, delay_ms = delay.as_millis() as u64, "retrying ARM request");
            })
            .await;
        let metrics = &self.inner.metrics;
        metrics
            .api_request_duration
            .get_or_create(&labels.legacy)
            .observe(started.elapsed().as_secs_f64());
        if result.is_err() {
            metrics
                .api_request_errors
                .get_or_create(&labels.legacy)
                .inc();
        }
        result
    }

    async fn attempt(&self, out: &Outgoing<'_>, labels: &Labels) -> Result<Answer, ArmError> {
        let inner = &self.inner;
        let metrics = &inner.metrics;
        let op = OpKind::of(&out.method);
        self.gate_check(out, op, labels)?;
        if let Some(limiter) = inner.limiters.client(out.client) {
            let max = inner.options.max_rate_limit_wait;
            let waited = limiter.acquire(op, max).await;
            if !matches!(waited, Ok(false)) {
                metrics
                    .api_request_ratelimited
                    .get_or_create(&labels.legacy)
                    .inc();
                metrics
                    .arm_request_rate_limit
                    .get_or_create(&labels.arm)
                    .inc();
            }
            match waited {
                Ok(false) => {}
                // ARM may have throttled another call while this one waited for its token.
                Ok(true) => self.gate_check(out, op, labels)?,
                Err(refused) => {
                    return Err(ArmError::RateLimited {
                        client: out.client.name(),
                        wait: refused.wait,
                        max,
                    });
                }
            }
        }
        let request = self.build(out).await?;
        let started = Instant::now();
        let sent = request.send().await;
        let path = out.url.path().to_string();
        let response = match sent {
            Ok(response) => response,
            Err(source) => {
                self.count_error(labels, 0, "Transport");
                return Err(ArmError::Transport {
                    method: out.method.to_string(),
                    path,
                    source,
                });
            }
        };
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let body = match response.bytes().await {
            Ok(body) => body,
            Err(source) => {
                self.count_error(labels, status, "Transport");
                return Err(ArmError::Transport {
                    method: out.method.to_string(),
                    path,
                    source,
                });
            }
        };
        metrics
            .arm_request_duration
            .get_or_create(&labels.arm)
            .observe(started.elapsed().as_secs_f64());
        metrics.record_remaining(&headers);
        if status < 400 {
            return Ok(Answer {
                status,
                headers,
                body,
            });
        }
        let header = |name: &str| {
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        let error = ResponseError {
            method: out.method.to_string(),
            path,
            status,
            error: ErrorDetail::from_body(&body),
            request_id: header("x-ms-request-id"),
            correlation_id: header("x-ms-correlation-request-id"),
            retry_after: retry_after(&headers),
        };
        self.count_error(labels, status, &error.error.code);
        if error.is_throttling() {
            let closed_for = error.retry_after.unwrap_or(inner.options.default_throttle);
            inner.gates.client(out.client, op).close_for(closed_for);
            if error.is_subscription_throttling() {
                inner.gates.subscription(op).close_for(closed_for);
            }
            metrics
                .api_request_throttled
                .get_or_create(&labels.legacy)
                .inc();
            metrics
                .arm_request_throttle
                .get_or_create(&labels.arm)
                .inc();
            tracing::warn!(
                client = out.client.name(),
                %op,
                retry_after_ms = closed_for.as_millis() as u64,
                request_id = error.request_id.as_deref().unwrap_or(""),
                "ARM throttled the client; gate closed"
            );
        }
        Err(ArmError::Response(Box::new(error)))
    }

    /// Fails fast, counting the refusal, when ARM throttled this client or the subscription.
    fn gate_check(&self, out: &Outgoing<'_>, op: OpKind, labels: &Labels) -> Result<(), ArmError> {
        let Err(closed) = self.inner.gates.check(out.client, op) else {
            return Ok(());
        };
        let metrics = &self.inner.metrics;
        metrics
            .api_request_throttled
            .get_or_create(&labels.legacy)
            .inc();
        metrics
            .arm_request_throttle
            .get_or_create(&labels.arm)
            .inc();
        Err(ArmError::GateClosed {
            client: out.client.name(),
            op,
            remaining: closed.remaining,
        })
    }

    fn count_error(&self, labels: &Labels, status: u16, code: &str) {
        let arm = &labels.arm;
        self.inner
            .metrics
            .arm_request_errors
            .get_or_create(&ArmErrorLabels {
                subscription_id: arm.subscription_id.clone(),
                resource_group: arm.resource_group.clone(),
                resource: arm.resource.clone(),
                method: arm.method.clone(),
                status_code: status.to_string(),
                error_code: code.to_string(),
            })
            .inc();
    }

    async fn token(credential: &dyn TokenCredential, scope: &str) -> Result<HeaderValue, ArmError> {
        let token = credential
            .get_token(&[scope], None)
            .await
            .map_err(ArmError::Credential)?;
        let mut value = HeaderValue::from_str(&format!("Bearer {}", token.token.secret()))
            .map_err(|_| {
                ArmError::Credential(azure_core::Error::with_message(
                    azure_core::error::ErrorKind::Credential,
                    "token is not a valid header value",
                ))
            })?;
        value.set_sensitive(true);
        Ok(value)
    }

    pub(crate) async fn build(
        &self,
        out: &Outgoing<'_>,
    ) -> Result<reqwest::RequestBuilder, ArmError> {
        let options = &self.inner.options;
        let authorization = Self::token(self.inner.credential.as_ref(), &options.scope).await?;
        let mut request = self
            .inner
            .http
            .request(out.method.clone(), out.url.clone())
            .header(reqwest::header::AUTHORIZATION, authorization)
            .header(reqwest::header::ACCEPT, "application/json")
            .header(reqwest::header::USER_AGENT, options.user_agent.as_str())
            .header("x-ms-client-request-id", uuid::Uuid::new_v4().to_string());
        if !options.auxiliary.is_empty() {
            let mut tokens = Vec::with_capacity(options.auxiliary.len());
            for credential in &options.auxiliary {
                let value = Self::token(credential.as_ref(), &options.scope).await?;
                tokens.push(value.to_str().unwrap_or_default().to_string());
            }
            let mut value = HeaderValue::from_str(&tokens.join(", ")).map_err(|_| {
                ArmError::Credential(azure_core::Error::with_message(
                    azure_core::error::ErrorKind::Credential,
                    "auxiliary token is not a valid header value",
                ))
            })?;
            value.set_sensitive(true);
            request = request.header("x-ms-authorization-auxiliary", value);
        }
        if let Some(etag) = out.if_match {
            request = request.header(reqwest::header::IF_MATCH, etag);
        }
        if let Some(body) = out.body {
            request = request
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(body.to_vec());
        }
        Ok(request)
    }

    /// Metrics this client feeds.
    pub fn metrics(&self) -> &ArmMetrics {
        &self.inner.metrics
    }

    /// Longest time an LRO may be polled (see [`super::options::LroSettings`]).
    pub(crate) fn lro_bound(&self) -> Duration {
        self.inner.options.lro.max_total
    }
}
