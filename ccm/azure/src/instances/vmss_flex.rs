//! Flexible scale-set members: the node name is the VM's computer name, which differs from the
//! VM name; the resource group's VM list maps one to the other.

use super::cached::CachedVm;

/// The member of a flexible scale set whose computer name is `node` (case-insensitive).
pub fn find<'a>(vms: &'a [CachedVm], node: &str) -> Option<&'a CachedVm> {
    vms.iter().find(|vm| {
        vm.scale_set_id.is_some()
            && vm
                .computer_name
                .as_deref()
                .is_some_and(|c| c.eq_ignore_ascii_case(node))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn by_computer_name_among_flex_members() {
        let vms: Vec<CachedVm> = serde_json::from_value(json!([
            { "name": "flexpool_1a2b", "properties": { "osProfile": { "computerName": "flexpool000001" },
              "virtualMachineScaleSet": { "id": "/ss/flexpool" } } },
            { "name": "plain", "properties": { "osProfile": { "computerName": "flexpool000002" } } }
        ]))
        .unwrap();
        assert_eq!(
            find(&vms, "FLEXPOOL000001").unwrap().name.as_deref(),
            Some("flexpool_1a2b")
        );
        assert!(find(&vms, "flexpool000002").is_none(), "not a flex member");
    }
}
