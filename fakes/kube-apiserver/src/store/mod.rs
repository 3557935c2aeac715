//! In-memory object store: one global resourceVersion counter, objects per kind ordered by
//! (namespace, name) like etcd keys, a bounded change history, and non-blocking watch fan-out.
//! Every write runs inside [`Store::write`] so read-modify-write logic is atomic.

mod history;
pub mod persist;
mod watchers;

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;

use parking_lot::Mutex;
use serde_json::Value;
use tokio::sync::{Notify, mpsc};

pub use history::{Change, EventType};

use crate::kinds::service_alloc::ServiceAllocations;
use crate::kinds::{KINDS, KindId};
use crate::status::ApiError;
use history::History;
use watchers::Watchers;

/// (namespace, name); namespace is "" for cluster-scoped kinds.
pub type ObjectKey = (String, String);

/// Tunables of the store.
#[derive(Debug, Clone)]
pub struct StoreConfig {
    /// Changes kept for watch resumption and consistent paging.
    pub history_capacity: usize,
    /// Per-watcher buffered events before the watcher is closed as too slow.
    pub watch_buffer: usize,
    /// Range Service cluster IPs are allocated from.
    pub service_cidr: crate::kinds::service_alloc::ServiceCidr,
}

impl Default for StoreConfig {
    fn default() -> Self {
        Self {
            history_capacity: 20_000,
            watch_buffer: 10_000,
            service_cidr: Default::default(),
        }
    }
}

/// Mutable state, reachable only while the store lock is held.
#[derive(Debug)]
pub struct State {
    rv: u64,
    objects: Vec<BTreeMap<ObjectKey, Arc<Value>>>,
    history: History,
    watchers: Watchers,
    /// Cluster IPs and node ports in use.
    pub services: ServiceAllocations,
    dirty: bool,
}

/// What a new watch starts from.
#[derive(Debug)]
pub struct Subscription {
    /// Objects that exist at `rv` (for watches that asked for initial state).
    pub initial: Vec<Arc<Value>>,
    /// Changes after the requested version (for watches that resume).
    pub replay: Vec<Arc<Change>>,
    /// Live changes from now on.
    pub live: mpsc::Receiver<Arc<Change>>,
    /// Version the watch is positioned at after `initial`/`replay`.
    pub rv: u64,
}

/// The store, shared by all handlers.
#[derive(Debug)]
pub struct Store {
    state: Mutex<State>,
    config: StoreConfig,
    changed: Notify,
}

impl Store {
    /// Builds a store from persisted objects (or none) with `rv` as the current version.
    pub fn new(config: StoreConfig, rv: u64, objects: Vec<(KindId, Value)>) -> Self {
        let mut maps: Vec<BTreeMap<ObjectKey, Arc<Value>>> = vec![BTreeMap::new(); KINDS.len()];
        let mut services = ServiceAllocations::new(config.service_cidr);
        for (kind, obj) in objects {
            let key = key_of(&obj);
            if kind == crate::kinds::ids::services() {
                services.restore(&key, &obj);
            }
            maps[kind].insert(key, Arc::new(obj));
        }
        let state = State {
            rv,
            objects: maps,
            history: History::new(config.history_capacity, rv),
            watchers: Watchers::default(),
            services,
            dirty: false,
        };
        Self {
            state: Mutex::new(state),
            config,
            changed: Notify::new(),
        }
    }

    /// Runs `f` with exclusive access; notifies the persistence task when something changed.
    pub fn write<R>(
        &self,
        f: impl FnOnce(&mut State) -> Result<R, ApiError>,
    ) -> Result<R, ApiError> {
        let mut state = self.state.lock();
        let before = state.rv;
        let out = f(&mut state);
        if state.rv != before {
            state.dirty = true;
            drop(state);
            self.changed.notify_one();
        }
        out
    }

    /// Runs `f` with shared read access to the state.
    pub fn read<R>(&self, f: impl FnOnce(&State) -> R) -> R {
        f(&self.state.lock())
    }

    /// Registers a watch on `kind` (optionally one namespace). `since = None` returns the current
    /// objects as initial state; `Some(rv)` replays the changes after `rv` or fails with 410.
    pub fn subscribe(
        &self,
        kind: KindId,
        namespace: Option<&str>,
        since: Option<u64>,
    ) -> Result<Subscription, ApiError> {
        let mut state = self.state.lock();
        let rv = state.rv;
        let (initial, replay) = match since {
            None => (state.list_current(kind, namespace), Vec::new()),
            Some(from) => {
                if from < state.history.floor() {
                    return Err(ApiError::expired(format!(
                        "too old resource version: {from} ({})",
                        state.history.floor()
                    )));
                }
                let replay = state
                    .history
                    .since(from)
                    .filter(|c| c.kind == kind && namespace.is_none_or(|ns| ns == c.namespace))
                    .cloned()
                    .collect();
                (Vec::new(), replay)
            }
        };
        let live = state.watchers.register(
            kind,
            namespace.map(str::to_string),
            self.config.watch_buffer,
        );
        Ok(Subscription {
            initial,
            replay,
            live,
            rv,
        })
    }

