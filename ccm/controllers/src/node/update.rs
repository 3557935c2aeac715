//! The pure decision of the cloud-node controller: what one sync changes on a Node, computed
//! from the Node and its instance metadata without any I/O.

use ccm_cloud::InstanceMetadata;
use ccm_names::taints::UNINITIALIZED;
use k8s_openapi::api::core::v1::{Node, NodeAddress};
use serde::Serialize;

use super::addresses::{AddressError, addresses_changed, desired_addresses};
use super::labels::{BetaLabels, Labels, labels_from_metadata, reconciled_labels};

/// The changes one sync makes: spec and labels in one Update, then addresses in a status patch.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct NodeUpdate {
    /// New `spec.providerID`, only when the node has none.
    pub provider_id: Option<String>,
    /// Labels to set (added or overwritten).
    pub labels: Labels,
    /// True when the uninitialized taint goes in the same Update.
    pub remove_uninitialized_taint: bool,
    /// New `status.addresses` (replacing the list), only when they differ from the node's.
    pub addresses: Option<Vec<NodeAddress>>,
}

impl NodeUpdate {
    /// True when the spec/metadata Update has something to write.
    pub fn changes_object(&self) -> bool {
        self.provider_id.is_some() || !self.labels.is_empty() || self.remove_uninitialized_taint
    }

    /// Applies the spec/metadata part to a (freshly read) Node, for the Update.
    pub fn apply_to(&self, node: &mut Node) {
        if let Some(id) = &self.provider_id {
            node.spec.get_or_insert_default().provider_id = Some(id.clone());
        }
        if !self.labels.is_empty() {
            let labels = node.metadata.labels.get_or_insert_default();
            labels.extend(self.labels.clone());
        }
        if self.remove_uninitialized_taint
            && let Some(taints) = node.spec.as_mut().and_then(|s| s.taints.as_mut())
        {
            taints.retain(|t| t.key != UNINITIALIZED);
        }
    }
}

/// True when the node still waits for cloud initialisation.
pub fn is_uninitialized(node: &Node) -> bool {
    has_taint(node, UNINITIALIZED)
}

/// True when the node carries a taint with this key (any effect).
pub fn has_taint(node: &Node, key: &str) -> bool {
    node.spec
        .as_ref()
        .and_then(|s| s.taints.as_ref())
        .is_some_and(|taints| taints.iter().any(|t| t.key == key))
}

fn labels_of(node: &Node) -> Labels {
    node.metadata.labels.clone().unwrap_or_default()
}

fn address_change(
    node: &Node,
    meta: &InstanceMetadata,
) -> Result<Option<Vec<NodeAddress>>, AddressError> {
    let current = node
        .status
        .as_ref()
        .and_then(|s| s.addresses.clone())
        .unwrap_or_default();
    Ok(desired_addresses(node, &meta.node_addresses)?
        .filter(|desired| addresses_changed(&current, desired)))
}

/// Initialisation of a tainted node: providerID if empty, GA and beta labels plus the provider's,
/// taint removal, and addresses. A kubelet-provided IP missing from the cloud's list refuses the
/// whole update, so the node stays tainted.
pub fn initialisation(
    node: &Node,
    meta: &InstanceMetadata,
    beta: BetaLabels,
) -> Result<NodeUpdate, AddressError> {
    let addresses = address_change(node, meta)?;
    let current = labels_of(node);
    let provider_id_empty = node
        .spec
        .as_ref()
        .and_then(|s| s.provider_id.as_deref())
        .is_none_or(str::is_empty);
    let mut labels = labels_from_metadata(&current, meta, beta);
    labels.retain(|k, v| current.get(k) != Some(v));
    Ok(NodeUpdate {
        provider_id: (provider_id_empty && !meta.provider_id.is_empty())
            .then(|| meta.provider_id.clone()),
        labels,
        remove_uninitialized_taint: is_uninitialized(node),
        addresses,
    })
}

/// Sync of an initialised node: GA labels kept equal to beta ones (no cloud call needed); nothing
/// when beta labels are not written.
pub fn label_reconciliation(node: &Node, beta: BetaLabels) -> NodeUpdate {
    let labels = match beta {
        BetaLabels::Write => reconciled_labels(&labels_of(node)),
        BetaLabels::Skip => Labels::new(),
    };
    NodeUpdate {
        labels,
        ..NodeUpdate::default()
    }
}

/// Periodic refresh of an initialised node: new addresses when the cloud's differ.
pub fn address_refresh(
    node: &Node,
    meta: &InstanceMetadata,
) -> Result<Option<Vec<NodeAddress>>, AddressError> {
    if is_uninitialized(node) {
        return Ok(None);
    }
    address_change(node, meta)
}
