//! Node labels from instance metadata (GA and beta topology labels plus the provider's extras)
//! and the reconciliation that keeps each GA label equal to its beta twin.
//!
//! Source: `k8s.io/cloud-provider` `controllers/node/node_controller.go`
//! (`getNodeModifiersFromCloudProvider`, `reconcileNodeLabels`, `labelReconcileInfo`), summarised
//! in migration.md 6.1.

use std::collections::BTreeMap;

use ccm_cloud::InstanceMetadata;
use ccm_names::labels::{
    BETA_INSTANCE_TYPE, BETA_REGION, BETA_ZONE, INSTANCE_TYPE, TOPOLOGY_REGION, TOPOLOGY_ZONE,
};

/// Labels as they sit on a Node.
pub type Labels = BTreeMap<String, String>;

/// (primary = beta, secondary = GA) pairs the controller keeps in step on every sync.
const RECONCILED: [(&str, &str); 3] = [
    (BETA_ZONE, TOPOLOGY_ZONE),
    (BETA_REGION, TOPOLOGY_REGION),
    (BETA_INSTANCE_TYPE, INSTANCE_TYPE),
];

/// Whether the deprecated beta topology labels are written next to the GA ones: the framework's
/// cloud-node controller always writes them; cloud-node-manager only with
/// `--enable-deprecated-beta-topology-labels` (anchor-ccm 1.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BetaLabels {
    /// Write beta labels and keep each GA label equal to its beta twin.
    Write,
    /// GA labels only; no beta reconciliation.
    Skip,
}

/// Labels initialisation sets: GA (and, with [`BetaLabels::Write`], beta) for each non-empty
/// topology value, then the provider's additional labels unless reserved or already on the node.
pub fn labels_from_metadata(current: &Labels, meta: &InstanceMetadata, beta: BetaLabels) -> Labels {
    let mut set = Labels::new();
    for (value, ga, beta_key) in [
        (&meta.instance_type, INSTANCE_TYPE, BETA_INSTANCE_TYPE),
        (&meta.zone, TOPOLOGY_ZONE, BETA_ZONE),
        (&meta.region, TOPOLOGY_REGION, BETA_REGION),
    ] {
        if !value.is_empty() {
            set.insert(ga.to_owned(), value.clone());
            if beta == BetaLabels::Write {
                set.insert(beta_key.to_owned(), value.clone());
            }
        }
    }
    for (key, value) in &meta.additional_labels {
        if is_kubernetes_reserved(key) || current.contains_key(key) || set.contains_key(key) {
            continue;
        }
        set.insert(key.clone(), value.clone());
    }
    set
}

/// GA labels to (re)write so each equals its beta twin; empty when already in step.
pub fn reconciled_labels(current: &Labels) -> Labels {
    RECONCILED
        .iter()
        .filter_map(|(primary, secondary)| {
            let value = current.get(*primary)?;
            (current.get(*secondary) != Some(value))
                .then(|| ((*secondary).to_owned(), value.clone()))
        })
        .collect()
}

/// True for keys in the `kubernetes.io` / `k8s.io` namespaces, which providers may not add.
pub fn is_kubernetes_reserved(key: &str) -> bool {
    let Some((prefix, _)) = key.split_once('/') else {
        return false;
    };
    ["kubernetes.io", "k8s.io"]
        .iter()
        .any(|domain| prefix == *domain || prefix.ends_with(&format!(".{domain}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_namespaces_are_recognised() {
        assert!(is_kubernetes_reserved("node.kubernetes.io/x"));
        assert!(is_kubernetes_reserved("k8s.io/x"));
        assert!(!is_kubernetes_reserved(
            "topology.kubernetes.azure.com/sub-fault-domain"
        ));
        assert!(!is_kubernetes_reserved("plain"));
    }

    #[test]
    fn ga_labels_follow_their_beta_twins() {
        let current: Labels = [
            (BETA_ZONE.to_owned(), "eastus-1".to_owned()),
            (TOPOLOGY_ZONE.to_owned(), "eastus-2".to_owned()),
            (BETA_REGION.to_owned(), "eastus".to_owned()),
            (TOPOLOGY_REGION.to_owned(), "eastus".to_owned()),
            (BETA_INSTANCE_TYPE.to_owned(), "Standard_D2s_v3".to_owned()),
        ]
        .into();
        let fixed = reconciled_labels(&current);
        assert_eq!(
            fixed,
            Labels::from([
                (TOPOLOGY_ZONE.to_owned(), "eastus-1".to_owned()),
                (INSTANCE_TYPE.to_owned(), "Standard_D2s_v3".to_owned()),
            ])
        );
    }
}
