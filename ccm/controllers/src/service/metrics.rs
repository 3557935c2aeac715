//! The service controller's Prometheus metrics, under upstream's names.
//!
//! Source for names: `k8s.io/cloud-provider` `controllers/service/metrics.go` as listed in
//! anchor-ccm.md 8 and migration.md 6.3. **[infer]** histogram buckets `1, 2, 4, ... 16384` s
//! (exponential ×2 from 1 s, 15 buckets), as recalled of upstream, not re-read.

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

/// Counter of `UpdateLoadBalancer` calls (exposed with the `_total` suffix).
pub const LOADBALANCER_SYNC: &str = "service_controller_loadbalancer_sync";
/// Histogram of the duration of one node sync over every Service.
pub const NODESYNC_LATENCY: &str = "service_controller_nodesync_latency_seconds";
/// Counter of failed per-Service backend updates (exposed with the `_total` suffix).
pub const NODESYNC_ERROR: &str = "service_controller_nodesync_error";
/// Histogram of the duration of one `UpdateLoadBalancer` call.
pub const UPDATE_HOST_LATENCY: &str = "service_controller_update_loadbalancer_host_latency_seconds";

/// Node-sync metrics of the service controller.
#[derive(Clone)]
pub struct ServiceMetrics {
    /// `UpdateLoadBalancer` calls.
    pub loadbalancer_sync: Counter,
    /// Seconds per node sync.
    pub nodesync_latency: Histogram,
    /// Failed backend updates.
    pub nodesync_error: Counter,
    /// Seconds per `UpdateLoadBalancer`.
    pub update_host_latency: Histogram,
}

fn histogram() -> Histogram {
    Histogram::new(exponential_buckets(1.0, 2.0, 15))
}

impl Default for ServiceMetrics {
    fn default() -> Self {
        Self {
            loadbalancer_sync: Counter::default(),
            nodesync_latency: histogram(),
            nodesync_error: Counter::default(),
            update_host_latency: histogram(),
        }
    }
}

impl ServiceMetrics {
    /// Creates the metrics and registers them so `/metrics` exposes them.
    pub fn register(registry: &mut Registry) -> Self {
        let metrics = Self::default();
        registry.register(
            LOADBALANCER_SYNC,
            "A metric counting the amount of times any load balancer has been configured, as an effect of service/node changes on the cluster",
            metrics.loadbalancer_sync.clone(),
        );
        registry.register(
            NODESYNC_LATENCY,
            "A metric measuring the latency for nodesync which updates loadbalancer hosts on cluster node updates",
            metrics.nodesync_latency.clone(),
        );
        registry.register(
            NODESYNC_ERROR,
            "A metric counting the amount of times any load balancer has failed to be configured during node sync",
            metrics.nodesync_error.clone(),
        );
        registry.register(
            UPDATE_HOST_LATENCY,
            "A metric measuring the latency for updating each load balancer hosts",
            metrics.update_host_latency.clone(),
        );
        metrics
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_exposed_as_upstream() {
        let mut registry = Registry::default();
        let metrics = ServiceMetrics::register(&mut registry);
        metrics.loadbalancer_sync.inc();
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
        for name in [
            "service_controller_loadbalancer_sync_total 1",
            "service_controller_nodesync_error_total 0",
            "service_controller_nodesync_latency_seconds_count 0",
            "service_controller_update_loadbalancer_host_latency_seconds_count 0",
        ] {
            assert!(text.contains(name), "{name} missing in {text}");
        }
    }
}
