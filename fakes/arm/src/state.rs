//! `ArmState`: the cloneable handle shared by the router, the seeders and the admin API. Reads take a
//! read lock and hand out cached serialisations; writes take the write lock for the whole validation+commit.

use crate::config::ArmConfig;
use crate::error::ArmError;
use crate::error_codes;
use crate::etag::{self, Preconditions};
use crate::id::{ArmPath, key_of};
use crate::kinds::{self, Kind, KindId, Provider};
use crate::resources::set_power_state_in;
use crate::store::{Entry, Store, Target, find_child, not_found};
use crate::write::WriteCtx;
use parking_lot::RwLock;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

/// How long an operation nobody polls keeps running. Real NRP/CRP operations progress on the server whatever
/// the client does, finishing a public IP or load balancer write within seconds [infer]; a polled operation of
/// the fake ends after [`crate::ArmConfig::lro_polls_in_progress`] polls (about 2 s at `Retry-After: 1`), so an
/// unpolled one ends a little later, not 30 s later (which held a dead CCM leader's PIP in `Updating` and made
/// the next leader retry its load balancer PUT for half a minute).
pub const DEFAULT_LRO_MAX_AGE: Duration = Duration::from_secs(5);
/// Host used in URLs and messages produced outside an HTTP request (programmatic API).
pub(crate) const DEFAULT_BASE: &str = "https://management.azure.com";

/// A VM power state as shown by the instance view (`PowerState/<code>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PowerState {
    /// `PowerState/running`.
    Running,
    /// `PowerState/starting`.
    Starting,
    /// `PowerState/stopping`.
    Stopping,
    /// `PowerState/stopped`.
    Stopped,
    /// `PowerState/deallocating`.
    Deallocating,
    /// `PowerState/deallocated`.
    Deallocated,
    /// `PowerState/unknown`.
    Unknown,
}

impl PowerState {
    /// Code suffix and display status.
    pub fn code(self) -> (&'static str, &'static str) {
        match self {
            PowerState::Running => ("running", "VM running"),
            PowerState::Starting => ("starting", "VM starting"),
            PowerState::Stopping => ("stopping", "VM stopping"),
            PowerState::Stopped => ("stopped", "VM stopped"),
            PowerState::Deallocating => ("deallocating", "VM deallocating"),
            PowerState::Deallocated => ("deallocated", "VM deallocated"),
            PowerState::Unknown => ("unknown", "VM status unknown"),
        }
    }
}

pub(crate) struct Inner {
    pub config: ArmConfig,
    pub store: RwLock<Store>,
    pub lro_max_age: RwLock<Duration>,
    pub retry_after: RwLock<Option<u64>>,
}

/// Cloneable handle (Arc inside) to all ARM state of one fake cloud.
#[derive(Clone)]
pub struct ArmState {
    pub(crate) inner: Arc<Inner>,
}

/// Resolves a path to its kind (resource groups have no provider segment).
pub(crate) fn kind_of(path: &ArmPath) -> Result<&'static Kind, ArmError> {
    if path.namespace.is_none() {
        if path.is_rg_path {
            return Ok(kinds::by_id(KindId::ResourceGroup));
        }
        return Err(ArmError::new(
            error_codes::INVALID_RESOURCE_TYPE,
            "The resource type could not be found.",
        ));
    }
    kinds::lookup(&path.type_key()).ok_or_else(|| {
        ArmError::new(
            error_codes::INVALID_RESOURCE_TYPE,
            format!(
                "The resource type '{}' could not be found in the namespace '{}'.",
                path.types.join("/"),
                path.namespace.clone().unwrap_or_default()
            ),
        )
    })
}

/// [`kind_of`] plus CRP's instance-id check: what every request naming one resource goes through.
pub(crate) fn addressed_kind(path: &ArmPath) -> Result<&'static Kind, ArmError> {
    let kind = kind_of(path)?;
    check_instance_id(kind, path)?;
    Ok(kind)
}

