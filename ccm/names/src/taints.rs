//! Node taints the cloud controllers add, remove or obey.

use super::access::{Access, Actor};

/// Added by a kubelet started with `--cloud-provider=external`; removed after cloud init.
pub const UNINITIALIZED: &str = "node.cloudprovider.kubernetes.io/uninitialized";
/// Added to a NotReady node whose VM is stopped or deallocated.
pub const SHUTDOWN: &str = "node.cloudprovider.kubernetes.io/shutdown";
/// Added by the Azure provider to a NotReady, shut-down node so volumes detach.
pub const OUT_OF_SERVICE: &str = "node.kubernetes.io/out-of-service";
/// Set by cluster-autoscaler on nodes it is about to delete; such nodes leave LB pools.
pub const TO_BE_DELETED_BY_CLUSTER_AUTOSCALER: &str = "ToBeDeletedByClusterAutoscaler";
/// Control-plane taint (kubeadm); control-plane pods must tolerate it.
pub const CONTROL_PLANE: &str = "node-role.kubernetes.io/control-plane";
/// Legacy control-plane taint.
pub const MASTER: &str = "node-role.kubernetes.io/master";
/// Taint of dedicated etcd nodes (RKE-style); the upstream Helm chart tolerates it with
/// `NoExecute` so a CCM on a combined control-plane/etcd node is not evicted (migration.md 1.5).
pub const ETCD: &str = "node-role.kubernetes.io/etcd";
/// Taint marking nodes reserved for critical add-ons.
pub const CRITICAL_ADDONS_ONLY: &str = "CriticalAddonsOnly";

/// Taint effect, as written in the Node spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// New pods are not scheduled.
    NoSchedule,
    /// Running pods without a toleration are evicted.
    NoExecute,
    /// The effect is chosen by whoever sets the taint.
    Any,
}

impl Effect {
    /// Spelling used in Kubernetes objects.
    pub const fn as_str(self) -> &'static str {
        match self {
            Effect::NoSchedule => "NoSchedule",
            Effect::NoExecute => "NoExecute",
            Effect::Any => "any",
        }
    }
}

/// One taint and its lifecycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeTaint {
    /// Taint key.
    pub key: &'static str,
    /// Effect used.
    pub effect: Effect,
    /// Who adds/removes and who obeys.
    pub access: Access,
    /// When it appears and disappears.
    pub description: &'static str,
}

/// Every node taint relevant to the Azure cloud provider.
pub static NODE_TAINTS: &[NodeTaint] = &[
    NodeTaint {
        key: UNINITIALIZED,
        effect: Effect::NoSchedule,
        access: Access {
            written_by: &[
                Actor::Kubelet,
                Actor::CloudNodeManager,
                Actor::CloudNodeController,
            ],
            read_by: &[Actor::CloudNodeManager, Actor::CloudNodeController],
        },
        description: "The kubelet registers a new Node with it when started with \
                      `--cloud-provider=external`; cloud-node-manager removes it after setting the \
                      provider ID, labels and addresses. An existing Node is not re-tainted when \
                      its kubelet switches to `external`.",
    },
    NodeTaint {
        key: SHUTDOWN,
        effect: Effect::NoSchedule,
        access: Access {
            written_by: &[Actor::NodeLifecycleController],
            read_by: &[Actor::AzureProvider],
        },
        description: "Added while the node is NotReady and its VM is stopped, deallocated or \
                      deallocating; removed when the node is Ready again.",
    },
    NodeTaint {
        key: OUT_OF_SERVICE,
        effect: Effect::NoExecute,
        access: Access {
            written_by: &[Actor::AzureProvider],
            read_by: &[],
        },
        description: "Azure addition: added while the node is NotReady and carries the shutdown \
                      taint (lets volumes detach from a dead node); removed when Ready.",
    },
    NodeTaint {
        key: TO_BE_DELETED_BY_CLUSTER_AUTOSCALER,
        effect: Effect::Any,
        access: Access {
            written_by: &[Actor::ClusterAutoscaler],
            read_by: &[Actor::ServiceController],
        },
        description: "Nodes carrying it are left out of load-balancer backend pools.",
    },
];
