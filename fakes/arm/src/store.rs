//! The resource store: one entry per stored resource keyed by lower-cased id (BTreeMap so collection
//! listing is a range scan), each with its document, a cached serialisation for the GET hot path, its
//! outgoing references and the operation running on it.

use crate::addresses::AddressIndex;
use crate::error::ArmError;
use crate::error_codes;
use crate::id::{ArmPath, key_of};
use crate::kinds::{self, Kind, KindId, Provider};
use crate::lro::Operation;
use crate::references::{Ref, RefIndex};
use axum::body::Bytes;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::OnceLock;
use std::time::Instant;

/// One stored resource.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    /// Kind of the stored resource.
    pub kind: KindId,
    /// The document as returned by GET (back-references included).
    pub doc: Value,
    /// `serde_json::to_vec(&doc)`, rendered on the first read after a change (a NIC joining a subnet changes
    /// the VNet document; serialising it again is left to the next GET).
    body: OnceLock<Bytes>,
    /// References this resource holds to others (and to its own children).
    pub out_refs: Vec<Ref>,
    /// VM / VMSS-VM instance view (returned only on request).
    pub instance_view: Option<Value>,
    /// Operation id running on this resource.
    pub op: Option<String>,
    /// CRP model version (`etag` `"n"`).
    pub version: u64,
}

impl Entry {
    /// A freshly committed entry.
    pub fn new(kind: KindId, doc: Value, out_refs: Vec<Ref>) -> Self {
        Self {
            kind,
            doc,
            body: OnceLock::new(),
            out_refs,
            instance_view: None,
            op: None,
            version: 0,
        }
    }

    /// Drops the cached body after `doc` changed.
    pub fn rerender(&mut self) {
        self.body = OnceLock::new();
    }

    /// The serialised document (cached until the next change).
    pub fn body(&self) -> Bytes {
        self.body
            .get_or_init(|| Bytes::from(serde_json::to_vec(&self.doc).unwrap_or_default()))
            .clone()
    }

    /// `properties.provisioningState` (absent = Succeeded).
    pub fn provisioning_state(&self) -> &str {
        self.doc
            .pointer("/properties/provisioningState")
            .and_then(Value::as_str)
            .unwrap_or("Succeeded")
    }

    /// The etag field.
    pub fn etag(&self) -> Option<&str> {
        self.doc.get("etag").and_then(Value::as_str)
    }

    /// The location field.
    pub fn location(&self) -> &str {
        self.doc
            .get("location")
            .and_then(Value::as_str)
            .unwrap_or("")
    }
}

/// Address of something a path names: a stored entry, or a child embedded in one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    /// A stored entry (key).
    Entry(String),
    /// An embedded child: owner entry key, collection property, child name.
    Child(String, &'static str, String),
}

/// Counters for deterministic allocation of addresses and ids.
#[derive(Debug, Default, Clone)]
pub(crate) struct Allocators {
    /// Next public IPv4 host number.
    pub next_pip: u32,
    /// Next MAC suffix.
    pub next_mac: u32,
}

/// All mutable state behind the lock.
#[derive(Debug, Default)]
pub(crate) struct Store {
    /// Entries by lower-cased id.
    pub entries: BTreeMap<String, Entry>,
    /// Incoming-reference index.
    pub index: RefIndex,
    /// Private addresses in use per subnet.
    pub addresses: AddressIndex,
    /// Operations by lower-cased id.
    pub ops: HashMap<String, Operation>,
    /// Operations that may still be running, oldest first, so age-based completion looks at the
    /// front instead of scanning every operation ever started.
    pub pending: VecDeque<(Instant, String)>,
    /// Allocators.
    pub alloc: Allocators,
}

/// Collections that hold NRP children, per stored kind.
pub(crate) fn child_collections(kind: KindId) -> &'static [&'static str] {
    match kind {
        KindId::LoadBalancer => &[
            "frontendIPConfigurations",
            "backendAddressPools",
            "loadBalancingRules",
            "probes",
            "inboundNatRules",
            "outboundRules",
            "inboundNatPools",
        ],
        KindId::Nsg => &["securityRules", "defaultSecurityRules"],
        KindId::Nic | KindId::VmssNic => &["ipConfigurations"],
        KindId::RouteTable => &["routes"],
        KindId::Vnet => &["subnets"],
        _ => &[],
    }
}

