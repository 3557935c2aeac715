//! Uniform scale-set instances: the node name is `<computerNamePrefix>` + a 6-character base-36
//! instance id. The scale set is found by that prefix (or, without one, by its name) and the
//! instance in the scale set's one instance list, by computer name.

use crate::arm::resources::VirtualMachineScaleSet;

use super::cached::CachedScaleSetVm;
use super::computer_name;

/// The uniform scale set whose prefix (or name) is `node` minus its 6-character suffix.
pub fn owning_scale_set<'a>(
    scale_sets: &'a [VirtualMachineScaleSet],
    node: &str,
) -> Option<&'a VirtualMachineScaleSet> {
    let parsed = computer_name::parse(node)?;
    scale_sets.iter().filter(|ss| !ss.is_flexible()).find(|ss| {
        let prefix = ss
            .computer_name_prefix()
            .filter(|p| !p.is_empty())
            .or(ss.name.as_deref())
            .unwrap_or_default();
        prefix.eq_ignore_ascii_case(parsed.prefix)
    })
}

/// The instance whose computer name is `node` (case-insensitive).
pub fn find<'a>(instances: &'a [CachedScaleSetVm], node: &str) -> Option<&'a CachedScaleSetVm> {
    instances.iter().find(|vm| {
        vm.computer_name
            .as_deref()
            .is_some_and(|c| c.eq_ignore_ascii_case(node))
    })
}

/// The instance with this instance id.
pub fn find_by_instance_id<'a>(
    instances: &'a [CachedScaleSetVm],
    id: &str,
) -> Option<&'a CachedScaleSetVm> {
    instances
        .iter()
        .find(|vm| vm.instance_id.as_deref() == Some(id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn prefix_then_name_and_never_flexible() {
        let sets: Vec<VirtualMachineScaleSet> = serde_json::from_value(json!([
            { "name": "flex", "properties": { "orchestrationMode": "Flexible" } },
            { "name": "pool-a", "properties": { "virtualMachineProfile": { "osProfile": { "computerNamePrefix": "aks-a-vmss" } } } },
            { "name": "pool-b" }
        ]))
        .unwrap();
        assert_eq!(
            owning_scale_set(&sets, "aks-a-vmss00000a")
                .unwrap()
                .name
                .as_deref(),
            Some("pool-a")
        );
        assert_eq!(
            owning_scale_set(&sets, "pool-b000001")
                .unwrap()
                .name
                .as_deref(),
            Some("pool-b")
        );
        assert!(owning_scale_set(&sets, "flex000001").is_none());
        assert!(
            owning_scale_set(&sets, "pool-a000001").is_none(),
            "the prefix wins over the name"
        );
    }
}
