//! The cloud-agnostic settings and metrics the hosted controllers are built with.

use std::time::Duration;

use prometheus_client::registry::Registry;

use crate::node::NodeMetrics;
use crate::node_ipam::IpamConfig;
use crate::route::RouteMetrics;
use crate::service::ServiceMetrics;

/// The flags both controller managers share (`--cluster-name`, periods, ranges).
#[derive(Debug, Clone)]
pub struct ControllerSettings {
    /// `--cluster-name`.
    pub cluster_name: String,
    /// `--cluster-cidr` as given (comma-separated).
    pub cluster_cidr: String,
    /// `--concurrent-service-syncs` (at least 1).
    pub concurrent_service_syncs: u16,
    /// `--node-monitor-period` of cloud-node-lifecycle.
    pub node_monitor_period: Duration,
    /// `--node-status-update-frequency` of cloud-node.
    pub node_status_update_frequency: Duration,
    /// `--concurrent-node-syncs` of cloud-node (at least 1).
    pub concurrent_node_syncs: u16,
    /// `--route-reconciliation-period`.
    pub route_reconciliation_period: Duration,
    /// node-ipam ranges (`None`: node-ipam does not run).
    pub ipam: Option<IpamConfig>,
    /// Pause between two controller starts (`--controller-start-interval`).
    pub start_interval: Duration,
}

/// The controllers' metric families, registered once per process.
#[derive(Clone)]
pub struct ControllerMetrics {
    /// cloud-node.
    pub node: NodeMetrics,
    /// service-lb-controller.
    pub service: ServiceMetrics,
    /// node-route-controller.
    pub route: RouteMetrics,
}

impl ControllerMetrics {
    /// Registers every family in `registry`.
    pub fn register(registry: &mut Registry) -> Self {
        ControllerMetrics {
            node: NodeMetrics::register(registry),
            service: ServiceMetrics::register(registry),
            route: RouteMetrics::register(registry),
        }
    }
}
