//! Prometheus metrics of the ARM transport and of provider operations, with upstream's names and
//! labels, registered into a caller-owned [`Registry`] (no global registry; the binary exposes it).
//!
//! # Verified (anchor-ccm.md §8, from cloud-provider-azure `pkg/metrics/azure_metrics.go` and
//! `pkg/azclient/metrics/metrics.go`)
//! - Legacy family, labels `request`, `resource_group`, `subscription_id`, `source`:
//!   `cloudprovider_azure_api_request_duration_seconds`, `cloudprovider_azure_api_request_errors`,
//!   `cloudprovider_azure_api_request_throttled_count`,
//!   `cloudprovider_azure_api_request_ratelimited_count`, `cloudprovider_azure_op_duration_seconds`,
//!   `cloudprovider_azure_op_failure_count`.
//! - OpenTelemetry family (attributes `subscription_id`, `resource_group`, `resource`, `method`):
//!   `arm_request_duration_seconds`, `arm_request_errors_counter_total` (+ `status_code`,
//!   `error_code`), `arm_request_rate_limit_counter_total`, `arm_request_throttle_counter_total`.
//!
//! # Inferred or deliberately different
//! - [infer] Histogram buckets 0.1 … 1200 s: the end points are upstream's, the steps between
//!   them are ours.
//! - The legacy counters are [`UntypedCounter`]s: OpenMetrics would suffix a `counter` with
//!   `_total`, and upstream's legacy registry serves them without it; untyped keeps the exact names.
//! - [infer] The legacy `request` label is `<client>_<verb>` (e.g. `loadBalancer_get`), the OTel
//!   `resource` attribute the client name and `method` the HTTP verb.
//! - Ours, not upstream's: `cloudprovider_azure_arm_ratelimit_remaining` (gauge, labels `header`
//!   and `policy`), the last value of every `x-ms-ratelimit-remaining-*` response header, so an
//!   operator sees ARM and Compute RP headroom before throttling starts.

pub mod labels;
mod untyped_counter;

use std::time::Duration;

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

pub use labels::{ArmErrorLabels, ArmLabels, LegacyLabels, RemainingLabels};
pub use untyped_counter::UntypedCounter;

/// Upstream's duration buckets (0.1 s to 20 min).
const BUCKETS: [f64; 14] = [
    0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 15.0, 25.0, 50.0, 120.0, 300.0, 600.0, 1200.0,
];

fn histogram() -> Histogram {
    Histogram::new(BUCKETS)
}

type Histograms<L> = Family<L, Histogram, fn() -> Histogram>;

/// Every metric the ARM transport and the provider operations feed; cheap to clone (shared).
#[derive(Clone)]
pub struct ArmMetrics {
    /// `cloudprovider_azure_api_request_duration_seconds`.
    pub api_request_duration: Histograms<LegacyLabels>,
    /// `cloudprovider_azure_api_request_errors`.
    pub api_request_errors: Family<LegacyLabels, UntypedCounter>,
    /// `cloudprovider_azure_api_request_throttled_count`: calls refused by ARM's or our gate.
    pub api_request_throttled: Family<LegacyLabels, UntypedCounter>,
    /// `cloudprovider_azure_api_request_ratelimited_count`: calls delayed or refused by our limiter.
    pub api_request_ratelimited: Family<LegacyLabels, UntypedCounter>,
    /// `cloudprovider_azure_op_duration_seconds`: provider operations (e.g. ensure load balancer).
    pub op_duration: Histograms<LegacyLabels>,
    /// `cloudprovider_azure_op_failure_count`.
    pub op_failure: Family<LegacyLabels, UntypedCounter>,
    /// `arm_request_duration_seconds`.
    pub arm_request_duration: Histograms<ArmLabels>,
    /// `arm_request_errors_counter_total`.
    pub arm_request_errors: Family<ArmErrorLabels, Counter>,
    /// `arm_request_rate_limit_counter_total`.
    pub arm_request_rate_limit: Family<ArmLabels, Counter>,
    /// `arm_request_throttle_counter_total`.
    pub arm_request_throttle: Family<ArmLabels, Counter>,
    /// `cloudprovider_azure_arm_ratelimit_remaining`: last `x-ms-ratelimit-remaining-*` values.
    pub ratelimit_remaining: Family<RemainingLabels, Gauge>,
}

impl ArmMetrics {
    /// Creates the metrics and registers them into `registry` under upstream's names.
    pub fn register(registry: &mut Registry) -> ArmMetrics {
        let metrics = ArmMetrics {
            api_request_duration: Family::new_with_constructor(histogram),
            api_request_errors: Family::default(),
            api_request_throttled: Family::default(),
            api_request_ratelimited: Family::default(),
            op_duration: Family::new_with_constructor(histogram),
            op_failure: Family::default(),
            arm_request_duration: Family::new_with_constructor(histogram),
            arm_request_errors: Family::default(),
            arm_request_rate_limit: Family::default(),
            arm_request_throttle: Family::default(),
            ratelimit_remaining: Family::default(),
        };
        registry.register(
            "cloudprovider_azure_api_request_duration_seconds",
            "Latency of an Azure API call",
            metrics.api_request_duration.clone(),
        );
        registry.register(
            "cloudprovider_azure_api_request_errors",
            "Number of errors for an Azure API call",
            metrics.api_request_errors.clone(),
        );
        registry.register(
            "cloudprovider_azure_api_request_throttled_count",
            "Number of throttled Azure API calls",
            metrics.api_request_throttled.clone(),
        );
        registry.register(
            "cloudprovider_azure_api_request_ratelimited_count",
            "Number of rate limited Azure API calls",
            metrics.api_request_ratelimited.clone(),
        );
        registry.register(
            "cloudprovider_azure_op_duration_seconds",
            "Latency of an Azure service operation",
            metrics.op_duration.clone(),
        );
        registry.register(
            "cloudprovider_azure_op_failure_count",
            "Number of failed Azure service operations",
            metrics.op_failure.clone(),
        );
        registry.register(
            "arm_request_duration_seconds",
            "Duration of ARM requests",
            metrics.arm_request_duration.clone(),
        );
        registry.register(
            "arm_request_errors_counter",
            "Number of failed ARM requests",
            metrics.arm_request_errors.clone(),
        );
        registry.register(
            "arm_request_rate_limit_counter",
            "Number of ARM requests delayed or refused by the client-side rate limiter",
            metrics.arm_request_rate_limit.clone(),
        );
        registry.register(
            "arm_request_throttle_counter",
            "Number of ARM requests throttled (HTTP 429 or a closed throttle gate)",
            metrics.arm_request_throttle.clone(),
        );
        registry.register(
            "cloudprovider_azure_arm_ratelimit_remaining",
            "Last value of each x-ms-ratelimit-remaining-* header ARM returned",
            metrics.ratelimit_remaining.clone(),
        );
        metrics
    }

    /// Records one provider operation (e.g. `services_ensure_loadbalancer`) and whether it failed.
    pub fn observe_op(&self, labels: &LegacyLabels, elapsed: Duration, failed: bool) {
        self.op_duration
            .get_or_create(labels)
            .observe(elapsed.as_secs_f64());
        if failed {
            self.op_failure.get_or_create(labels).inc();
        }
    }

    /// Records the `x-ms-ratelimit-remaining-*` headers of one response as gauges.
    pub fn record_remaining(&self, headers: &reqwest::header::HeaderMap) {
        for (header, value) in labels::remaining(headers) {
            self.ratelimit_remaining.get_or_create(&header).set(value);
        }
    }
}

#[cfg(test)]
mod tests;
