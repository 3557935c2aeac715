//! Resource-provider behaviour per type: envelope normalisation (id/name/type/location from the URL),
//! defaults, read-only fields, RP validations, and lifecycle hooks (instances of scale sets, address allocation).

mod compute;
mod compute_defaults;
mod crp_update;
mod dynamic_public_ip;
mod lb_detach;
mod load_balancer;
mod network;
mod nic_load_balancers;
mod nsg;
mod private_address;
mod private_link_service;
mod public_ip_prefix;
mod scale_set_network;
mod write_only;

use crate::error::ArmError;
use crate::error_codes;
use crate::id::ArmPath;
use crate::kinds::{Kind, KindId, Provider};
use crate::references::{Ref, strip_backrefs};
use crate::store::{Entry, Store, child_collections, embedded_children_mut};
use crate::write::WriteCtx;
use serde_json::{Value, json};

pub(crate) use compute::{initial_instance_view, set_power_state_in};

/// Sets `props[field]` unless the client sent a non-null value: the RPs fill omitted fields with
/// their defaults and keep what the client chose.
fn default(props: &mut Value, field: &str, v: Value) {
    if props.get(field).is_none_or(Value::is_null) {
        props[field] = v;
    }
}

/// NRP's invalid-name error.
pub(crate) fn invalid_name(name: &str) -> ArmError {
    ArmError::nrp(
        error_codes::INVALID_RESOURCE_NAME,
        format!(
            "Resource name {name} is invalid. The name can be up to 80 characters long. It must begin with a word character, and it must end with a word character or with '_'. The name may contain word characters or '.', '-', '_'."
        ),
    )
}

fn valid_name(name: &str) -> bool {
    let first_ok = name
        .chars()
        .next()
        .is_some_and(|c| c.is_alphanumeric() || c == '_');
    let last_ok = name
        .chars()
        .last()
        .is_some_and(|c| c.is_alphanumeric() || c == '_');
    !name.is_empty()
        && name.len() <= 80
        && first_ok
        && last_ok
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || "._-".contains(c))
}

/// Normalises location like ARM (`East US` → `eastus`).
pub(crate) fn norm_location(l: &str) -> String {
    l.chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase()
}

