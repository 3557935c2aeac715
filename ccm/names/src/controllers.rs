//! Controller names (for `--controllers`), their aliases and the Event source each one reports.

/// One cloud controller the CCM can run; the `--controllers` flag and leader migration use these.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CloudController {
    /// Canonical name accepted by `--controllers` (k8s.io/cloud-provider `names`).
    pub canonical: &'static str,
    /// Short alias also accepted by `--controllers` (normalised to the canonical name).
    pub alias: Option<&'static str>,
    /// `source.component` of the Events the controller records.
    pub event_source: &'static str,
    /// Name used in `LeaderMigrationConfiguration.controllerLeaders` by k8s <= 1.27 libraries.
    pub leader_migration_name_pre_1_28: Option<&'static str>,
    /// What the controller does, for docs and `--help` text.
    pub purpose: &'static str,
}

/// Canonical name of the node initialisation controller (replaced by cloud-node-manager on Azure).
pub const CLOUD_NODE: &str = "cloud-node-controller";
/// Canonical name of the controller that deletes or taints Nodes whose VM is gone or stopped.
pub const CLOUD_NODE_LIFECYCLE: &str = "cloud-node-lifecycle-controller";
/// Canonical name of the LoadBalancer Service controller.
pub const SERVICE_LB: &str = "service-lb-controller";
/// Canonical name of the route-table controller (kubenet clusters).
pub const NODE_ROUTE: &str = "node-route-controller";
/// Name of the anchor's own node IPAM controller (no alias).
pub const NODE_IPAM: &str = "node-ipam";

/// Every controller the Azure CCM knows, in start order.
pub static CLOUD_CONTROLLERS: &[CloudController] = &[
    CloudController {
        canonical: CLOUD_NODE,
        alias: Some("cloud-node"),
        event_source: "cloud-node-controller",
        leader_migration_name_pre_1_28: None,
        purpose: "initialises new Nodes from ARM (provider ID, addresses, topology labels)",
    },
    CloudController {
        canonical: CLOUD_NODE_LIFECYCLE,
        alias: Some("cloud-node-lifecycle"),
        event_source: "cloud-node-lifecycle-controller",
        leader_migration_name_pre_1_28: Some("cloud-node-lifecycle"),
        purpose: "deletes NotReady Nodes whose VM no longer exists; taints shut-down ones",
    },
    CloudController {
        canonical: SERVICE_LB,
        alias: Some("service"),
        event_source: "service-controller",
        leader_migration_name_pre_1_28: Some("service"),
        purpose: "reconciles Azure load balancers, public IPs and NSG rules for LoadBalancer Services",
    },
    CloudController {
        canonical: NODE_ROUTE,
        alias: Some("route"),
        event_source: "route_controller",
        leader_migration_name_pre_1_28: Some("route"),
        purpose: "writes one route per node pod CIDR into the cluster route table",
    },
    CloudController {
        canonical: NODE_IPAM,
        alias: None,
        event_source: "cidrAllocator",
        leader_migration_name_pre_1_28: None,
        purpose: "allocates pod CIDRs to Nodes when --allocate-node-cidrs=true",
    },
];

/// Event source of messages the Azure provider library records itself.
pub const AZURE_PROVIDER_EVENT_SOURCE: &str = "azure-cloud-provider";

/// Looks a controller up by canonical name or alias, as `--controllers` does.
pub fn lookup(name: &str) -> Option<&'static CloudController> {
    CLOUD_CONTROLLERS
        .iter()
        .find(|c| c.canonical == name || c.alias == Some(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_resolve_to_canonical_names() {
        assert_eq!(lookup("route").map(|c| c.canonical), Some(NODE_ROUTE));
        assert_eq!(lookup("service").map(|c| c.canonical), Some(SERVICE_LB));
        assert_eq!(lookup("cloud-node").map(|c| c.canonical), Some(CLOUD_NODE));
        assert_eq!(lookup(NODE_IPAM).map(|c| c.canonical), Some(NODE_IPAM));
        assert!(lookup("nodeipam").is_none());
    }

    #[test]
    fn names_and_aliases_are_unique() {
        let mut all: Vec<&str> = CLOUD_CONTROLLERS.iter().map(|c| c.canonical).collect();
        all.extend(CLOUD_CONTROLLERS.iter().filter_map(|c| c.alias));
        let before = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(before, all.len());
    }
}
