//! Who reads or writes a name: the shared vocabulary of the label, annotation and taint tables.

/// A process that touches a label, annotation or taint; lets docs say who owns each name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Actor {
    /// The kubelet on the node (registration, `--node-ip`, `--cloud-provider=external`).
    Kubelet,
    /// The per-node `cloud-node-manager` daemon (node initialisation from IMDS).
    CloudNodeManager,
    /// The upstream `cloud-node-controller` inside the CCM (disabled when the CNM is deployed).
    CloudNodeController,
    /// The `cloud-node-lifecycle-controller` inside the CCM.
    NodeLifecycleController,
    /// The `service-lb-controller` inside the CCM.
    ServiceController,
    /// The `node-route-controller` inside the CCM.
    RouteController,
    /// The Azure provider library itself (node informer handlers, LB reconcile).
    AzureProvider,
    /// A cluster administrator, a provisioning tool or a workload owner.
    User,
    /// The cluster autoscaler.
    ClusterAutoscaler,
}

impl Actor {
    /// Human-readable name used in the generated reference pages.
    pub const fn display_name(self) -> &'static str {
        match self {
            Actor::Kubelet => "kubelet",
            Actor::CloudNodeManager => "cloud-node-manager",
            Actor::CloudNodeController => "cloud-node-controller (CCM)",
            Actor::NodeLifecycleController => "cloud-node-lifecycle-controller (CCM)",
            Actor::ServiceController => "service-lb-controller (CCM)",
            Actor::RouteController => "node-route-controller (CCM)",
            Actor::AzureProvider => "Azure provider (CCM)",
            Actor::User => "user",
            Actor::ClusterAutoscaler => "cluster-autoscaler",
        }
    }
}

/// How the cloud provider relates to a name; separates names it owns from names it only obeys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access {
    /// Processes that set (and possibly remove) the name.
    pub written_by: &'static [Actor],
    /// Processes that read the name and change behaviour because of it.
    pub read_by: &'static [Actor],
}

/// Joins actor display names with ", " for table cells.
pub fn join_actors(actors: &[Actor]) -> String {
    if actors.is_empty() {
        return "-".to_string();
    }
    actors
        .iter()
        .map(|a| a.display_name())
        .collect::<Vec<_>>()
        .join(", ")
}
