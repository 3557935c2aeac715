//! A counter exposed without OpenMetrics' `_total` suffix, for upstream's legacy metric names.
//!
//! Upstream registers `cloudprovider_azure_api_request_errors`, `..._throttled_count`,
//! `..._ratelimited_count` and `cloudprovider_azure_op_failure_count` in Kubernetes' legacy
//! registry, which serves the Prometheus text format: the names carry no `_total`. prometheus-client
//! only speaks OpenMetrics, where a `counter` must end in `_total`, so a plain `Counter` would rename
//! them and break every dashboard and alert a migrating user has. This counter is declared `unknown`
//! (untyped) instead, which OpenMetrics serves under the exact registered name; Prometheus stores it
//! as an untyped series and `rate()`/`increase()` work on it as before.

use prometheus_client::encoding::{EncodeMetric, MetricEncoder};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::{MetricType, TypedMetric};

/// A monotonically increasing count served as an untyped sample under its exact name.
#[derive(Debug, Clone, Default)]
pub struct UntypedCounter(Counter<u64>);

impl UntypedCounter {
    /// Adds one.
    pub fn inc(&self) -> u64 {
        self.0.inc()
    }

    /// The current count.
    pub fn get(&self) -> u64 {
        self.0.get()
    }
}

impl TypedMetric for UntypedCounter {
    const TYPE: MetricType = MetricType::Unknown;
}

impl EncodeMetric for UntypedCounter {
    fn encode(&self, mut encoder: MetricEncoder) -> Result<(), std::fmt::Error> {
        encoder.encode_gauge(&self.0.get())
    }

    fn metric_type(&self) -> MetricType {
        Self::TYPE
    }
}