    /// Waits until something changed since the last call (persistence trigger).
    pub async fn changed(&self) {
        self.changed.notified().await;
    }

    /// Takes the dirty flag and, if set, a consistent copy of everything for persistence.
    pub fn take_dirty_snapshot(&self) -> Option<(u64, Vec<Arc<Value>>)> {
        let mut state = self.state.lock();
        if !state.dirty {
            return None;
        }
        state.dirty = false;
        Some((
            state.rv,
            state
                .objects
                .iter()
                .flat_map(|m| m.values().cloned())
                .collect(),
        ))
    }

    /// Forgets all history: watches and continue tokens at older versions now get 410.
    pub fn compact_history(&self) {
        let mut state = self.state.lock();
        let rv = state.rv;
        state.history.compact(rv);
    }

    /// Fault hook: ends every watch and moves the version counter past everything watchers saw,
    /// with no history kept, so every resuming watcher gets 410 Gone and must re-list (what a
    /// real client sees after an etcd compaction while it was disconnected).
    pub fn expire_watches(&self) {
        let mut state = self.state.lock();
        state.watchers.close_all();
        state.rv += 1;
        let rv = state.rv;
        state.history.compact(rv);
        state.dirty = true;
        drop(state);
        self.changed.notify_one();
    }

    /// Ends every open watch stream (clients then re-watch from their last version).
    pub fn close_watches(&self) {
        self.state.lock().watchers.close_all();
    }

    /// Every stored object, kind by kind, for tests and snapshots.
    pub fn all_objects(&self) -> Vec<Arc<Value>> {
        self.state
            .lock()
            .objects
            .iter()
            .flat_map(|m| m.values().cloned())
            .collect()
    }

    /// Watchers closed since start because they fell too far behind.
    pub fn slow_watchers_closed(&self) -> u64 {
        self.state.lock().watchers.dropped_slow()
    }

    /// Number of open watch streams.
    pub fn watcher_count(&self) -> usize {
        self.state.lock().watchers.len()
    }
}

impl State {
    /// Current global resourceVersion.
    pub fn rv(&self) -> u64 {
        self.rv
    }

    /// The stored object, if any.
    pub fn get(&self, kind: KindId, namespace: &str, name: &str) -> Option<Arc<Value>> {
        self.objects[kind]
            .get(&(namespace.to_string(), name.to_string()))
            .cloned()
    }

    /// Objects of `kind` now, optionally in one namespace, in key order.
    pub fn list_current(&self, kind: KindId, namespace: Option<&str>) -> Vec<Arc<Value>> {
        match namespace {
            None => self.objects[kind].values().cloned().collect(),
            Some(ns) => self.objects[kind]
                .range((ns.to_string(), String::new())..)
                .take_while(|((n, _), _)| n == ns)
                .map(|(_, v)| v.clone())
                .collect(),
        }
    }

    /// Objects of `kind` as they were at `rv` (undoing later history), keys after `after`.
    pub fn list_at(
        &self,
        kind: KindId,
        namespace: Option<&str>,
        rv: u64,
        after: Option<&ObjectKey>,
    ) -> Result<Vec<Arc<Value>>, ApiError> {
        if rv > self.rv {
            return Err(ApiError::resource_version_too_large(rv, self.rv));
        }
        if rv < self.history.floor() {
            return Err(ApiError::expired(EXPIRED_CONTINUE));
        }
        let in_scope =
            |k: &ObjectKey| namespace.is_none_or(|ns| ns == k.0) && after.is_none_or(|a| k > a);
        // The state at `rv` of every key changed since: the `prev` of its first later change
        // (`None`: it did not exist yet).
        let mut undo: BTreeMap<ObjectKey, Option<Arc<Value>>> = BTreeMap::new();
        for change in self.history.since(rv) {
            if change.kind != kind {
                continue;
            }
            let key = (change.namespace.clone(), change.name.clone());
            if in_scope(&key) {
                undo.entry(key).or_insert_with(|| change.prev.clone());
            }
        }
        // Walk only the key range in scope, replacing changed keys by their state at `rv`.
        let start = match (after, namespace) {
            (Some(a), _) => Bound::Excluded(a.clone()),
            (None, Some(ns)) => Bound::Included((ns.to_string(), String::new())),
            (None, None) => Bound::Unbounded,
        };
        let current = self.objects[kind]
            .range((start, Bound::Unbounded))
            .take_while(|(k, _)| namespace.is_none_or(|ns| ns == k.0));
        let mut restored = undo
            .iter()
            .filter_map(|(k, v)| v.as_ref().map(|v| (k, v)))
            .peekable();
        let mut out = Vec::new();
        for (key, obj) in current {
            while let Some((_, prev)) = restored.next_if(|(k, _)| *k < key) {
                out.push(prev.clone());
            }
            if !undo.contains_key(key) {
                out.push(obj.clone());
            }
        }
        out.extend(restored.map(|(_, prev)| prev.clone()));
        Ok(out)
    }