/// Builds the stored document from a PUT body: envelope, RP defaults and RP validations.
pub(crate) fn prepare(
    store: &Store,
    kind: &'static Kind,
    path: &ArmPath,
    id: &str,
    existing: Option<&Entry>,
    mut body: Value,
    cx: &WriteCtx,
) -> Result<Value, ArmError> {
    let name = existing
        .and_then(|e| e.doc.get("name").and_then(Value::as_str).map(String::from))
        .unwrap_or_else(|| crate::id::last_name(id).to_string());
    if kind.provider == Provider::Network && !valid_name(&name) {
        return Err(invalid_name(&name));
    }
    let obj = body.as_object_mut().ok_or_else(|| {
        ArmError::nrp(
            error_codes::INVALID_REQUEST_FORMAT,
            "Cannot parse the request.",
        )
    })?;
    for ro in ["id", "name", "type", "etag"] {
        obj.remove(ro);
    }
    let location = match obj.get("location").and_then(Value::as_str) {
        Some(l) => norm_location(l),
        None if kind.id == KindId::VmssVm || kind.id == KindId::VmssNic => existing
            .map(|e| e.location().to_string())
            .unwrap_or_default(),
        None => {
            return Err(ArmError::new(
                error_codes::LOCATION_REQUIRED,
                "The location property is required for this definition.",
            ));
        }
    };
    if let Some(e) = existing
        && !e.location().is_empty()
        && e.location() != location
    {
        let rg = path.resource_group.clone().unwrap_or_default();
        return Err(ArmError::new(
            error_codes::INVALID_RESOURCE_LOCATION,
            format!(
                "The resource '{name}' already exists in location '{}' in resource group '{rg}'. A resource with the same name cannot be created in location '{location}'. Please select a new resource name.",
                e.location()
            ),
        ));
    }
    if let Some(tags) = obj.get("tags")
        && !tags.is_object()
        && !tags.is_null()
    {
        return Err(ArmError::new(
            error_codes::INVALID_REQUEST_CONTENT,
            "The request content was invalid and could not be deserialized: 'tags' must be an object of strings.",
        ));
    }
    if !obj.contains_key("properties") || obj["properties"].is_null() {
        obj.insert("properties".into(), json!({}));
    }
    if !obj["properties"].is_object() {
        return Err(ArmError::new(
            error_codes::INVALID_REQUEST_CONTENT,
            "The request content was invalid and could not be deserialized: 'properties' must be an object.",
        ));
    }
    let mut doc = json!({ "name": name, "id": id, "type": kind.full_type(), "location": location });
    for (k, v) in std::mem::take(obj) {
        if k != "location" {
            doc[k.as_str()] = v;
        }
    }
    strip_backrefs(
        &mut doc,
        &kind.types.last().unwrap_or(&"").to_ascii_lowercase(),
    );
    normalise_children(&mut doc, kind.id, id)?;
    match kind.id {
        KindId::ResourceGroup => {
            doc["type"] = json!("Microsoft.Resources/resourceGroups");
        }
        KindId::Nsg => nsg::prepare(&mut doc, existing)?,
        KindId::LoadBalancer => load_balancer::prepare(store, &mut doc, existing)?,
        KindId::PublicIp => network::prepare_public_ip(&mut doc, existing)?,
        KindId::PublicIpPrefix => public_ip_prefix::prepare(&mut doc, existing)?,
        KindId::Nic => network::prepare_nic(store, &mut doc, existing)?,
        KindId::RouteTable => network::prepare_route_table(&mut doc)?,
        KindId::Vnet => network::prepare_vnet(&mut doc)?,
        KindId::PrivateLinkService => private_link_service::prepare(store, &mut doc, existing)?,
        KindId::Vm | KindId::Vmss | KindId::VmssVm | KindId::AvailabilitySet => {
            compute::prepare(store, kind.id, &mut doc, existing, path, cx)?
        }
        _ => {}
    }
    if kind.provider == Provider::Network {
        let guid = existing
            .and_then(|e| e.doc.pointer("/properties/resourceGuid").cloned())
            .unwrap_or_else(|| json!(uuid::Uuid::new_v4().to_string()));
        doc["properties"]["resourceGuid"] = guid;
    }
    Ok(doc)
}

/// Gives every embedded child its name check, full id and type; strips their read-only back-references.
fn normalise_children(doc: &mut Value, kind: KindId, id: &str) -> Result<(), ArmError> {
    let parent_type = doc["type"].as_str().unwrap_or_default().to_string();
    for coll in child_collections(kind) {
        let Some(arr) = doc
            .pointer_mut(&format!("/properties/{coll}"))
            .and_then(Value::as_array_mut)
        else {
            continue;
        };
        let mut seen = std::collections::HashSet::new();
        for child in arr.iter_mut() {
            let name = child
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            if !valid_name(&name) {
                return Err(invalid_name(&name));
            }
            if !seen.insert(name.to_ascii_lowercase()) {
                return Err(ArmError::nrp(
                    error_codes::DUPLICATE_RESOURCE_NAME,
                    format!("Resource {id} has two child resources with the same name ({name})."),
                ));
            }
            if let Some(o) = child.as_object_mut() {
                o.remove("etag");
                o.insert("id".into(), json!(format!("{id}/{coll}/{name}")));
                o.insert("type".into(), json!(format!("{parent_type}/{coll}")));
                if !o.get("properties").is_some_and(Value::is_object) {
                    o.insert("properties".into(), json!({}));
                }
            }
            strip_backrefs(child, &coll.to_ascii_lowercase());
        }
    }
    Ok(())
}

/// Cross-resource checks that need the referenced documents (SKU match, one PIP user, one LB per type...).
pub(crate) fn validate_references(
    store: &Store,
    kind: &Kind,
    key: &str,
    doc: &Value,
    refs: &[Ref],
) -> Result<(), ArmError> {
    match kind.id {
        KindId::LoadBalancer => load_balancer::validate_references(store, key, doc),
        KindId::Nic => network::validate_nic_references(store, key, doc, refs),
        KindId::PrivateLinkService => private_link_service::validate_references(store, doc),
        KindId::Vnet => network::validate_vnet_references(store, doc),
        KindId::PublicIp => public_ip_prefix::validate_public_ip(store, key, doc),
        KindId::Vm => compute::validate_vm_references(store, key, doc, refs),
        _ => Ok(()),
    }
}

