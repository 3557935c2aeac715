//! Node metadata: the `InstancesV2` interface the node and node-lifecycle controllers call.

use std::collections::BTreeMap;
use std::future::Future;

use k8s_openapi::api::core::v1::{Node, NodeAddress};

use crate::CloudError;

/// What the cloud knows about a node's instance (`cloudprovider.InstanceMetadata`); the node
/// controller copies it onto the Node (spec.providerID, labels, status.addresses).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct InstanceMetadata {
    /// The instance's provider ID (`azure:///subscriptions/...`), byte-identical to upstream's.
    pub provider_id: String,
    /// Instance type (VM size), for `node.kubernetes.io/instance-type`.
    pub instance_type: String,
    /// Addresses in the provider's order; the first InternalIP of each family matters to kubelets.
    pub node_addresses: Vec<NodeAddress>,
    /// Zone (`topology.kubernetes.io/zone`), empty when the cloud has none.
    pub zone: String,
    /// Region (`topology.kubernetes.io/region`), empty when the cloud has none.
    pub region: String,
    /// Extra labels the provider wants on the node.
    pub additional_labels: BTreeMap<String, String>,
}

/// Node ↔ instance queries (`cloudprovider.InstancesV2`).
pub trait InstancesV2: Send + Sync {
    /// The provider's error type.
    type Error: std::error::Error + Send + Sync + 'static;

    /// Whether the node's instance still exists; `false` lets the node-lifecycle controller delete
    /// the Node. Instances being deleted count as gone.
    fn instance_exists(
        &self,
        node: &Node,
    ) -> impl Future<Output = Result<bool, CloudError<Self::Error>>> + Send;

    /// Whether the node's instance is shut down (the node gets the shutdown taint, not deleted).
    fn instance_shutdown(
        &self,
        node: &Node,
    ) -> impl Future<Output = Result<bool, CloudError<Self::Error>>> + Send;

    /// The node's metadata; [`CloudError::InstanceNotFound`] when the instance does not exist.
    fn instance_metadata(
        &self,
        node: &Node,
    ) -> impl Future<Output = Result<InstanceMetadata, CloudError<Self::Error>>> + Send;
}