    /// Whether any object of any namespaced kind lives in `namespace`.
    pub fn namespace_is_empty(&self, namespace: &str) -> bool {
        KINDS
            .iter()
            .enumerate()
            .filter(|(_, k)| k.namespaced)
            .all(|(id, _)| self.list_current(id, Some(namespace)).is_empty())
    }

    /// Stores `object` (create or replace), assigning the next resourceVersion; returns it.
    pub fn put(&mut self, kind: KindId, mut object: Value) -> Arc<Value> {
        self.rv += 1;
        set_rv(&mut object, self.rv);
        let key = key_of(&object);
        let object = Arc::new(object);
        let prev = self.objects[kind].insert(key.clone(), object.clone());
        let event = if prev.is_some() {
            EventType::Modified
        } else {
            EventType::Added
        };
        self.commit(kind, key, event, object.clone(), prev);
        object
    }

    /// Removes an object; the DELETED event carries the final state at a new resourceVersion.
    pub fn remove(&mut self, kind: KindId, namespace: &str, name: &str) -> Option<Arc<Value>> {
        let key = (namespace.to_string(), name.to_string());
        let prev = self.objects[kind].remove(&key)?;
        self.rv += 1;
        let mut last = (*prev).clone();
        set_rv(&mut last, self.rv);
        let last = Arc::new(last);
        if kind == crate::kinds::ids::services() {
            self.services.release(&key);
        }
        self.commit(kind, key, EventType::Deleted, last.clone(), Some(prev));
        Some(last)
    }

    fn commit(
        &mut self,
        kind: KindId,
        key: ObjectKey,
        event: EventType,
        object: Arc<Value>,
        prev: Option<Arc<Value>>,
    ) {
        let change = Arc::new(Change {
            rv: self.rv,
            kind,
            namespace: key.0,
            name: key.1,
            event,
            object,
            prev,
        });
        self.history.push(change.clone());
        self.watchers.publish(&change);
    }
}

/// Message of the real server for an expired continue token.
pub const EXPIRED_CONTINUE: &str = "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.";

/// (namespace, name) read from an object's metadata.
pub fn key_of(object: &Value) -> ObjectKey {
    let meta = &object["metadata"];
    (
        meta["namespace"].as_str().unwrap_or_default().to_string(),
        meta["name"].as_str().unwrap_or_default().to_string(),
    )
}

fn set_rv(object: &mut Value, rv: u64) {
    if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.insert("resourceVersion".into(), Value::String(rv.to_string()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cm(name: &str, v: &str) -> Value {
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "default"}, "data": {"v": v}})
    }

    #[test]
    fn list_at_an_older_version_undoes_later_changes() {
        let store = Store::new(StoreConfig::default(), 0, Vec::new());
        let kind = crate::kinds::by_resource("", "v1", "configmaps").unwrap();
        let rv = store
            .write(|s| {
                s.put(kind, cm("a", "1"));
                s.put(kind, cm("b", "1"));
                Ok(s.rv())
            })
            .unwrap();
        store
            .write(|s| {
                s.put(kind, cm("a", "2"));
                s.remove(kind, "default", "b");
                s.put(kind, cm("c", "1"));
                Ok(())
            })
            .unwrap();
        let old = store
            .read(|s| s.list_at(kind, Some("default"), rv, None))
            .unwrap();
        let names: Vec<(&str, &str)> = old
            .iter()
            .map(|o| {
                (
                    o["metadata"]["name"].as_str().unwrap(),
                    o["data"]["v"].as_str().unwrap(),
                )
            })
            .collect();
        assert_eq!(names, vec![("a", "1"), ("b", "1")]);
        let after_a = store
            .read(|s| {
                s.list_at(
                    kind,
                    Some("default"),
                    rv,
                    Some(&("default".into(), "a".into())),
                )
            })
            .unwrap();
        assert_eq!(after_a.len(), 1);
        assert_eq!(after_a[0]["metadata"]["name"], "b");
        let other_ns = store
            .read(|s| s.list_at(kind, Some("other"), rv, None))
            .unwrap();
        assert!(other_ns.is_empty());
        let now = store.read(|s| s.list_at(kind, None, s.rv(), None)).unwrap();
        let names: Vec<&str> = now
            .iter()
            .map(|o| o["metadata"]["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, vec!["a", "c"]);
        let ahead = store
            .read(|s| s.list_at(kind, None, s.rv() + 5, None))
            .unwrap_err();
        assert_eq!((ahead.code, ahead.reason), (504, "Timeout"));
        store.compact_history();
        let err = store.read(|s| s.list_at(kind, None, rv, None)).unwrap_err();
        assert_eq!(err.code, 410);
        assert!(store.subscribe(kind, None, Some(rv)).is_err());
    }
}
