//! Write-only Compute secrets: CRP takes them on PUT and never returns them, so the fake drops them before the
//! document is stored. Nothing the fake serves can then echo them: GET, lists, PUT answers, `Location` results,
//! the instance list, `/admin/state` and snapshots (restore never needs them: no CRP behaviour the fake models
//! reads a secret back).
//!
//! - `osProfile.adminPassword`: verified, CRP answers to a password-authenticated VM and scale-set create show
//!   `osProfile` without it (gatneil/demos `jsonpayloads/RESPONSES.md`, api-version 2017-03-30).
//! - `osProfile.customData` and extension `protectedSettings` (scale-set `extensionProfile.extensions[]`, VM and
//!   instance `resources[]`): [infer], never present in a public CRP answer; the extension docs describe
//!   protected settings as decrypted only on the VM.

use crate::kinds::KindId;
use serde_json::Value;

const OS_PROFILE_SECRETS: [&str; 2] = ["adminPassword", "customData"];

/// Removes every write-only secret from a VM, scale-set or scale-set VM document.
pub(super) fn strip_write_only(kind: KindId, doc: &mut Value) {
    let (os_profile, extensions) = match kind {
        KindId::Vmss => (
            "/properties/virtualMachineProfile/osProfile",
            "/properties/virtualMachineProfile/extensionProfile/extensions",
        ),
        KindId::Vm | KindId::VmssVm => ("/properties/osProfile", "/resources"),
        _ => return,
    };
    if let Some(p) = doc.pointer_mut(os_profile).and_then(Value::as_object_mut) {
        for field in OS_PROFILE_SECRETS {
            p.remove(field);
        }
    }
    for ext in doc
        .pointer_mut(extensions)
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        if let Some(p) = ext.get_mut("properties").and_then(Value::as_object_mut) {
            p.remove("protectedSettings");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn scale_set_secrets_are_dropped_and_the_rest_kept() {
        let mut doc = json!({"properties": {"virtualMachineProfile": {
            "osProfile": {"adminUsername": "u", "adminPassword": "p", "customData": "Zm9v"},
            "extensionProfile": {"extensions": [{"name": "cse", "properties": {"settings": {"a": 1}, "protectedSettings": {"commandToExecute": "x"}}}]}}}});
        strip_write_only(KindId::Vmss, &mut doc);
        assert_eq!(
            doc,
            json!({"properties": {"virtualMachineProfile": {
                "osProfile": {"adminUsername": "u"},
                "extensionProfile": {"extensions": [{"name": "cse", "properties": {"settings": {"a": 1}}}]}}}})
        );
    }

    #[test]
    fn vm_secrets_are_dropped_other_kinds_untouched() {
        let mut vm = json!({"properties": {"osProfile": {"adminPassword": "p"}},
            "resources": [{"properties": {"protectedSettings": {}}}]});
        strip_write_only(KindId::Vm, &mut vm);
        assert_eq!(
            vm,
            json!({"properties": {"osProfile": {}}, "resources": [{"properties": {}}]})
        );
        let mut nic = json!({"properties": {"osProfile": {"adminPassword": "p"}}});
        strip_write_only(KindId::Nic, &mut nic);
        assert_eq!(nic["properties"]["osProfile"]["adminPassword"], "p");
    }
}
