//! CRP update semantics: a PUT on an existing VM or scale set is an update of the stored model, not a replacement.
//!
//! Source: cloud-provider-azure adds and removes backend pools on a scale set with a PUT whose body holds only
//! `location`, `etag` and `properties.virtualMachineProfile.networkProfile`, and attaches disks to availability-set
//! VMs with a PUT holding only `location`, `hardwareProfile` and `storageProfile.dataDisks`; both rely on CRP
//! keeping everything omitted (`sku` and its capacity, zones, identity, tags, the rest of the model, every
//! instance). What is sent merges into the stored document: objects field by field, arrays (e.g.
//! `networkInterfaceConfigurations`, `ipConfigurations`, `networkInterfaces`, `dataDisks`) replaced as a whole,
//! and a `null` member removes the field (the documented way to drop one `userAssignedIdentities` entry). That
//! arrays are replaced rather than merged by name, and that a PUT merges exactly like a PATCH, is [infer].

use serde_json::Value;

/// Merges `sent` into `stored` with CRP's update rules (objects merge, arrays and scalars replace, `null` removes).
pub(super) fn merge_update(stored: &mut Value, sent: &Value) {
    match (stored.as_object_mut(), sent.as_object()) {
        (Some(t), Some(p)) => {
            for (k, v) in p {
                if v.is_null() {
                    t.remove(k);
                } else {
                    merge_update(t.entry(k.clone()).or_insert(Value::Null), v);
                }
            }
        }
        _ => *stored = sent.clone(),
    }
}

/// Brings `identity` in line with its `type` after a merge: `None` drops the block (per the REST reference `None`
/// removes every identity; that CRP then omits the block instead of echoing `{type: None}` is [infer], issue 9's
/// comparison), and a type without `UserAssigned` / `SystemAssigned` drops the user identities / the system
/// principal a merge kept from the stored document (the type says which identities exist, [infer]).
pub(super) fn normalise_identity(doc: &mut Value) {
    let Some(kind) = doc
        .pointer("/identity/type")
        .and_then(Value::as_str)
        .map(str::to_ascii_lowercase)
    else {
        return;
    };
    if kind == "none" {
        if let Some(o) = doc.as_object_mut() {
            o.remove("identity");
        }
        return;
    }
    if let Some(identity) = doc.get_mut("identity").and_then(Value::as_object_mut) {
        if !kind.contains("userassigned") {
            identity.remove("userAssignedIdentities");
        }
        if !kind.contains("systemassigned") {
            identity.remove("principalId");
            identity.remove("tenantId");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn objects_merge_arrays_replace_nulls_remove() {
        let mut stored = json!({"sku": {"name": "s", "capacity": 3}, "zones": ["1", "2"],
            "identity": {"type": "UserAssigned", "userAssignedIdentities": {"a": {}, "b": {}}},
            "properties": {"list": [{"name": "x", "v": 1}, {"name": "y"}]}});
        merge_update(
            &mut stored,
            &json!({"sku": {"name": "t"}, "identity": {"userAssignedIdentities": {"a": null}},
                "properties": {"list": [{"name": "x"}]}}),
        );
        assert_eq!(
            stored,
            json!({"sku": {"name": "t", "capacity": 3}, "zones": ["1", "2"],
                "identity": {"type": "UserAssigned", "userAssignedIdentities": {"b": {}}},
                "properties": {"list": [{"name": "x"}]}})
        );
    }

    #[test]
    fn identity_follows_its_type() {
        let mut doc = json!({"identity": {"type": "None"}, "name": "n"});
        normalise_identity(&mut doc);
        assert_eq!(doc, json!({"name": "n"}));
        let mut stored = json!({"identity": {"type": "SystemAssigned, UserAssigned", "principalId": "p",
            "tenantId": "t", "userAssignedIdentities": {"u": {}}}});
        merge_update(
            &mut stored,
            &json!({"identity": {"type": "SystemAssigned"}}),
        );
        normalise_identity(&mut stored);
        assert_eq!(
            stored,
            json!({"identity": {"type": "SystemAssigned", "principalId": "p", "tenantId": "t"}})
        );
        merge_update(
            &mut stored,
            &json!({"identity": {"type": "UserAssigned", "userAssignedIdentities": {"v": {}}}}),
        );
        normalise_identity(&mut stored);
        assert_eq!(
            stored,
            json!({"identity": {"type": "UserAssigned", "userAssignedIdentities": {"v": {}}}})
        );
    }
}
