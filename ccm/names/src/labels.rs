//! Node labels the Azure provider writes or obeys.

use super::access::{Access, Actor};
use super::metadata_key::MetadataKey;

/// Region of the VM, lower-case (e.g. `eastus`).
pub const TOPOLOGY_REGION: &str = "topology.kubernetes.io/region";
/// Zone of the VM: `<region>-<n>` when zonal, the fault-domain number otherwise.
pub const TOPOLOGY_ZONE: &str = "topology.kubernetes.io/zone";
/// VM size (e.g. `Standard_D2s_v3`).
pub const INSTANCE_TYPE: &str = "node.kubernetes.io/instance-type";
/// Deprecated beta twin of [`TOPOLOGY_ZONE`].
pub const BETA_ZONE: &str = "failure-domain.beta.kubernetes.io/zone";
/// Deprecated beta twin of [`TOPOLOGY_REGION`].
pub const BETA_REGION: &str = "failure-domain.beta.kubernetes.io/region";
/// Deprecated beta twin of [`INSTANCE_TYPE`].
pub const BETA_INSTANCE_TYPE: &str = "beta.kubernetes.io/instance-type";
/// Platform sub-fault-domain reported by IMDS.
pub const SUB_FAULT_DOMAIN: &str = "topology.kubernetes.azure.com/sub-fault-domain";
/// Value of the IMDS `Platform_Interconnect_Group` tag.
pub const INTERCONNECT_GROUP: &str = "topology.kubernetes.azure.com/interconnect-group";
/// `false` marks a node the provider must not look up in ARM (on-prem or foreign VM).
pub const MANAGED: &str = "kubernetes.azure.com/managed";
/// Resource group of a node outside the cluster resource group.
pub const RESOURCE_GROUP: &str = "kubernetes.azure.com/resource-group";
/// Any value other than a parseable `false` keeps the node out of LB backend pools.
pub const EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS: &str =
    "node.kubernetes.io/exclude-from-external-load-balancers";
/// Control-plane role label (kubeadm and most installers).
pub const ROLE_CONTROL_PLANE: &str = "node-role.kubernetes.io/control-plane";
/// Legacy control-plane role label.
pub const ROLE_MASTER: &str = "node-role.kubernetes.io/master";
/// Legacy role label; value `master` marks a control-plane node.
pub const LEGACY_ROLE: &str = "kubernetes.io/role";
/// Operating system of the node (set by the kubelet); used to place Linux-only pods.
pub const OS: &str = "kubernetes.io/os";

/// One node label and how the provider uses it.
pub type NodeLabel = MetadataKey;

const CLOUD_NODE_WRITERS: &[Actor] = &[Actor::CloudNodeManager, Actor::CloudNodeController];

