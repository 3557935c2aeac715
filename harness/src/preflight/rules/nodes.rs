//! P4 and P5: every Node resolved with the target config as the CCM's `InstanceExists` and
//! `InstanceMetadata` do (migration.md §3 P4 "dry-run InstanceExistsByProviderID for every node
//! before enabling lifecycle", P5 "providerID byte-identical").

use super::{Facts, Resolution, S};
use crate::preflight::finding::Finding;

/// The resource group in a providerID (as written there).
fn group_of(provider_id: &str) -> Option<&str> {
    let lower = provider_id.to_ascii_lowercase();
    let start = lower.find("/resourcegroups/")? + "/resourcegroups/".len();
    let rest = &provider_id[start..];
    rest.split('/').next()
}

/// P4/P5 findings from each node's resolution.
pub fn resolutions(facts: &Facts<'_>) -> Vec<Finding> {
    let settings = facts.settings;
    let mut out = Vec::new();
    for r in facts.resolutions {
        let object = format!("Node {}", r.node);
        let kind = r
            .provider_id
            .as_deref()
            .map(|p| {
                if p.to_ascii_lowercase().contains("/virtualmachinescalesets/") {
                    "a scale-set instance"
                } else {
                    "a VM"
                }
            })
            .unwrap_or("an instance");
        let group = r.provider_id.as_deref().and_then(group_of);
        match &r.resolution {
            Resolution::Missing => out.push(Finding::new(
                S::Block,
                "P4",
                object,
                format!(
                    "InstanceExists answers false with the target azure.json (vmType {}, \
                     resourceGroup {}): cloud-node-lifecycle would delete this Node as soon as it \
                     is NotReady (node that would be deleted: {}; it is {kind})",
                    settings.vm_type, settings.resource_group, r.node
                ),
                format!(
                    "in the CCM's azure.json set vmType to vmss for scale-set nodes (vmss also \
                     serves availability-set and standalone VMs) and resourceGroup to the nodes' \
                     group{}",
                    group.map(|g| format!(" ({g})")).unwrap_or_default()
                ),
            )),
            Resolution::Failed(error) => out.push(Finding::new(
                S::Block,
                "P4",
                object,
                format!(
                    "the CCM cannot resolve this Node with the target config: {error}; it would \
                     neither initialise nor track it"
                ),
                "check the credentials (the identity needs read access to the nodes' resource \
                 group), vmType and resourceGroup of the CCM's azure.json",
            )),
            Resolution::Exists { provider_id } => match (&r.provider_id, provider_id) {
                (Some(current), Some(computed)) if current != computed => {
                    out.push(Finding::new(
                        S::Block,
                        "P5",
                        object,
                        format!(
                            "the CCM computes providerID {computed}, the Node has {current} \
                             (providerID is immutable: the CCM would track another instance)"
                        ),
                        "make the azure.json's subscription and resource group those of the \
                         node's providerID",
                    ));
                }
                (None, _) => out.push(Finding::new(
                    S::Warn,
                    "P5",
                    object,
                    "the Node has no providerID yet",
                    "let the cloud-node-manager initialise it before the switch",
                )),
                _ => {}
            },
        }
    }
    out
}
