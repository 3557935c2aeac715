//! The route controller's Prometheus counter, under upstream's name.
//!
//! Source for the name: anchor-ccm.md 8 (`route_controller_route_sync_total`). **[infer]** it
//! counts reconciliation passes that reached the cloud (upstream's exact increment point was
//! not re-read).

use prometheus_client::metrics::counter::Counter;
use prometheus_client::registry::Registry;

/// Counter name (exposed with the `_total` suffix).
pub const ROUTE_SYNC: &str = "route_controller_route_sync";

/// Metrics of the route controller.
#[derive(Clone, Default)]
pub struct RouteMetrics {
    /// Reconciliation passes.
    pub route_sync: Counter,
}

impl RouteMetrics {
    /// Creates the counter and registers it so `/metrics` exposes it.
    pub fn register(registry: &mut Registry) -> Self {
        let metrics = Self::default();
        registry.register(
            ROUTE_SYNC,
            "A metric counting the amount of times routes have been synced with the cloud provider",
            metrics.route_sync.clone(),
        );
        metrics
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_is_exposed_as_upstream() {
        let mut registry = Registry::default();
        let metrics = RouteMetrics::register(&mut registry);
        metrics.route_sync.inc();
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
        assert!(
            text.contains("route_controller_route_sync_total 1"),
            "{text}"
        );
    }
}
