//! The cloud-node-manager's provider: node metadata from the local VM's IMDS only, so a node
//! initialises itself with no ARM credential and zero ARM calls (anchor-ccm.md 1.4).
//!
//! Besides the shared metadata it adds the CNM-only labels (anchor-ccm.md section 2 label table):
//! `topology.kubernetes.azure.com/sub-fault-domain` from `platformSubFaultDomain` and
//! `topology.kubernetes.azure.com/interconnect-group` from the `Platform_Interconnect_Group` tag,
//! each only when non-empty.
//!
//! It answers only for its own node: asked about another Node it reports the instance as not
//! found, since IMDS describes the local VM alone. Zones, load balancers and routes are not offered.
//! **[infer]** `instance_exists` is `true` and `instance_shutdown` `false` for the local node (a
//! process reading its own IMDS runs on a live VM); the lifecycle controller never runs in the CNM.

use ccm_azure::cache::ReadMode;
use ccm_azure::imds::document::Compute;
use ccm_azure::imds::{ImdsClient, ImdsError};
use ccm_cloud::{CloudError, InstanceMetadata, InstancesV2, NotOffered, Provider, Retry};
use ccm_names::labels::{INTERCONNECT_GROUP, SUB_FAULT_DOMAIN};
use k8s_openapi::api::core::v1::Node;
use kube::ResourceExt;
use std::collections::BTreeMap;

/// `ccm_cloud::Provider` over the local IMDS, scoped to one node name.
#[derive(Debug)]
pub struct ImdsProvider {
    instances: ImdsInstances,
}

impl ImdsProvider {
    /// A provider answering for `node_name` from `client`.
    pub fn new(client: ImdsClient, node_name: impl Into<String>) -> Self {
        Self {
            instances: ImdsInstances {
                client,
                node_name: node_name.into(),
            },
        }
    }
}

/// `InstancesV2` of the local node from IMDS.
#[derive(Debug)]
pub struct ImdsInstances {
    client: ImdsClient,
    node_name: String,
}

impl ImdsInstances {
    fn is_local(&self, node: &Node) -> bool {
        node.name_any() == self.node_name
    }
}

/// Transport errors and retryable statuses are worth retrying; a malformed document is not.
fn classify(error: ImdsError) -> CloudError<ImdsError> {
    let retry = match &error {
        ImdsError::Unreachable { .. } | ImdsError::Status { .. } => Retry::Backoff,
        _ => Retry::Never,
    };
    CloudError::Provider {
        retry,
        source: error,
    }
}

impl InstancesV2 for ImdsInstances {
    type Error = ImdsError;

    async fn instance_exists(&self, node: &Node) -> Result<bool, CloudError<ImdsError>> {
        Ok(self.is_local(node))
    }

    async fn instance_shutdown(&self, node: &Node) -> Result<bool, CloudError<ImdsError>> {
        if !self.is_local(node) {
            return Err(CloudError::InstanceNotFound);
        }
        Ok(false)
    }

    async fn instance_metadata(
        &self,
        node: &Node,
    ) -> Result<InstanceMetadata, CloudError<ImdsError>> {
        if !self.is_local(node) {
            return Err(CloudError::InstanceNotFound);
        }
        let mut meta = self
            .client
            .local_node_metadata(&self.node_name, ReadMode::Default)
            .await
            .map_err(classify)?;
        // Served from the client's cache: the call above just loaded the document.
        let doc = self
            .client
            .metadata(ReadMode::Unsafe)
            .await
            .map_err(classify)?;
        if let Some(compute) = &doc.compute {
            meta.additional_labels.extend(node_manager_labels(compute));
        }
        Ok(meta)
    }
}

/// IMDS tag naming the VM's interconnect group.
const INTERCONNECT_GROUP_TAG: &str = "Platform_Interconnect_Group";

/// The labels only the node manager sets, from the local VM's compute section.
pub fn node_manager_labels(compute: &Compute) -> BTreeMap<String, String> {
    let mut labels = BTreeMap::new();
    if !compute.platform_sub_fault_domain.is_empty() {
        labels.insert(
            SUB_FAULT_DOMAIN.to_owned(),
            compute.platform_sub_fault_domain.clone(),
        );
    }
    if let Some(tag) = compute
        .tags_list
        .iter()
        .find(|t| t.name == INTERCONNECT_GROUP_TAG && !t.value.is_empty())
    {
        labels.insert(INTERCONNECT_GROUP.to_owned(), tag.value.clone());
    }
    labels
}

impl Provider for ImdsProvider {
    type Error = ImdsError;
    type Instances = ImdsInstances;
    type Zones = NotOffered<ImdsError>;
    type LoadBalancer = NotOffered<ImdsError>;
    type Routes = NotOffered<ImdsError>;

    fn provider_name(&self) -> &'static str {
        "azure"
    }

    fn instances_v2(&self) -> Option<&ImdsInstances> {
        Some(&self.instances)
    }

    fn zones(&self) -> Option<&NotOffered<ImdsError>> {
        None
    }

    fn load_balancer(&self) -> Option<&NotOffered<ImdsError>> {
        None
    }

    fn routes(&self) -> Option<&NotOffered<ImdsError>> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccm_azure::imds::document::Tag;

    #[test]
    fn node_manager_labels_only_when_imds_has_values() {
        assert!(node_manager_labels(&Compute::default()).is_empty());
        let compute = Compute {
            platform_sub_fault_domain: "3".to_owned(),
            tags_list: vec![
                Tag {
                    name: "other".to_owned(),
                    value: "x".to_owned(),
                },
                Tag {
                    name: INTERCONNECT_GROUP_TAG.to_owned(),
                    value: "ig-7".to_owned(),
                },
            ],
            ..Compute::default()
        };
        let labels = node_manager_labels(&compute);
        assert_eq!(labels.get(SUB_FAULT_DOMAIN).map(String::as_str), Some("3"));
        assert_eq!(
            labels.get(INTERCONNECT_GROUP).map(String::as_str),
            Some("ig-7")
        );
    }
}
