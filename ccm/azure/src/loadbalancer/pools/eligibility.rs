//! Which nodes may be backend-pool members: a pure filter over Node objects and the config.

use ccm_cloud::NodeView;

use crate::config::{Config, LoadBalancerSku};
use crate::instances::node::{MANAGED_LABEL, RESOURCE_GROUP_LABEL};

/// Its presence (any value) keeps a node out of every backend pool.
pub const EXCLUDE_LABEL: &str = "node.kubernetes.io/exclude-from-external-load-balancers";
/// Control-plane role label (kubeadm and most installers).
pub const CONTROL_PLANE_LABEL: &str = "node-role.kubernetes.io/control-plane";
/// Legacy control-plane role label.
pub const MASTER_LABEL: &str = "node-role.kubernetes.io/master";
/// Legacy role label; the value `master` marks a control-plane node.
pub const LEGACY_ROLE_LABEL: &str = "kubernetes.io/role";
/// Taint the cluster autoscaler puts on a node it is about to delete.
pub const TO_BE_DELETED_TAINT: &str = "ToBeDeletedByClusterAutoscaler";

/// Why a node is not a pool member (tests and logs name the rule that applied).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exclusion {
    /// Labelled `kubernetes.azure.com/managed=false`.
    Unmanaged,
    /// Carries the exclude-from-external-load-balancers label.
    ExcludeLabel,
    /// Lives in another resource group than the config's.
    OtherResourceGroup,
    /// A control-plane node while `excludeMasterFromStandardLB` applies (standard SKU).
    ControlPlane,
    /// `metadata.deletionTimestamp` is set.
    BeingDeleted,
    /// Tainted `ToBeDeletedByClusterAutoscaler`.
    ToBeDeleted,
}

/// True when the node carries one of the control-plane role markers.
pub fn is_control_plane(node: &dyn NodeView) -> bool {
    node.label(CONTROL_PLANE_LABEL).is_some()
        || node.label(MASTER_LABEL).is_some()
        || node.label(LEGACY_ROLE_LABEL) == Some("master")
}

/// The first rule that keeps `node` out of the pools, `None` for an eligible node.
pub fn exclusion(node: &dyn NodeView, config: &Config) -> Option<Exclusion> {
    if node.deletion_timestamp().is_some() {
        return Some(Exclusion::BeingDeleted);
    }
    if node
        .label(MANAGED_LABEL)
        .is_some_and(|v| v.eq_ignore_ascii_case("false"))
    {
        return Some(Exclusion::Unmanaged);
    }
    if node.label(EXCLUDE_LABEL).is_some() {
        return Some(Exclusion::ExcludeLabel);
    }
    if node
        .label(RESOURCE_GROUP_LABEL)
        .filter(|rg| !rg.is_empty())
        .is_some_and(|rg| !rg.eq_ignore_ascii_case(&config.cluster.resource_group))
    {
        return Some(Exclusion::OtherResourceGroup);
    }
    let lb = &config.load_balancer;
    if lb.sku == LoadBalancerSku::Standard
        && lb.exclude_master_from_standard_lb
        && is_control_plane(node)
    {
        return Some(Exclusion::ControlPlane);
    }
    if node.has_taint(TO_BE_DELETED_TAINT) {
        return Some(Exclusion::ToBeDeleted);
    }
    None
}

/// Which nodes may be pool members (pure): every node no [`Exclusion`] applies to, in input order.
pub fn eligible_nodes<'a, N: NodeView>(nodes: &'a [N], config: &Config) -> Vec<&'a dyn NodeView> {
    nodes
        .iter()
        .map(|n| n as &dyn NodeView)
        .filter(|n| exclusion(*n, config).is_none())
        .collect()
}

/// [`eligible_nodes`] over borrowed nodes (what [`super::PoolMembership::ensure`] receives).
pub fn eligible_refs<'a>(nodes: &[&'a dyn NodeView], config: &Config) -> Vec<&'a dyn NodeView> {
    nodes
        .iter()
        .copied()
        .filter(|n| exclusion(*n, config).is_none())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loadbalancer::pools::test_support::{autoscaler_tainted, config, deleting, node};

    use k8s_openapi::api::core::v1::Node;

    fn excluded(n: &Node, extra: &str) -> Option<Exclusion> {
        exclusion(n, &config(extra))
    }

    #[test]
    fn each_rule_excludes_and_plain_nodes_stay() {
        assert_eq!(excluded(&node("a", &[], &[]), ""), None);
        assert_eq!(
            excluded(&node("a", &[(MANAGED_LABEL, "False")], &[]), ""),
            Some(Exclusion::Unmanaged)
        );
        assert_eq!(
            excluded(&node("a", &[(MANAGED_LABEL, "true")], &[]), ""),
            None
        );
        for value in ["", "true", "false"] {
            assert_eq!(
                excluded(&node("a", &[(EXCLUDE_LABEL, value)], &[]), ""),
                Some(Exclusion::ExcludeLabel),
                "presence excludes, value {value:?}"
            );
        }
        assert_eq!(
            excluded(&node("a", &[(RESOURCE_GROUP_LABEL, "other-rg")], &[]), ""),
            Some(Exclusion::OtherResourceGroup)
        );
        assert_eq!(
            excluded(&node("a", &[(RESOURCE_GROUP_LABEL, "rg")], &[]), ""),
            None,
            "the config's group in any case"
        );
        assert_eq!(
            excluded(&deleting(node("a", &[], &[])), ""),
            Some(Exclusion::BeingDeleted)
        );
        assert_eq!(
            excluded(&autoscaler_tainted(node("a", &[], &[])), ""),
            Some(Exclusion::ToBeDeleted)
        );
    }

    #[test]
    fn control_plane_only_on_standard_with_the_switch() {
        for labels in [
            [(CONTROL_PLANE_LABEL, "")],
            [(MASTER_LABEL, "")],
            [(LEGACY_ROLE_LABEL, "master")],
        ] {
            let n = node("cp", &labels, &[]);
            assert_eq!(
                excluded(&n, ""),
                Some(Exclusion::ControlPlane),
                "{labels:?}"
            );
            assert_eq!(
                excluded(&n, r#", "excludeMasterFromStandardLB": false"#),
                None
            );
            assert_eq!(excluded(&n, r#", "loadBalancerSku": "basic""#), None);
        }
        assert_eq!(
            excluded(&node("w", &[(LEGACY_ROLE_LABEL, "agent")], &[]), ""),
            None
        );
    }

    #[test]
    fn eligible_nodes_keep_input_order() {
        let nodes = [
            node("b", &[], &[]),
            node("x", &[(EXCLUDE_LABEL, "")], &[]),
            node("a", &[], &[]),
        ];
        let names: Vec<_> = eligible_nodes(&nodes, &config(""))
            .iter()
            .map(|n| n.name().to_owned())
            .collect();
        assert_eq!(names, ["b", "a"]);
    }
}
