//! The cloud-node controller's Prometheus histograms, under upstream's names.
//!
//! Source for names and meaning: `k8s.io/cloud-provider` `controllers/node/metrics.go` (via
//! anchor-ccm.md 8 and migration.md 6.1). **[infer]** buckets `1, 4, 16, ... 1024` s (exponential
//! ×4 from 1 s, six buckets) as recalled from upstream, not re-read.

use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

/// Histogram name of the delay between node creation and removal of the uninitialized taint.
pub const TAINT_REMOVAL_DELAY: &str = "cloud_provider_taint_removal_delay_seconds";
/// Histogram name of the delay between node creation and the end of its first sync.
pub const INITIAL_NODE_SYNC_DELAY: &str = "initial_node_sync_delay_seconds";

/// Delays observed once per initialised node, from its creation timestamp.
#[derive(Clone)]
pub struct NodeMetrics {
    /// Seconds from creation to taint removal.
    pub taint_removal_delay: Histogram,
    /// Seconds from creation to the end of the initial sync.
    pub initial_node_sync_delay: Histogram,
}

fn histogram() -> Histogram {
    Histogram::new(exponential_buckets(1.0, 4.0, 6))
}

impl Default for NodeMetrics {
    fn default() -> Self {
        Self {
            taint_removal_delay: histogram(),
            initial_node_sync_delay: histogram(),
        }
    }
}

impl NodeMetrics {
    /// Creates the histograms and registers them so `/metrics` exposes them.
    pub fn register(registry: &mut Registry) -> Self {
        let metrics = Self::default();
        registry.register(
            TAINT_REMOVAL_DELAY,
            "Number of seconds after node creation when the cloud-provider taint was removed",
            metrics.taint_removal_delay.clone(),
        );
        registry.register(
            INITIAL_NODE_SYNC_DELAY,
            "Number of seconds after node creation when the initial synchronization finished",
            metrics.initial_node_sync_delay.clone(),
        );
        metrics
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_exposed_unchanged() {
        let mut registry = Registry::default();
        let metrics = NodeMetrics::register(&mut registry);
        metrics.taint_removal_delay.observe(3.0);
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
        assert!(
            text.contains("cloud_provider_taint_removal_delay_seconds_count 1"),
            "{text}"
        );
        assert!(
            text.contains("initial_node_sync_delay_seconds_count 0"),
            "{text}"
        );
    }
}
