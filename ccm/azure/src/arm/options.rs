//! Settings of an [`ArmClient`](super::ArmClient): endpoint, identity headers, limits, retries,
//! LRO polling and paging bounds.

use std::sync::Arc;
use std::time::Duration;

use azure_core::credentials::TokenCredential;
use url::Url;

use super::error::ArmError;
use crate::config::{Config, RateLimits};

/// The user agent when the config sets none: the CCM and its version.
pub fn default_user_agent() -> String {
    format!("azure-ccm/{} (ccm-azure)", env!("CARGO_PKG_VERSION"))
}

/// Retries of transient failures (408, 500, 502, 503, 504, no answer); never of 429.
/// Defaults are upstream's SDK retry policy: 3 retries, 5 s base delay, 60 s cap (anchor-ccm.md §7.2).
#[derive(Debug, Clone, PartialEq)]
pub struct RetrySettings {
    /// Retries after the first attempt.
    pub max_retries: usize,
    /// First delay (doubling, with jitter).
    pub base_delay: Duration,
    /// Cap of one delay, also of an honoured `Retry-After`.
    pub max_delay: Duration,
}

impl Default for RetrySettings {
    fn default() -> Self {
        RetrySettings {
            max_retries: 3,
            base_delay: Duration::from_secs(5),
            max_delay: Duration::from_secs(60),
        }
    }
}

/// Long-running operation polling.
#[derive(Debug, Clone, PartialEq)]
pub struct LroSettings {
    /// First wait without `Retry-After`; each later one doubles, up to `default_interval`.
    pub first_interval: Duration,
    /// Longest wait when the service sends no `Retry-After` (azure_core's poller default: 30 s).
    pub default_interval: Duration,
    /// Cap of one poll interval (a larger `Retry-After` is shortened to it).
    pub max_interval: Duration,
    /// Total polling time before [`ArmError::OperationTimeout`].
    pub max_total: Duration,
}

impl Default for LroSettings {
    fn default() -> Self {
        LroSettings {
            first_interval: Duration::from_secs(1),
            default_interval: Duration::from_secs(30),
            max_interval: Duration::from_secs(60),
            // [infer] Long enough for a VMSS model update; upstream bounds polls by its context.
            max_total: Duration::from_secs(20 * 60),
        }
    }
}

/// Everything an [`ArmClient`](super::ArmClient) needs besides its credential and HTTP client.
#[derive(Clone)]
pub struct ArmClientOptions {
    /// ARM base URL (`https://management.azure.com/`); https only, since it receives a bearer token.
    pub endpoint: Url,
    /// Token scope (`<ARM audience>/.default`).
    pub scope: String,
    /// `User-Agent` of every request.
    pub user_agent: String,
    /// Credentials of the auxiliary tenants (network resources in another tenant), sent as
    /// `x-ms-authorization-auxiliary`.
    pub auxiliary: Vec<Arc<dyn TokenCredential>>,
    /// Client-side rate limits.
    pub rate_limits: RateLimits,
    /// Longest wait for a rate-limiter token before failing with [`ArmError::RateLimited`].
    pub max_rate_limit_wait: Duration,
    /// How long a throttling answer without `Retry-After` closes the gate.
    pub default_throttle: Duration,
    /// Retries of transient failures.
    pub retry: RetrySettings,
    /// LRO polling.
    pub lro: LroSettings,
    /// Most pages a list follows through `nextLink`.
    pub max_pages: usize,
    /// `source` label of the legacy metrics.
    pub metrics_source: String,
}

impl std::fmt::Debug for ArmClientOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArmClientOptions")
            .field("endpoint", &self.endpoint.as_str())
            .field("scope", &self.scope)
            .field("user_agent", &self.user_agent)
            .field("auxiliary", &self.auxiliary.len())
            .field("rate_limits", &self.rate_limits)
            .field("max_rate_limit_wait", &self.max_rate_limit_wait)
            .field("default_throttle", &self.default_throttle)
            .field("retry", &self.retry)
            .field("lro", &self.lro)
            .field("max_pages", &self.max_pages)
            .finish()
    }
}

impl ArmClientOptions {
    /// Options with the defaults for `endpoint` (must be https) and token `scope`; client-side
    /// rate limiting off.
    pub fn new(endpoint: Url, scope: impl Into<String>) -> Result<ArmClientOptions, ArmError> {
        if endpoint.scheme() != "https" {
            return Err(ArmError::InvalidUrl {
                url: endpoint.to_string(),
                reason: "ARM receives a bearer token, so only https is allowed".into(),
            });
        }
        let off = crate::config::RateLimit {
            enabled: false,
            qps: 0.0,
            bucket: 0,
            qps_write: 0.0,
            bucket_write: 0,
        };
        Ok(ArmClientOptions {
            endpoint,
            scope: scope.into(),
            user_agent: default_user_agent(),
            auxiliary: Vec::new(),
            rate_limits: RateLimits {
                default: off,
                per_client: Default::default(),
            },
            max_rate_limit_wait: Duration::from_secs(30),
            default_throttle: Duration::from_secs(5),
            retry: RetrySettings::default(),
            lro: LroSettings::default(),
            max_pages: 1000,
            metrics_source: String::new(),
        })
    }

    /// Options for `endpoint`/`scope` taking the user agent and rate limits from azure.json.
    pub fn from_config(
        config: &Config,
        endpoint: Url,
        scope: impl Into<String>,
    ) -> Result<ArmClientOptions, ArmError> {
        let mut options = ArmClientOptions::new(endpoint, scope)?;
        if let Some(agent) = config
            .identity
            .user_agent
            .as_ref()
            .filter(|a| !a.is_empty())
        {
            options.user_agent = agent.clone();
        }
        options.rate_limits = config.rate_limits.clone();
        Ok(options)
    }
}
