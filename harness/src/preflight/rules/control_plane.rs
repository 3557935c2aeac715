//! P12 (exactly one pod CIDR allocator), P17 (leader-migration settings) and the version lint of
//! the target manifests (migration.md §3 P12, P17; §2.3, §2.6; ccm-manifests `lint`).

use super::{Facts, S};
use crate::preflight::finding::Finding;
use crate::preflight::target::Target;

/// P12: who allocates pod CIDRs after the switch.
pub fn ipam(facts: &Facts<'_>) -> Vec<Finding> {
    let target = facts.target;
    let allocators: Vec<&str> = target
        .ccm
        .iter()
        .chain(&target.kcm)
        .filter(|m| m.allocate_node_cidrs)
        .map(|m| m.location.as_str())
        .collect();
    let routes = target
        .ccm
        .iter()
        .any(|c| c.configure_cloud_routes == Some(true));
    let with_cidrs = facts
        .nodes
        .iter()
        .filter(|n| !n.pod_cidrs.is_empty())
        .count();
    let mut out = Vec::new();
    if allocators.len() > 1 {
        out.push(Finding::new(
            S::Block,
            "P12",
            allocators.join(" and "),
            "more than one controller-manager sets --allocate-node-cidrs=true: both would \
             allocate, and new nodes could get overlapping pod CIDRs",
            "keep --allocate-node-cidrs=true on exactly one of kube-controller-manager and the CCM",
        ));
    } else if allocators.is_empty() && routes && with_cidrs > 0 {
        out.push(Finding::new(
            S::Block,
            "P12",
            format!("{} (target manifests)", target.dir.display()),
            format!(
                "the CCM configures cloud routes and {with_cidrs} nodes have pod CIDRs, but no \
                 controller-manager allocates them: new nodes would get none"
            ),
            "set --allocate-node-cidrs=true on exactly one controller-manager (with the cluster's \
             --cluster-cidr)",
        ));
    }
    out
}

/// P17: leader-migration flags that would be ignored or refused.
pub fn leader_migration(target: &Target) -> Vec<Finding> {
    let mut out = Vec::new();
    for m in target.ccm.iter().chain(&target.kcm) {
        if m.leader_migration && !m.leader_elect {
            out.push(Finding::new(
                S::Block,
                "P17",
                m.location.clone(),
                "--enable-leader-migration with --leader-elect=false: leader migration is off",
                "remove --leader-elect=false",
            ));
        }
        if m.leader_migration_config.is_some() && !m.leader_migration {
            out.push(Finding::new(
                S::Block,
                "P17",
                m.location.clone(),
                "--leader-migration-config without --enable-leader-migration is silently ignored",
                "add --enable-leader-migration or drop the config",
            ));
        }
        if m.leader_migration && m.leader_migration_config.is_some() && !target.has_migration_config
        {
            out.push(Finding::new(
                S::Warn,
                "P17",
                m.location.clone(),
                "its LeaderMigrationConfiguration is not in the manifests directory, so its \
                 controller names could not be checked",
                "put the leader-migration.yaml next to the manifests",
            ));
        }
    }
    if target.ccm.iter().any(|c| c.leader_migration) {
        out.push(Finding::new(
            S::Info,
            "P17",
            "cloud-controller-manager (target manifests)",
            "the upstream CCM image accepts --enable-leader-migration but never campaigns for the \
             migration lease, so it gives no mutual exclusion with an in-tree \
             kube-controller-manager (migration.md §2.6)",
            "with that image, stop every kube-controller-manager running --cloud-provider=azure \
             before the first CCM replica starts",
        ));
    }
    out
}

/// Lint findings of the target manifests and files that could not be read.
pub fn lint(facts: &Facts<'_>) -> Vec<Finding> {
    let mut out: Vec<Finding> = facts
        .lint
        .iter()
        .map(|(object, message)| {
            Finding::new(
                S::Block,
                "lint",
                object.clone(),
                message.clone(),
                "see `harness manifests lint` and manifests/README.md (version rules)",
            )
        })
        .collect();
    out.extend(facts.target.unreadable.iter().map(|u| {
        Finding::new(
            S::Warn,
            "lint",
            u.clone(),
            "not understood: neither checked nor linted",
            "",
        )
    }));
    out
}
