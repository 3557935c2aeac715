//! `labels-equal` (P6): the cloud-owned labels (those `ccm-names` lists as written by the
//! cloud-node-manager or cloud-node controller: topology and instance-type, GA and beta, and the
//! `kubernetes.azure.com` ones) keep their values on every existing Node; a Node added later has
//! the same keys as a baseline Node of its pool, the same region and the same zone format.

use std::collections::BTreeMap;

use ccm_names::Actor;

use super::{CheckInputs, Intent, require, verdict};
use crate::outcome::CheckResult;
use crate::scenario::CheckName;
use crate::snapshot::{NodeState, Snapshot};

const CHECK: CheckName = CheckName::LabelsEqual;

/// True for a label key the cloud node initialisation owns.
pub(crate) fn cloud_owned(key: &str) -> bool {
    ccm_names::labels::NODE_LABELS.iter().any(|l| {
        l.key == key
            && l.access
                .written_by
                .iter()
                .any(|a| matches!(a, Actor::CloudNodeManager | Actor::CloudNodeController))
    })
}

fn cloud_labels(node: &NodeState) -> BTreeMap<&str, &str> {
    node.labels
        .iter()
        .filter(|(k, _)| cloud_owned(k))
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect()
}

/// The node's pool: its scale set (providerID), else its availability set (ARM), else its name
/// without the trailing instance number.
pub(crate) fn pool_of(node: &NodeState, snap: &Snapshot) -> String {
    if let Some(id) = &node.provider_id {
        let lower = id.to_ascii_lowercase();
        if let Some(rest) = lower.split("/virtualmachinescalesets/").nth(1) {
            return format!("vmss {}", rest.split('/').next().unwrap_or(rest));
        }
    }
    let machine =
        snap.arm.machines.iter().find(|m| {
            m.computer_name.as_deref() == Some(node.name.as_str()) || m.name == node.name
        });
    if let Some(set) = machine.and_then(|m| m.availability_set.as_ref()) {
        return format!("availability set {}", set.rsplit('/').next().unwrap_or(set));
    }
    format!(
        "name {}",
        node.name
            .trim_end_matches(|c: char| c.is_ascii_digit() || c == '-' || c == '_')
    )
}

/// `<region>-<n>` zones are "zonal", bare numbers are fault domains.
fn zone_format(zone: &str) -> &'static str {
    if zone.chars().all(|c| c.is_ascii_digit()) {
        "fault-domain number"
    } else if zone
        .rsplit_once('-')
        .is_some_and(|(_, n)| n.chars().all(|c| c.is_ascii_digit()))
    {
        "<region>-<n>"
    } else {
        "other"
    }
}

fn compare_new(node: &NodeState, reference: &NodeState, label: &str) -> Vec<String> {
    let (new, old) = (cloud_labels(node), cloud_labels(reference));
    let mut out = Vec::new();
    let missing: Vec<&str> = old
        .keys()
        .filter(|k| !new.contains_key(*k))
        .copied()
        .collect();
    let extra: Vec<&str> = new
        .keys()
        .filter(|k| !old.contains_key(*k))
        .copied()
        .collect();
    if !missing.is_empty() || !extra.is_empty() {
        out.push(format!(
            "new node {}: cloud labels differ from {} of its pool at {label}: missing [{}], extra [{}]",
            node.name,
            reference.name,
            missing.join(", "),
            extra.join(", ")
        ));
    }
    for key in [
        ccm_names::labels::TOPOLOGY_REGION,
        ccm_names::labels::BETA_REGION,
    ] {
        if let (Some(a), Some(b)) = (new.get(key), old.get(key))
            && a != b
        {
            out.push(format!(
                "new node {}: {key}={a} but {} has {b}",
                node.name, reference.name
            ));
        }
    }
    for key in [
        ccm_names::labels::TOPOLOGY_ZONE,
        ccm_names::labels::BETA_ZONE,
    ] {
        if let (Some(a), Some(b)) = (new.get(key), old.get(key))
            && zone_format(a) != zone_format(b)
        {
            out.push(format!(
                "new node {}: {key}={a} ({}) but {} has {b} ({})",
                node.name,
                zone_format(a),
                reference.name,
                zone_format(b)
            ));
        }
    }
    out
}

pub(super) fn check(inputs: &CheckInputs<'_>, _intent: &Intent) -> CheckResult {
    let base = match require(
        CHECK,
        &[("baseline", inputs.baseline), ("final", inputs.final_)],
    ) {
        Ok(s) => s[0],
        Err(e) => return e,
    };
    let mut offenders = Vec::new();
    let mut new_nodes = 0;
    for (label, snap) in inputs.later() {
        for node in &snap.nodes {
            match base.node(&node.name) {
                Some(before) => {
                    let (old, new) = (cloud_labels(before), cloud_labels(node));
                    for (key, value) in &old {
                        match new.get(key) {
                            Some(v) if v == value => {}
                            Some(v) => offenders.push(format!(
                                "node {}: label {key}={value} became {v} at {label}",
                                node.name
                            )),
                            None => offenders.push(format!(
                                "node {}: label {key}={value} is gone at {label}",
                                node.name
                            )),
                        }
                    }
                }
                None if label == "final" => {
                    new_nodes += 1;
                    let pool = pool_of(node, snap);
                    let reference = base
                        .nodes
                        .iter()
                        .find(|b| pool_of(b, base) == pool)
                        .or_else(|| base.nodes.first());
                    if let Some(reference) = reference {
                        offenders.extend(compare_new(node, reference, label));
                    }
                }
                None => {}
            }
        }
    }
    verdict(
        CHECK,
        offenders,
        format!(
            "cloud labels equal on {} nodes; {new_nodes} new nodes match their pool",
            base.nodes.len()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::super::builders::*;
    use super::*;
    use crate::outcome::Verdict;

    #[test]
    fn a_lost_beta_label_fails() {
        let mut run = Run::healthy();
        for n in &mut run.baseline.as_mut().unwrap().nodes {
            n.labels
                .insert(ccm_names::labels::BETA_ZONE.into(), "eastus-1".into());
        }
        assert_eq!(
            run.check(CHECK).verdict,
            Verdict::Fail,
            "only baseline has it"
        );
        let healthy = Run::healthy();
        assert_eq!(healthy.check(CHECK).verdict, Verdict::Pass);
        insta::assert_snapshot!(shown(&run.check(CHECK)));
    }

    #[test]
    fn a_new_node_is_compared_with_its_pool() {
        let same = Run::healthy().after(|s| s.nodes.push(node("node-2", "10.0.0.6")));
        assert_eq!(
            same.check(CHECK).verdict,
            Verdict::Pass,
            "{:?}",
            same.check(CHECK)
        );
        let drift = Run::healthy().after(|s| {
            let mut n = node("node-2", "10.0.0.6");
            n.labels
                .insert(ccm_names::labels::TOPOLOGY_ZONE.into(), "0".into());
            n.labels.remove(ccm_names::labels::INSTANCE_TYPE);
            s.nodes.push(n);
        });
        insta::assert_snapshot!(shown(&drift.check(CHECK)));
    }
}