/// Every node label the Azure cloud provider writes or reads, in documentation order.
pub static NODE_LABELS: &[NodeLabel] = &[
    NodeLabel {
        key: TOPOLOGY_REGION,
        access: Access {
            written_by: CLOUD_NODE_WRITERS,
            read_by: &[],
        },
        value: "Azure location, lower-case, e.g. `eastus`",
        description: "Set when the node is initialised; never removed.",
    },
    NodeLabel {
        key: TOPOLOGY_ZONE,
        access: Access {
            written_by: CLOUD_NODE_WRITERS,
            read_by: &[],
        },
        value: "`<location>-<zone>` for zonal VMs (e.g. `eastus-1`); the platform fault domain \
                (`0`, `1`, `2`) otherwise",
        description: "Set when the node is initialised; never removed.",
    },
    NodeLabel {
        key: INSTANCE_TYPE,
        access: Access {
            written_by: CLOUD_NODE_WRITERS,
            read_by: &[],
        },
        value: "VM size, e.g. `Standard_D2s_v3`",
        description: "Set when the node is initialised; never removed.",
    },
    NodeLabel {
        key: BETA_REGION,
        access: Access {
            written_by: CLOUD_NODE_WRITERS,
            read_by: &[],
        },
        value: "same as `topology.kubernetes.io/region`",
        description: "Deprecated. cloud-node-manager writes it only with \
                      `--enable-deprecated-beta-topology-labels`; the CCM cloud-node-controller \
                      always writes it. Workloads and PV node affinity still using it break on \
                      nodes created after the switch.",
    },
    NodeLabel {
        key: BETA_ZONE,
        access: Access {
            written_by: CLOUD_NODE_WRITERS,
            read_by: &[],
        },
        value: "same as `topology.kubernetes.io/zone`",
        description: "Deprecated; same conditions as the beta region label.",
    },
    NodeLabel {
        key: BETA_INSTANCE_TYPE,
        access: Access {
            written_by: CLOUD_NODE_WRITERS,
            read_by: &[],
        },
        value: "same as `node.kubernetes.io/instance-type`",
        description: "Deprecated; same conditions as the beta region label.",
    },
    NodeLabel {
        key: SUB_FAULT_DOMAIN,
        access: Access {
            written_by: &[Actor::CloudNodeManager],
            read_by: &[],
        },
        value: "IMDS `platformSubFaultDomain`",
        description: "Only from IMDS, only when IMDS reports a value.",
    },
    NodeLabel {
        key: INTERCONNECT_GROUP,
        access: Access {
            written_by: &[Actor::CloudNodeManager],
            read_by: &[],
        },
        value: "IMDS tag `Platform_Interconnect_Group`",
        description: "Only from IMDS, only when the VM carries the tag.",
    },
    NodeLabel {
        key: MANAGED,
        access: Access {
            written_by: &[Actor::User],
            read_by: &[Actor::AzureProvider],
        },
        value: "`false` to mark the node unmanaged",
        description: "Unmanaged nodes are never looked up in ARM, are assumed to exist, get the \
                      node name as provider ID, are left out of load balancers, and their routes \
                      are only kept in memory.",
    },
    NodeLabel {
        key: RESOURCE_GROUP,
        access: Access {
            written_by: &[Actor::User],
            read_by: &[Actor::AzureProvider],
        },
        value: "resource group name",
        description: "The VM lives in this resource group instead of the configured one. Nodes \
                      outside the cluster resource group are left out of load-balancer backends.",
    },
    NodeLabel {
        key: EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS,
        access: Access {
            written_by: &[Actor::User],
            read_by: &[Actor::ServiceController, Actor::AzureProvider],
        },
        value: "any; only a parseable `false` keeps the node in",
        description: "Keeps the node out of every load-balancer backend pool.",
    },
    NodeLabel {
        key: ROLE_CONTROL_PLANE,
        access: Access {
            written_by: &[Actor::User],
            read_by: &[Actor::AzureProvider],
        },
        value: "any (usually empty)",
        description: "Control-plane node: left out of standard load balancers while \
                      `excludeMasterFromStandardLB` is true (the default).",
    },
    NodeLabel {
        key: ROLE_MASTER,
        access: Access {
            written_by: &[Actor::User],
            read_by: &[Actor::AzureProvider],
        },
        value: "any (usually empty)",
        description: "Legacy control-plane marker; same effect as the control-plane label.",
    },
    NodeLabel {
        key: LEGACY_ROLE,
        access: Access {
            written_by: &[Actor::User],
            read_by: &[Actor::AzureProvider],
        },
        value: "`master`",
        description: "Legacy control-plane marker; same effect as the control-plane label.",
    },
];

/// Labels on Services the Azure provider reads by fixed key (none: Services are matched only by
/// the user-chosen `serviceLabelSelector` of `multipleStandardLoadBalancerConfigurations`).
pub static SERVICE_LABELS: &[NodeLabel] = &[];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_keys_are_unique_and_qualified() {
        let mut keys: Vec<&str> = NODE_LABELS.iter().map(|l| l.key).collect();
        keys.sort_unstable();
        let n = keys.len();
        keys.dedup();
        assert_eq!(n, keys.len());
        assert!(keys.iter().all(|k| k.contains('/')));
    }

    #[test]
    fn every_label_has_an_actor() {
        for l in NODE_LABELS {
            assert!(
                !l.access.written_by.is_empty() || !l.access.read_by.is_empty(),
                "{}",
                l.key
            );
        }
    }
}
