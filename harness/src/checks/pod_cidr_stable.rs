//! `pod-cidr-stable` (P12): existing Nodes keep their pod CIDRs, no two Nodes overlap, and every
//! CIDR lies inside the cluster CIDR (`plan.network.cluster_cidr`, comma-separated for dual stack)
//! with the cluster's node mask (`nodeCIDRMaskSizeIPv4`/`IPv6`): a block of another size was given
//! by an allocator configured differently from the cluster's, a second allocator (P12: "different
//! allocator/mask"), which also hands out blocks the first one does not know are taken.
//! Skipped when no Node ever has a pod CIDR (no node IPAM).

use ipnet::IpNet;

use super::{CheckInputs, Intent, require, verdict};
use crate::outcome::{CheckResult, Verdict};
use crate::scenario::CheckName;

const CHECK: CheckName = CheckName::PodCidrStable;

fn overlap(a: &IpNet, b: &IpNet) -> bool {
    a.contains(&b.network()) || b.contains(&a.network())
}

pub(super) fn check(inputs: &CheckInputs<'_>, _intent: &Intent) -> CheckResult {
    let base = match require(
        CHECK,
        &[("baseline", inputs.baseline), ("final", inputs.final_)],
    ) {
        Ok(s) => s[0],
        Err(e) => return e,
    };
    let all = std::iter::once(("baseline", base)).chain(inputs.later());
    if all
        .clone()
        .all(|(_, s)| s.nodes.iter().all(|n| n.pod_cidrs.is_empty()))
    {
        return CheckResult::new(
            CHECK,
            Verdict::Skipped,
            "no node has a pod CIDR (no node IPAM in this scenario)",
        );
    }
    let cluster: Vec<IpNet> = inputs
        .plan
        .network
        .cluster_cidr
        .iter()
        .flat_map(|c| c.split(','))
        .filter_map(|c| c.trim().parse().ok())
        .collect();
    let masks = (
        inputs.plan.network.node_cidr_mask_size_ipv4,
        inputs.plan.network.node_cidr_mask_size_ipv6,
    );
    let mut offenders = Vec::new();
    let mut odd_mask = std::collections::BTreeSet::new();
    // Listed after the overlaps and changes, the harm itself.
    let mut mask_offenders = Vec::new();
    for (label, snap) in inputs.later() {
        for node in &snap.nodes {
            if let Some(before) = base.node(&node.name)
                && !before.pod_cidrs.is_empty()
                && before.pod_cidrs != node.pod_cidrs
            {
                offenders.push(format!(
                    "node {}: podCIDRs [{}] became [{}] at {label}",
                    node.name,
                    before.pod_cidrs.join(", "),
                    node.pod_cidrs.join(", ")
                ));
            }
        }
    }
    for (label, snap) in all {
        let mut seen: Vec<(&str, IpNet)> = Vec::new();
        for node in &snap.nodes {
            for text in &node.pod_cidrs {
                let Ok(net) = text.parse::<IpNet>() else {
                    offenders.push(format!(
                        "node {}: podCIDR {text} is not a CIDR at {label}",
                        node.name
                    ));
                    continue;
                };
                if !cluster.is_empty() && !cluster.iter().any(|c| c.contains(&net)) {
                    offenders.push(format!(
                        "node {}: podCIDR {net} is outside the cluster CIDR {} at {label}",
                        node.name,
                        inputs
                            .plan
                            .network
                            .cluster_cidr
                            .as_deref()
                            .unwrap_or_default()
                    ));
                }
                let mask = match net {
                    IpNet::V4(_) => masks.0,
                    IpNet::V6(_) => masks.1,
                };
                if let Some(mask) = mask
                    && net.prefix_len() != mask
                    && odd_mask.insert(node.name.clone())
                {
                    mask_offenders.push(format!(
                        "node {}: podCIDR {net} is a /{}, not the cluster's node mask /{mask} \
                         (at {label}): an allocator configured with another mask gave it",
                        node.name,
                        net.prefix_len()
                    ));
                }
                if let Some((other, theirs)) = seen.iter().find(|(_, n)| overlap(n, &net)) {
                    offenders.push(format!(
                        "node {}: podCIDR {net} overlaps {theirs} of node {other} at {label}",
                        node.name
                    ));
                }
                seen.push((&node.name, net));
            }
        }
    }
    offenders.extend(mask_offenders);
    verdict(
        CHECK,
        offenders,
        "pod CIDRs unchanged, unique, inside the cluster CIDR and of its node mask".to_owned(),
    )
}

#[cfg(test)]
mod tests {
    use super::super::builders::*;
    use super::*;

    fn kubenet() -> Run {
        let mut run = Run::healthy();
        run.plan = plan("network:\n  mode: kubenet\n  clusterCIDR: 10.244.0.0/16\n");
        let set = |s: &mut crate::snapshot::Snapshot| {
            s.nodes[0].pod_cidrs = vec!["10.244.0.0/24".into()];
            s.nodes[1].pod_cidrs = vec!["10.244.1.0/24".into()];
        };
        for s in [
            run.baseline.as_mut(),
            run.switched.as_mut(),
            run.final_.as_mut(),
        ]
        .into_iter()
        .flatten()
        {
            set(s);
        }
        run
    }

    #[test]
    fn skipped_without_ipam_and_passes_when_stable() {
        assert_eq!(Run::healthy().check(CHECK).verdict, Verdict::Skipped);
        assert_eq!(kubenet().check(CHECK).verdict, Verdict::Pass);
    }

    #[test]
    fn a_duplicate_and_an_outside_cidr_fail() {
        let run = kubenet().after(|s| {
            s.nodes[1].pod_cidrs = vec!["10.244.0.0/24".into()];
            let mut n = node("node-2", "10.0.0.6");
            n.pod_cidrs = vec!["10.99.0.0/24".into()];
            s.nodes.push(n);
        });
        insta::assert_snapshot!(shown(&run.check(CHECK)));
    }

    #[test]
    fn a_block_of_another_mask_fails() {
        let run = kubenet().after(|s| {
            let mut n = node("node-2", "10.0.0.6");
            n.pod_cidrs = vec!["10.244.2.0/25".into()];
            s.nodes.push(n);
        });
        let r = run.check(CHECK);
        assert_eq!(r.verdict, Verdict::Fail);
        assert_eq!(
            r.reason,
            "node node-2: podCIDR 10.244.2.0/25 is a /25, not the cluster's node mask /24 \
             (at switched): an allocator configured with another mask gave it"
        );
    }
}
