//! Which NICs, scale-set models and uniform instances should reference the pools: the eligible
//! nodes resolved to their instances through the cached lists of [`crate::instances`].

use std::collections::{BTreeSet, HashSet};

use ccm_cloud::NodeView;

use crate::arm::resource_id::{ProviderId, ResourceId};
use crate::cache::ReadMode;
use crate::instances::reads::scale_set_key;
use crate::instances::{AzureInstances, InstanceError, Placement};

use super::error::PoolError;

/// The members a call wants, as lower-cased ids (compare keys).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Desired {
    /// Primary NICs of eligible VMs (availability set, standalone, flexible members).
    pub nics: HashSet<String>,
    /// Resource groups whose NIC lists are scanned (the config's, and each wanted NIC's).
    pub nic_groups: BTreeSet<String>,
    /// Scale sets (uniform or flexible) hosting at least one eligible node.
    pub scale_sets: HashSet<String>,
    /// Eligible uniform instances, keyed `<rg>/<scale set>/<instance id>`.
    pub instances: HashSet<String>,
}

/// Key of a uniform instance in [`Desired::instances`].
pub fn instance_key(resource_group: &str, scale_set: &str, instance_id: &str) -> String {
    format!("{}/{instance_id}", scale_set_key(resource_group, scale_set))
}

fn scale_set_id(subscription: &str, resource_group: &str, scale_set: &str) -> String {
    format!(
        "/subscriptions/{subscription}/resourceGroups/{resource_group}/providers/Microsoft.Compute/virtualMachineScaleSets/{scale_set}"
    )
    .to_ascii_lowercase()
}

/// Resolves `eligible` nodes; a node whose instance is gone or being deleted wants nothing, and a
/// node that cannot be resolved adds its error to `errors` (the others still count).
pub async fn resolve(
    instances: &AzureInstances,
    resource_group: &str,
    eligible: &[&dyn NodeView],
    errors: &mut Vec<PoolError>,
) -> Desired {
    let reads = instances.reads();
    let mut desired = Desired::default();
    desired
        .nic_groups
        .insert(resource_group.to_ascii_lowercase());
    for node in eligible {
        let node_ref = instances.node_ref(*node);
        let machine = match instances.resolve(&node_ref, ReadMode::Default).await {
            Ok(machine) if machine.is_deleting() => continue,
            Ok(machine) => machine,
            Err(InstanceError::NotFound { node }) => {
                tracing::debug!(%node, "no instance for the node: not a pool member");
                continue;
            }
            Err(e) => {
                errors.push(e.into());
                continue;
            }
        };
        let id = match machine.provider_id.parse::<ProviderId>() {
            Ok(id) => id,
            Err(e) => {
                errors.push(InstanceError::from(e).into());
                continue;
            }
        };
        match &machine.placement {
            Placement::ScaleSet {
                resource_group,
                scale_set,
            } => {
                if let Some((_, instance)) = id.scale_set_instance() {
                    desired
                        .instances
                        .insert(instance_key(resource_group, scale_set, instance));
                }
                desired.scale_sets.insert(scale_set_id(
                    reads.subscription(),
                    resource_group,
                    scale_set,
                ));
            }
            Placement::Vm => {
                desired
                    .nics
                    .insert(machine.primary_nic.to_ascii_lowercase());
                if let Ok(nic) = machine.primary_nic.parse::<ResourceId>()
                    && let Some(rg) = nic.resource_group()
                {
                    desired.nic_groups.insert(rg.to_ascii_lowercase());
                }
                // A flexible member's scale set model joins too.
                let vm_id = id.resource_id().to_string();
                if let Ok(vms) = reads.vms(id.resource_group(), ReadMode::Default).await {
                    let flex = vms
                        .iter()
                        .find(|vm| {
                            vm.id
                                .as_deref()
                                .is_some_and(|v| v.eq_ignore_ascii_case(&vm_id))
                        })
                        .and_then(|vm| vm.scale_set_id.as_deref());
                    if let Some(flex) = flex {
                        desired.scale_sets.insert(flex.to_ascii_lowercase());
                    }
                }
            }
        }
    }
    desired
}