/// The child collection of `kind` that a lower-cased id segment names, spelled as documents store it
/// (ids are matched case-insensitively, document fields are not).
pub(crate) fn collection_named(kind: KindId, coll: &str) -> Option<&'static str> {
    child_collections(kind)
        .iter()
        .find(|c| c.eq_ignore_ascii_case(coll))
        .copied()
}

/// Every embedded child of a stored document of `kind`, across all its child collections.
pub(crate) fn embedded_children(doc: &Value, kind: KindId) -> impl Iterator<Item = &Value> {
    child_collections(kind).iter().flat_map(move |coll| {
        doc.pointer(&format!("/properties/{coll}"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
    })
}

/// Mutable variant of [`embedded_children`] (collections in document order).
pub(crate) fn embedded_children_mut(
    doc: &mut Value,
    kind: KindId,
) -> impl Iterator<Item = &mut Value> {
    let colls = child_collections(kind);
    doc.get_mut("properties")
        .and_then(Value::as_object_mut)
        .into_iter()
        .flat_map(move |props| {
            props
                .iter_mut()
                .filter(move |(name, _)| colls.contains(&name.as_str()))
                .filter_map(|(_, v)| v.as_array_mut())
                .flatten()
        })
}

/// Finds a child in `doc.properties[coll]` by case-insensitive name.
pub(crate) fn find_child<'a>(doc: &'a Value, coll: &str, name: &str) -> Option<&'a Value> {
    doc.pointer(&format!("/properties/{coll}"))?
        .as_array()?
        .iter()
        .find(|c| {
            c.get("name")
                .and_then(Value::as_str)
                .is_some_and(|n| n.eq_ignore_ascii_case(name))
        })
}

/// Mutable variant of [`find_child`].
pub(crate) fn find_child_mut<'a>(
    doc: &'a mut Value,
    coll: &str,
    name: &str,
) -> Option<&'a mut Value> {
    doc.pointer_mut(&format!("/properties/{coll}"))?
        .as_array_mut()?
        .iter_mut()
        .find(|c| {
            c.get("name")
                .and_then(Value::as_str)
                .is_some_and(|n| n.eq_ignore_ascii_case(name))
        })
}

impl Store {
    /// Resolves a lower-cased id to a stored entry or an embedded child, if it exists.
    pub fn locate(&self, key: &str) -> Option<Target> {
        if self.entries.contains_key(key) {
            return Some(Target::Entry(key.to_string()));
        }
        let (parent, name) = key.rsplit_once('/')?;
        let (owner, coll) = parent.rsplit_once('/')?;
        let entry = self.entries.get(owner)?;
        let coll = collection_named(entry.kind, coll)?;
        find_child(&entry.doc, coll, name)?;
        Some(Target::Child(owner.to_string(), coll, name.to_string()))
    }

    /// The JSON object an id names (entry document or embedded child).
    pub fn object(&self, key: &str) -> Option<&Value> {
        match self.locate(key)? {
            Target::Entry(k) => self.entries.get(&k).map(|e| &e.doc),
            Target::Child(owner, coll, name) => {
                find_child(&self.entries.get(&owner)?.doc, coll, &name)
            }
        }
    }

    /// The entry that stores an id (itself or the owner of an embedded child).
    pub fn owner_key(&self, key: &str) -> Option<String> {
        match self.locate(key)? {
            Target::Entry(k) => Some(k),
            Target::Child(owner, _, _) => Some(owner),
        }
    }

    /// Display-cased resource group name, if the group exists.
    pub fn rg_name(&self, sub: &str, rg: &str) -> Option<String> {
        let key = key_of(&format!("/subscriptions/{sub}/resourceGroups/{rg}"));
        self.entries
            .get(&key)
            .and_then(|e| e.doc.get("name").and_then(Value::as_str).map(String::from))
    }

