//! Names and identifiers Azure derives (computer names of scale-set instances, flexible VM names, ARM ids,
//! providerIDs) and deterministic GUIDs, so a topology seeds to the same cloud every time.

use crate::stable_guid::stable_guid;
use sha2::{Digest, Sha256};

/// Computer name of uniform instance `instance` (CRP appends the id as 6 base-36 digits: `vmss00000a` = 10).
pub fn instance_computer_name(prefix: &str, instance: u64) -> String {
    let mut digits = [b'0'; 6];
    let mut n = instance;
    for slot in digits.iter_mut().rev() {
        let d = (n % 36) as u8;
        *slot = if d < 10 { b'0' + d } else { b'a' + d - 10 };
        n /= 36;
    }
    format!("{prefix}{}", String::from_utf8_lossy(&digits))
}

/// Name of the `index`-th VM of a flexible scale set (`<vmss>_<8 hex>`, like CRP's random suffix but stable).
pub fn flex_vm_name(scale_set: &str, index: u32) -> String {
    format!(
        "{scale_set}_{}",
        &hex_digest(&format!("{scale_set}/{index}"))[..8]
    )
}

fn hex_digest(seed: &str) -> String {
    hex::encode(Sha256::digest(seed.as_bytes()))
}

/// Client (application) id of the system-assigned identity of a VM or scale set: real Entra assigns one at
/// random; the fake derives it from the lower-cased resource id so IMDS can recompute it from ARM state.
pub fn system_identity_client_id(resource_id: &str) -> String {
    stable_guid(&format!(
        "system-identity-client/{}",
        resource_id.to_ascii_lowercase()
    ))
}

/// Principal (object) id of the system-assigned identity of a VM or scale set (stable, like the client id).
pub fn system_identity_principal_id(resource_id: &str) -> String {
    stable_guid(&format!(
        "system-identity-principal/{}",
        resource_id.to_ascii_lowercase()
    ))
}

/// `/subscriptions/{sub}/resourceGroups/{rg}`.
pub fn rg_id(sub: &str, rg: &str) -> String {
    format!("/subscriptions/{sub}/resourceGroups/{rg}")
}

/// Full id of a top-level resource, e.g. `provider_type = "Microsoft.Network/virtualNetworks"`.
pub fn resource_id(sub: &str, rg: &str, provider_type: &str, name: &str) -> String {
    format!("{}/providers/{provider_type}/{name}", rg_id(sub, rg))
}

/// The providerID the CCM builds for a VM or uniform instance: `azure://` + ARM id with the resource
/// group lower-cased (anchor `ConvertResourceGroupNameToLower`).
pub fn provider_id(resource_id: &str) -> String {
    let segments: Vec<&str> = resource_id.split('/').collect();
    let lowered: Vec<String> = segments
        .iter()
        .enumerate()
        .map(|(i, s)| {
            if i > 0 && segments[i - 1].eq_ignore_ascii_case("resourceGroups") {
                s.to_ascii_lowercase()
            } else {
                (*s).to_string()
            }
        })
        .collect();
    format!("azure://{}", lowered.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_computer_names_are_base36() {
        assert_eq!(
            instance_computer_name("aks-nodepool1-vmss", 0),
            "aks-nodepool1-vmss000000"
        );
        assert_eq!(instance_computer_name("vmss", 10), "vmss00000a");
        assert_eq!(instance_computer_name("vmss", 36), "vmss000010");
        assert_eq!(instance_computer_name("vmss", 999), "vmss0000rr");
    }

    #[test]
    fn provider_ids_lower_case_only_the_group() {
        let id = "/subscriptions/S/resourceGroups/MC_Rg/providers/Microsoft.Compute/virtualMachineScaleSets/Pool/virtualMachines/3";
        assert_eq!(
            provider_id(id),
            "azure:///subscriptions/S/resourceGroups/mc_rg/providers/Microsoft.Compute/virtualMachineScaleSets/Pool/virtualMachines/3"
        );
    }

    #[test]
    fn derived_names_are_stable() {
        assert_eq!(flex_vm_name("flex", 1), flex_vm_name("flex", 1));
        assert_ne!(flex_vm_name("flex", 1), flex_vm_name("flex", 2));
        assert_eq!(stable_guid("x").len(), 36);
    }
}