/// CRP rejects non-numeric scale-set instance ids.
fn check_instance_id(kind: &Kind, path: &ArmPath) -> Result<(), ArmError> {
    if kind.types.len() >= 2
        && kind.types[0] == "virtualMachineScaleSets"
        && kind.types[1] == "virtualMachines"
        && let Some(i) = path.names.get(1)
        && i.parse::<u64>().is_err()
    {
        return Err(ArmError::invalid_parameter(
            "Virtual Machine Scale Set VM instanceId must be a number.",
            "instanceId",
        ));
    }
    Ok(())
}

impl ArmState {
    /// Creates an empty fake ARM.
    pub fn new(config: ArmConfig) -> Self {
        Self {
            inner: Arc::new(Inner {
                retry_after: RwLock::new(config.retry_after),
                config,
                store: RwLock::new(Store::default()),
                lro_max_age: RwLock::new(DEFAULT_LRO_MAX_AGE),
            }),
        }
    }

    /// Configuration in use.
    pub fn config(&self) -> &ArmConfig {
        &self.inner.config
    }

    /// Operations older than this complete even if nobody polls them (default [`DEFAULT_LRO_MAX_AGE`]), so a
    /// client that never polls (or died after its PUT) cannot wedge a resource in `Updating`.
    pub fn set_lro_max_age(&self, age: Duration) {
        *self.inner.lro_max_age.write() = age;
    }

    /// `Retry-After` seconds sent with every 201/202 that starts an operation and with every 202 from a `Location`
    /// poll (default [`ArmConfig::retry_after`], `Some(1)`, so clients poll quickly). `None` omits the header, like the recorded NRP/CRP
    /// writes, which exercises a client's default poll interval.
    pub fn set_retry_after(&self, seconds: Option<u64>) {
        *self.inner.retry_after.write() = seconds;
    }

    pub(crate) fn retry_after(&self) -> Option<String> {
        self.inner.retry_after.read().map(|s| s.to_string())
    }