    /// Builds the display id for a path: canonical literal segments, the RG's stored casing, stored or sent names.
    pub fn display_id(&self, path: &ArmPath, kind: &Kind) -> String {
        let sub = &path.subscription;
        let Some(rg) = &path.resource_group else {
            return format!("/subscriptions/{sub}");
        };
        let rg = self.rg_name(sub, rg).unwrap_or_else(|| rg.clone());
        if kind.id == KindId::ResourceGroup {
            return format!("/subscriptions/{sub}/resourceGroups/{rg}");
        }
        let mut id = format!(
            "/subscriptions/{sub}/resourceGroups/{rg}/providers/{}",
            kinds::path_namespace(kind)
        );
        for (i, (t, n)) in kind.types.iter().zip(&path.names).enumerate() {
            id.push('/');
            id.push_str(t);
            id.push('/');
            let so_far = key_of(&format!("{id}{n}"));
            let stored = self.object(&so_far);
            let name = stored
                .and_then(|d| d.get("name").and_then(Value::as_str))
                .map(|s| {
                    // VMSS VM names are `<vmss>_<id>`; the path segment is the instance id.
                    if kind.types.get(i) == Some(&"virtualMachines")
                        && kind.types[0] == "virtualMachineScaleSets"
                    {
                        n.clone()
                    } else {
                        s.to_string()
                    }
                });
            id.push_str(&name.unwrap_or_else(|| n.clone()));
        }
        id
    }

    /// `ResourceGroupNotFound` unless the path's group exists.
    pub fn require_rg(&self, path: &ArmPath) -> Result<(), ArmError> {
        if let Some(rg) = &path.resource_group
            && self.rg_name(&path.subscription, rg).is_none()
        {
            return Err(rg_not_found(rg));
        }
        Ok(())
    }
}

/// 404 `ResourceGroupNotFound`.
pub(crate) fn rg_not_found(rg: &str) -> ArmError {
    ArmError::new(
        error_codes::RESOURCE_GROUP_NOT_FOUND,
        format!("Resource group '{rg}' could not be found."),
    )
    .with_header("x-ms-failure-cause", "gateway")
}

/// The 404 a missing resource gets: front-door `ResourceNotFound` for top-level resources, NRP `NotFound`
/// for children, CRP `ParentResourceNotFound` for VMSS instances of a missing scale set.
pub(crate) fn not_found(store: &Store, path: &ArmPath, kind: &Kind, display_id: &str) -> ArmError {
    let rg = path.resource_group.clone().unwrap_or_default();
    if kind.id == KindId::ResourceGroup {
        return rg_not_found(&rg);
    }
    if path.names.len() == 1 {
        let name = &path.names[0];
        return ArmError::new(
            error_codes::RESOURCE_NOT_FOUND,
            format!(
                "The Resource '{}/{}/{name}' under resource group '{rg}' was not found. For more details please go to https://aka.ms/ARMResourceNotFoundFix",
                kind.provider.namespace(),
                kind.types[0]
            ),
        )
        .with_header("x-ms-failure-cause", "gateway");
    }
    let parent_key = key_of(crate::id::parent_of(display_id).unwrap_or(display_id));
    if store.object(&parent_key).is_none() {
        if kind.provider == Provider::Compute || kind.types[0] == "virtualMachineScaleSets" {
            let parent_name = &path.names[path.names.len() - 2];
            return ArmError::new(
                error_codes::PARENT_RESOURCE_NOT_FOUND,
                format!(
                    "Can not perform requested operation on nested resource. Parent resource '{parent_name}' not found."
                ),
            );
        }
        let top = ArmPath {
            names: path.names[..1].to_vec(),
            types: path.types[..1].to_vec(),
            ..path.clone()
        };
        let top_kind = kinds::lookup(&top.type_key()).unwrap_or(kind);
        return not_found(store, &top, top_kind, display_id);
    }
    if kind.provider == Provider::Compute {
        let name = path.names.last().cloned().unwrap_or_default();
        return ArmError::new(
            error_codes::NOT_FOUND,
            format!(
                "The entity was not found in this Azure location. Resource '{name}' not found."
            ),
        );
    }
    ArmError::nrp(
        error_codes::NOT_FOUND,
        format!("Resource {display_id} not found."),
    )
}
