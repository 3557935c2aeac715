//! Computed defaults CRP fills into scale sets and their instances (what a GET shows that the client did not send).
//! They apply to every write, so topology seeds (built through [`crate::ArmState::put`]) look like API-created
//! scale sets.
//!
//! Sources:
//! - `sku.tier: Standard`, `singlePlacementGroup: true` (Uniform), `privateIPAddressVersion: IPv4` on model
//!   ipconfigs and `osProfile.secrets: []`: CRP create answers in gatneil/demos `jsonpayloads/RESPONSES.md`
//!   (the requests, in `json_payloads.txt`, sent none of them). `singlePlacementGroup: false` for Flexible
//!   scale sets is [infer] (Flexible has no placement-group limit).
//! - `platformFaultDomainCount`: the "Choosing the right number of fault domains for Virtual Machine Scale Set"
//!   article's table of defaults (Uniform: 1 zonal, 5 regional; Flexible: 1).
//! - OS disk: `caching` defaults to `None` on Standard storage and `ReadOnly` on Premium storage (REST reference of
//!   `VirtualMachineScaleSetOSDisk.caching`; filled only when `managedDisk.storageAccountType` says which);
//!   `deleteOption: Delete` for Flexible scale sets (REST reference of `deleteOption`, "VMSS Flex only").
//!   `storageAccountType` and `diskSizeGB` are not filled: CRP derives them from the VM size and the image.
//! - Instances carry a `storageProfile`: the model's, with `dataDisks` (default `[]`) and an OS disk `name`
//!   `<vmss>_<instanceId>_OsDisk_1_<32 hex>` (the AKS naming; the exact format is [infer]).

use super::default;
use serde_json::{Value, json};

/// Fills the scale-set defaults CRP computes (`mode` is `Uniform` or `Flexible`).
pub(super) fn scale_set(doc: &mut Value, mode: &str) {
    let flexible = mode == "Flexible";
    if doc.get("sku").is_some_and(Value::is_object) {
        default(&mut doc["sku"], "tier", json!("Standard"));
    }
    let zonal = doc
        .get("zones")
        .and_then(Value::as_array)
        .is_some_and(|z| !z.is_empty());
    let p = &mut doc["properties"];
    default(p, "singlePlacementGroup", json!(!flexible));
    let fault_domains = if flexible || zonal { 1 } else { 5 };
    default(p, "platformFaultDomainCount", json!(fault_domains));
    let Some(profile) = p.get_mut("virtualMachineProfile").filter(|v| v.is_object()) else {
        return;
    };
    if let Some(os) = profile.get_mut("osProfile").filter(|v| v.is_object()) {
        default(os, "secrets", json!([]));
    }
    if let Some(disk) = profile
        .pointer_mut("/storageProfile/osDisk")
        .filter(|v| v.is_object())
    {
        os_disk(disk);
        if flexible {
            default(disk, "deleteOption", json!("Delete"));
        }
    }
    if let Some(configs) = profile.pointer_mut("/networkProfile/networkInterfaceConfigurations") {
        ipconfig_versions(configs);
    }
}

/// `privateIPAddressVersion: IPv4` on every ipconfig of a list of NIC configurations (model or instance).
pub(super) fn ipconfig_versions(nic_configs: &mut Value) {
    for cfg in nic_configs.as_array_mut().into_iter().flatten() {
        for ipc in cfg
            .pointer_mut("/properties/ipConfigurations")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            if !ipc.get("properties").is_some_and(Value::is_object) {
                ipc["properties"] = json!({});
            }
            default(
                &mut ipc["properties"],
                "privateIPAddressVersion",
                json!("IPv4"),
            );
        }
    }
}

/// The documented OS-disk caching default, when the storage type says which one applies.
fn os_disk(disk: &mut Value) {
    let caching = match disk
        .pointer("/managedDisk/storageAccountType")
        .and_then(Value::as_str)
    {
        Some(t) if t.starts_with("Premium") => "ReadOnly",
        Some(_) => "None",
        None => return,
    };
    default(disk, "caching", json!(caching));
}

