//! Availability-set and standalone VMs: the node name is the VM name.

use super::cached::CachedVm;

/// The VM named `node` (compared case-insensitively) in a resource group's VM list.
pub fn find<'a>(vms: &'a [CachedVm], node: &str) -> Option<&'a CachedVm> {
    vms.iter().find(|vm| {
        vm.name
            .as_deref()
            .is_some_and(|n| n.eq_ignore_ascii_case(node))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn by_vm_name_any_case() {
        let vms: Vec<CachedVm> =
            serde_json::from_value(json!([{ "name": "a" }, { "name": "K8S-Agent-0" }])).unwrap();
        assert_eq!(
            find(&vms, "k8s-agent-0").unwrap().name.as_deref(),
            Some("K8S-Agent-0")
        );
        assert!(find(&vms, "b").is_none());
    }
}