/// Sets etag (if any) and provisioningState on the resource and its embedded children.
pub(crate) fn stamp(doc: &mut Value, kind: KindId, etag: Option<&str>, state: &str) {
    if let Some(tag) = etag {
        stamp_etag(doc, kind, tag);
    }
    set_state(doc, kind, state);
}

/// Sets the etag on the resource and (NRP) on every embedded child.
pub(crate) fn stamp_etag(doc: &mut Value, kind: KindId, tag: &str) {
    doc["etag"] = json!(tag);
    for c in embedded_children_mut(doc, kind) {
        c["etag"] = json!(tag);
    }
}

/// Sets provisioningState on the resource and its embedded children (availability sets carry none: the CRP create
/// answer in gatneil/demos `jsonpayloads/RESPONSES.md` and the Compute spec's `AvailabilitySetProperties` have no
/// such field).
pub(crate) fn set_state(doc: &mut Value, kind: KindId, state: &str) {
    if kind == KindId::AvailabilitySet {
        return;
    }
    if let Some(p) = doc.get_mut("properties").and_then(Value::as_object_mut) {
        p.insert("provisioningState".into(), json!(state));
    }
    for c in embedded_children_mut(doc, kind) {
        if let Some(p) = c.get_mut("properties").and_then(Value::as_object_mut) {
            p.insert("provisioningState".into(), json!(state));
        }
    }
}

/// CRP types carrying integer etags.
pub(crate) fn has_crp_etag(kind: KindId) -> bool {
    matches!(kind, KindId::Vm | KindId::Vmss | KindId::VmssVm)
}

/// Hook after a write is committed (scale-set instances follow the model's capacity).
pub(crate) fn after_commit(
    store: &mut Store,
    kind: &Kind,
    key: &str,
    cx: &WriteCtx,
) -> Result<(), ArmError> {
    match kind.id {
        KindId::Vmss => compute::sync_instances(store, key, cx),
        KindId::VmssVm => {
            scale_set_network::sync_instance_nics(store, key);
            Ok(())
        }
        KindId::PrivateLinkService => {
            private_link_service::sync_nic(store, key);
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Hook after a failed write restored the previous document (a private link service's NIC follows it back).
pub(crate) fn after_rollback(store: &mut Store, key: &str) {
    private_link_service::sync_nic(store, key);
}

/// Stored entries a DELETE of `key` removes with it besides its children (a private link service's NIC).
pub(crate) fn dependents(store: &Store, key: &str) -> Vec<String> {
    private_link_service::dependents(store, key)
}

/// Rejects a client PUT on a resource NRP manages for another one (a private link service's NIC).
pub(crate) fn check_client_writable(
    store: &Store,
    kind: KindId,
    key: &str,
) -> Result<(), ArmError> {
    if kind != KindId::Nic {
        return Ok(());
    }
    match (
        private_link_service::owner_of_nic(store, key),
        store.entries.get(key),
    ) {
        (Some(pls), Some(nic)) => Err(private_link_service::nic_is_read_only(
            nic.doc["id"].as_str().unwrap_or(key),
            pls,
        )),
        _ => Ok(()),
    }
}

/// Hook when a PUT reaches Succeeded (public IP address and prefix allocation, MACs of a VM's NICs).
pub(crate) fn on_provisioned(store: &mut Store, key: &str) {
    public_ip_prefix::allocate(store, key);
    network::allocate_public_ip(store, key);
    network::assign_nic_macs(store, key);
}

/// Hook after the back-reference fields of `owners` changed (deferred public IP addresses follow associations).
pub(crate) fn on_backrefs_changed(store: &mut Store, owners: &[String]) {
    dynamic_public_ip::refresh_after_backrefs(store, owners);
}

/// Hook after a VM's instance view changed (a deallocated VM releases its NICs' dynamic public addresses).
pub(crate) fn on_instance_view_changed(store: &mut Store, key: &str) {
    dynamic_public_ip::refresh_for_vm(store, key);
}

/// Hook before entries are removed by a delete (NICs leave a deleted LB; scale-set capacity follows instance deletes).
pub(crate) fn before_remove(store: &mut Store, keys: &[String]) {
    lb_detach::detach_nics(store, keys);
    compute::on_instances_removed(store, keys);
}