/// The `storageProfile` of a new uniform instance `name` (`<vmss>_<id>`) built from the scale-set model.
pub(super) fn instance_storage_profile(vmss: &Value, name: &str) -> Value {
    let model = vmss
        .pointer("/properties/virtualMachineProfile/storageProfile")
        .cloned()
        .unwrap_or(json!({}));
    let mut sp = json!({});
    if let Some(image) = model.get("imageReference") {
        sp["imageReference"] = image.clone();
    }
    let mut disk = model
        .get("osDisk")
        .filter(|d| d.is_object())
        .cloned()
        .unwrap_or(json!({ "createOption": "FromImage" }));
    disk["name"] = json!(format!("{name}_OsDisk_1_{}", uuid::Uuid::new_v4().simple()));
    sp["osDisk"] = disk;
    sp["dataDisks"] = model.get("dataDisks").cloned().unwrap_or(json!([]));
    sp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_regional_and_zonal_defaults() {
        let mut doc = json!({"sku": {"name": "Standard_D2s_v3"}, "properties": {"virtualMachineProfile": {
            "osProfile": {"adminUsername": "u"},
            "storageProfile": {"osDisk": {"createOption": "FromImage", "managedDisk": {"storageAccountType": "Premium_LRS"}}},
            "networkProfile": {"networkInterfaceConfigurations": [{"name": "n", "properties": {"ipConfigurations": [{"name": "i"}]}}]}}}});
        scale_set(&mut doc, "Uniform");
        assert_eq!(doc["sku"]["tier"], "Standard");
        assert_eq!(doc["properties"]["singlePlacementGroup"], true);
        assert_eq!(doc["properties"]["platformFaultDomainCount"], 5);
        let profile = &doc["properties"]["virtualMachineProfile"];
        assert_eq!(profile["osProfile"]["secrets"], json!([]));
        assert_eq!(profile["storageProfile"]["osDisk"]["caching"], "ReadOnly");
        assert!(profile["storageProfile"]["osDisk"]["deleteOption"].is_null());
        assert_eq!(
            profile["networkProfile"]["networkInterfaceConfigurations"][0]["properties"]["ipConfigurations"]
                [0]["properties"]["privateIPAddressVersion"],
            "IPv4"
        );
        let mut zonal = json!({"zones": ["1"], "properties": {"platformFaultDomainCount": 1}});
        scale_set(&mut zonal, "Uniform");
        assert_eq!(zonal["properties"]["platformFaultDomainCount"], 1);
    }

    #[test]
    fn flexible_defaults_and_sent_values_win() {
        let mut doc = json!({"sku": {"name": "s", "tier": "Basic"}, "properties": {"singlePlacementGroup": true,
            "virtualMachineProfile": {"storageProfile": {"osDisk": {"caching": "ReadWrite", "managedDisk": {"storageAccountType": "Standard_LRS"}}}}}});
        scale_set(&mut doc, "Flexible");
        assert_eq!(doc["sku"]["tier"], "Basic");
        assert_eq!(doc["properties"]["singlePlacementGroup"], true);
        assert_eq!(doc["properties"]["platformFaultDomainCount"], 1);
        let disk = &doc["properties"]["virtualMachineProfile"]["storageProfile"]["osDisk"];
        assert_eq!(disk["caching"], "ReadWrite");
        assert_eq!(disk["deleteOption"], "Delete");
    }

    #[test]
    fn instance_storage_profile_names_the_os_disk() {
        let vmss = json!({"properties": {"virtualMachineProfile": {"storageProfile": {
            "imageReference": {"offer": "o"}, "osDisk": {"createOption": "FromImage", "osType": "Linux"}}}}});
        let sp = instance_storage_profile(&vmss, "ss_3");
        assert_eq!(sp["imageReference"]["offer"], "o");
        assert_eq!(sp["osDisk"]["osType"], "Linux");
        assert!(
            sp["osDisk"]["name"]
                .as_str()
                .unwrap()
                .starts_with("ss_3_OsDisk_1_")
        );
        assert_eq!(sp["dataDisks"], json!([]));
        let bare = instance_storage_profile(&json!({}), "ss_0");
        assert_eq!(bare["osDisk"]["createOption"], "FromImage");
    }
}