    fn sync_ctx(&self) -> WriteCtx<'_> {
        WriteCtx {
            cfg: &self.inner.config,
            base: DEFAULT_BASE,
            sync: true,
            api_version: "2025-05-01".into(),
            fail: None,
            pre: Preconditions::default(),
        }
    }

    pub(crate) fn settle(&self, store: &mut Store) {
        let age = *self.inner.lro_max_age.read();
        store.settle_expired(age);
    }

    /// Create-or-update with the same validations as an HTTP PUT, completed synchronously (provisioningState Succeeded).
    pub fn put(&self, id: &str, body: Value) -> Result<Value, ArmError> {
        let path = ArmPath::parse(id)?;
        let kind = addressed_kind(&path)?;
        let cx = self.sync_ctx();
        let mut store = self.inner.store.write();
        self.settle(&mut store);
        store.put(&path, kind, body, &cx).map(|o| o.body)
    }

    /// Reads a resource (stored or embedded child) as GET returns it (without instance view).
    pub fn get(&self, id: &str) -> Result<Value, ArmError> {
        let path = ArmPath::parse(id)?;
        let kind = addressed_kind(&path)?;
        let store = self.inner.store.read();
        if kind.id != KindId::ResourceGroup {
            store.require_rg(&path)?;
        }
        let display = store.display_id(&path, kind);
        store
            .object(&key_of(&display))
            .cloned()
            .ok_or_else(|| not_found(&store, &path, kind, &display))
    }

    /// Deletes with the same in-use checks as HTTP DELETE, synchronously.
    pub fn delete(&self, id: &str) -> Result<(), ArmError> {
        let path = ArmPath::parse(id)?;
        let kind = addressed_kind(&path)?;
        let cx = self.sync_ctx();
        let mut store = self.inner.store.write();
        self.settle(&mut store);
        store.delete(&path, kind, &cx).map(|_| ())
    }

    /// Lists a collection, e.g. `.../providers/Microsoft.Compute/virtualMachines` or a VMSS's `.../virtualMachines`.
    pub fn list(&self, collection_id: &str) -> Result<Vec<Value>, ArmError> {
        let path = ArmPath::parse(collection_id)?;
        let store = self.inner.store.read();
        let items = crate::paging::collect(&store, &path, false, None)?;
        Ok(items.into_iter().map(|(_, v)| v).collect())
    }

    /// Admin mutation outside ARM validation (power state, instance view, ...); bumps etag/changes like a platform event would.
    pub fn modify(&self, id: &str, f: impl FnOnce(&mut Value)) -> Result<Value, ArmError> {
        let path = ArmPath::parse(id)?;
        let kind = kind_of(&path)?;
        let mut store = self.inner.store.write();
        let display = store.display_id(&path, kind);
        let key = key_of(&display);
        let owner = match store.locate(&key) {
            Some(Target::Entry(k)) => k,
            Some(Target::Child(o, _, _)) => o,
            None => return Err(not_found(&store, &path, kind, &display)),
        };
        let entry = store
            .entries
            .get(&owner)
            .cloned()
            .ok_or_else(|| not_found(&store, &path, kind, &display))?;
        let mut doc = entry.doc.clone();
        if owner == key {
            f(&mut doc);
        } else if let Some(Target::Child(_, coll, name)) = store.locate(&key)
            && let Some(child) = crate::store::find_child_mut(&mut doc, coll, &name)
        {
            f(child);
        }
        let version = entry.version + 1;
        match kinds::by_id(entry.kind).provider {
            Provider::Network => {
                crate::resources::stamp_etag(&mut doc, entry.kind, &etag::new_nrp())
            }
            Provider::Compute if doc.get("etag").is_some() => {
                doc["etag"] = json!(etag::crp(version))
            }
            _ => {}
        }
        store.commit(&owner, entry.kind, doc, None);
        if let Some(e) = store.entries.get_mut(&owner) {
            e.version = version;
        }
        if entry.kind == KindId::VmssVm {
            crate::resources::after_commit(
                &mut store,
                kinds::by_id(KindId::VmssVm),
                &owner,
                &self.sync_ctx(),
            )?;
        }
        store
            .object(&key)
            .cloned()
            .ok_or_else(|| not_found(&store, &path, kind, &display))
    }

    /// Instance view of a VM or scale-set VM.
    pub fn instance_view(&self, vm_id: &str) -> Result<Value, ArmError> {
        let path = ArmPath::parse(vm_id)?;
        let kind = kind_of(&path)?;
        let store = self.inner.store.read();
        store.require_rg(&path)?;
        let display = store.display_id(&path, kind);
        store
            .entries
            .get(&key_of(&display))
            .and_then(|e| e.instance_view.clone())
            .ok_or_else(|| not_found(&store, &path, kind, &display))
    }

    /// Sets the `PowerState/*` status of a VM or scale-set VM instance view (a platform event: no etag change).
    pub fn set_power_state(&self, vm_id: &str, state: PowerState) -> Result<(), ArmError> {
        self.modify_instance_view(vm_id, |iv| {
            let (code, display) = state.code();
            set_power_state_in(iv, code, display);
        })
    }

    /// Arbitrary edit of a VM / scale-set VM instance view (zones, fault domains, statuses...).
    pub fn modify_instance_view(
        &self,
        vm_id: &str,
        f: impl FnOnce(&mut Value),
    ) -> Result<(), ArmError> {
        let path = ArmPath::parse(vm_id)?;
        let kind = kind_of(&path)?;
        let mut store = self.inner.store.write();
        let display = store.display_id(&path, kind);
        let key = key_of(&display);
        match store
            .entries
            .get_mut(&key)
            .and_then(|e| e.instance_view.as_mut())
        {
            Some(iv) => {
                f(iv);
                crate::resources::on_instance_view_changed(&mut store, &key);
                Ok(())
            }
            None => Err(not_found(&store, &path, kind, &display)),
        }
    }

    /// Whole state as JSON (for snapshot/restore).
    pub fn export(&self) -> Value {
        let store = self.inner.store.read();
        let entries: Vec<Value> = store
            .entries
            .values()
            .map(|e| json!({ "kind": e.kind, "version": e.version, "doc": e.doc, "instanceView": e.instance_view }))
            .collect();
        json!({ "version": 1, "entries": entries, "nextPublicIp": store.alloc.next_pip, "nextMac": store.alloc.next_mac })
    }

    /// Replaces the whole state with a snapshot from [`ArmState::export`]. Running operations are dropped.
    pub fn import(&self, snapshot: Value) -> Result<(), ArmError> {
        let bad =
            |m: &str| ArmError::new(error_codes::INVALID_SNAPSHOT, format!("ARM snapshot: {m}"));
        if snapshot.get("version").and_then(Value::as_u64) != Some(1) {
            return Err(bad("field 'version' must be 1"));
        }
        let entries = snapshot
            .get("entries")
            .and_then(Value::as_array)
            .ok_or_else(|| bad("field 'entries' must be an array"))?;
        let mut fresh = Store::default();
        for (i, e) in entries.iter().enumerate() {
            let kind: KindId =
                serde_json::from_value(e.get("kind").cloned().unwrap_or(Value::Null))
                    .map_err(|err| bad(&format!("entries[{i}].kind: {err}")))?;
            let doc = e
                .get("doc")
                .cloned()
                .filter(Value::is_object)
                .ok_or_else(|| bad(&format!("entries[{i}].doc must be an object")))?;
            let id = doc
                .get("id")
                .and_then(Value::as_str)
                .ok_or_else(|| bad(&format!("entries[{i}].doc.id must be a string")))?
                .to_string();
            let key = key_of(&id);
            let iv = e.get("instanceView").cloned().filter(|v| !v.is_null());
            fresh.commit(&key, kind, doc, iv);
            if let Some(entry) = fresh.entries.get_mut(&key) {
                entry.version = e.get("version").and_then(Value::as_u64).unwrap_or(0);
            }
        }
        // Committing rebuilt the reference index; keep the documents (etags, back-references) exactly as exported.
        for e in entries {
            if let Some(id) = e.pointer("/doc/id").and_then(Value::as_str)
                && let Some(entry) = fresh.entries.get_mut(&key_of(id))
            {
                entry.doc = e["doc"].clone();
                entry.rerender();
            }
        }
        fresh.alloc.next_pip = snapshot
            .get("nextPublicIp")
            .and_then(Value::as_u64)
            .unwrap_or(0) as u32;
        fresh.alloc.next_mac = snapshot.get("nextMac").and_then(Value::as_u64).unwrap_or(0) as u32;
        *self.inner.store.write() = fresh;
        Ok(())
    }

    /// Number of stored resources (groups, resources, scale-set instances and their NICs; embedded children not counted).
    pub fn resource_count(&self) -> usize {
        self.inner.store.read().entries.len()
    }

    /// Router for every ARM path this fake serves; auth/throttle/faults are layered on top by azure-fakes.
    pub fn router(&self) -> axum::Router {
        crate::router::router(self.clone())
    }
}

/// Object for a GET of an entry, with the instance view embedded when `$expand=instanceView`.
pub(crate) fn with_instance_view(e: &Entry) -> Value {
    let mut doc = e.doc.clone();
    if let Some(iv) = &e.instance_view {
        doc["properties"]["instanceView"] = iv.clone();
    }
    doc
}

/// Embedded child lookup used by the router.
pub(crate) fn child_of<'a>(
    store: &'a Store,
    owner: &str,
    coll: &str,
    name: &str,
) -> Option<&'a Value> {
    find_child(&store.entries.get(owner)?.doc, coll, name)
}
