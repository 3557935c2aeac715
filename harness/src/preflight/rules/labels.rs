//! P6: workloads and PersistentVolumes that select nodes by the beta topology labels, which the
//! cloud-node-manager does not write on new nodes (migration.md §3 P6; ccm-names `labels`).

use serde::Serialize;
use serde_json::Value;

use super::S;
use crate::preflight::finding::Finding;
use ccm_names::labels::{
    BETA_INSTANCE_TYPE, BETA_REGION, BETA_ZONE, INSTANCE_TYPE, TOPOLOGY_REGION, TOPOLOGY_ZONE,
};

/// Beta labels and their GA successors.
pub const BETA_LABELS: [(&str, &str); 3] = [
    (BETA_ZONE, TOPOLOGY_ZONE),
    (BETA_REGION, TOPOLOGY_REGION),
    (BETA_INSTANCE_TYPE, INSTANCE_TYPE),
];

/// One object using a beta label.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct BetaLabelUse {
    /// `Deployment ns/name`, `PersistentVolume name`.
    pub object: String,
    /// The beta label.
    pub label: String,
}

fn walk<'a>(value: &'a Value, found: &mut Vec<&'a str>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                if let Some((beta, _)) = BETA_LABELS.iter().find(|(b, _)| b == k) {
                    found.push(beta);
                }
                walk(v, found);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| walk(v, found)),
        Value::String(s) => {
            if let Some((beta, _)) = BETA_LABELS.iter().find(|(b, _)| b == s) {
                found.push(beta);
            }
        }
        _ => {}
    }
}

/// The beta labels `spec` (a pod template's scheduling fields or a PV's `nodeAffinity`) uses, as
/// selector keys, affinity keys or topology keys.
pub fn beta_label_uses(object: &str, spec: &Value) -> Vec<BetaLabelUse> {
    let mut found = Vec::new();
    walk(spec, &mut found);
    found.sort();
    found.dedup();
    found
        .into_iter()
        .map(|label| BetaLabelUse {
            object: object.to_owned(),
            label: label.to_owned(),
        })
        .collect()
}

/// One warning per object and label.
pub fn findings(uses: &[BetaLabelUse]) -> Vec<Finding> {
    uses.iter()
        .map(|u| {
            let ga = BETA_LABELS
                .iter()
                .find(|(b, _)| *b == u.label)
                .map(|(_, ga)| *ga)
                .unwrap_or_default();
            let pv = u.object.starts_with("PersistentVolume ");
            Finding::new(
                S::Warn,
                "P6",
                u.object.clone(),
                format!(
                    "selects nodes by {}, which nodes initialised by the cloud-node-manager do not \
                     carry{}",
                    u.label,
                    if pv {
                        " (pods using this volume would fail with `volume node affinity conflict` \
                         on new nodes)"
                    } else {
                        " (its pods would not schedule on new nodes)"
                    }
                ),
                if pv {
                    format!(
                        "recreate the PV with {ga} in its nodeAffinity (nodeAffinity is immutable)"
                    )
                } else {
                    format!("use {ga} instead")
                },
            )
        })
        .collect()
}
