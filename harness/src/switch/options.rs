//! The plan's settings as `ccm_manifests` generator options: the same options the operator would
//! give `harness manifests generate` for that version, cluster and network, so the processes run
//! with the flags of the manifests the project ships.

use ccm_manifests::cidr::Cidr;
use ccm_manifests::options::NodeIpam;
use ccm_manifests::{AuthMode, KubeVersion, Mode, Options};

use super::error::SwitchError;
use crate::scenario::{CidrAllocator, NetworkMode, ScenarioPlan};

/// Which side of the switch the options describe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The in-tree cluster (`--cloud-provider=azure` on the KCM), version N.
    InTree,
    /// After the switch: CCM + CNM, KCM external.
    OutOfTree,
}

/// The generator's options for `side` of `plan`; `leader_migration` wires the
/// LeaderMigrationConfiguration into the KCM (in-tree) or the CCM (out-of-tree).
///
/// Node IPAM: in-tree the KCM allocates (the generator's default); after the switch the owner is
/// `network.cidrAllocator` (`both` generates the CCM as owner, the KCM is kept allocating by
/// [`super::flags`]); with Leader Migration IPAM stays in the KCM whatever the plan says, as the
/// generator refuses to hand it over during a migration (`OptionsError::NodeIpamWithLeaderMigration`).
pub fn options(
    plan: &ScenarioPlan,
    side: Side,
    leader_migration: bool,
) -> Result<Options, SwitchError> {
    let bad = |reason: String| SwitchError::Plan {
        scenario: plan.name.clone(),
        reason,
    };
    let version = KubeVersion::parse(&plan.kubernetes_version)
        .map_err(|e| bad(format!("kubernetesVersion: {e}")))?;
    let mode = match side {
        Side::InTree => Mode::InTree,
        Side::OutOfTree => Mode::OutOfTree,
    };
    let mut o = Options::new(mode, version);
    o.cluster_name = match side {
        Side::InTree => plan.cluster_name.clone(),
        Side::OutOfTree => plan.switch.ccm_cluster_name.clone(),
    };
    // The harness's azure.json files carry an Entra app's client id and secret.
    o.auth = AuthMode::ServicePrincipal;
    o.replicas = u16::try_from(plan.switch.ccm_replicas).unwrap_or(u16::MAX);
    o.leader_migration = leader_migration;
    if plan.network.mode == NetworkMode::Kubenet {
        o.configure_cloud_routes = true;
        if let Some(cidrs) = &plan.network.cluster_cidr {
            o.cluster_cidrs = cidrs
                .split(',')
                .map(|c| Cidr::parse(c.trim()))
                .collect::<Result<_, _>>()
                .map_err(|e| bad(format!("network.clusterCIDR: {e}")))?;
        }
        o.node_ipam = match (side, leader_migration, plan.network.cidr_allocator) {
            (Side::InTree, _, _) | (_, true, _) => Some(NodeIpam::KubeControllerManager),
            (_, _, Some(CidrAllocator::KubeControllerManager)) => {
                Some(NodeIpam::KubeControllerManager)
            }
            _ => Some(NodeIpam::CloudControllerManager),
        };
    }
    Ok(o)
}

/// True when the KCM keeps allocating node CIDRs after the switch (`cidrAllocator` is
/// `kube-controller-manager` or `both`, or Leader Migration keeps IPAM in the KCM).
pub fn kcm_allocates_after(plan: &ScenarioPlan, leader_migration: bool) -> bool {
    plan.network.mode == NetworkMode::Kubenet
        && (leader_migration
            || matches!(
                plan.network.cidr_allocator,
                Some(CidrAllocator::KubeControllerManager | CidrAllocator::Both)
            ))
}
