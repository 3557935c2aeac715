//! A keyed TTL cache with upstream's read modes, single-flight loading per key, explicit
//! invalidation and a pass-through mode, timed by tokio's clock (so tests can pause time).

use std::collections::HashMap;
use std::future::Future;
use std::hash::Hash;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::time::Instant;

use super::{CachePolicy, ReadMode};

/// A keyed cache of loaded values: at most one load per key runs at a time, and readers that
/// waited for it are served its result.
pub struct TtlCache<K, V> {
    policy: CachePolicy,
    slots: Mutex<HashMap<K, Arc<Slot<V>>>>,
}

/// One key's stored value and the gate that serialises its loads.
struct Slot<V> {
    stored: Mutex<Stored<V>>,
    gate: tokio::sync::Mutex<()>,
}

struct Stored<V> {
    value: Option<(V, Instant)>,
    /// Bumped by invalidation: a load that started before it must not store its result.
    generation: u64,
    /// Number of stores, so a waiter can tell that a load finished while it waited.
    stores: u64,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // The critical sections never panic while holding the lock; recover anyway.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<V: Clone> Slot<V> {
    fn new() -> Self {
        Self {
            stored: Mutex::new(Stored {
                value: None,
                generation: 0,
                stores: 0,
            }),
            gate: tokio::sync::Mutex::new(()),
        }
    }

    /// The stored value if `mode` may serve it, or if it was stored after `seen_stores`.
    fn servable(
        &self,
        mode: ReadMode,
        policy: &CachePolicy,
        seen_stores: Option<u64>,
    ) -> Option<V> {
        let stored = lock(&self.stored);
        let (value, at) = stored.value.as_ref()?;
        let fresh_load = seen_stores.is_some_and(|seen| stored.stores > seen);
        let ok = fresh_load
            || match mode {
                ReadMode::Unsafe => true,
                ReadMode::Default => at.elapsed() < policy.ttl,
                ReadMode::ForceRefresh => false,
            };
        ok.then(|| value.clone())
    }

    fn counters(&self) -> (u64, u64) {
        let stored = lock(&self.stored);
        (stored.generation, stored.stores)
    }

    fn store_if_current(&self, generation: u64, value: V) {
        let mut stored = lock(&self.stored);
        if stored.generation == generation {
            stored.value = Some((value, Instant::now()));
            stored.stores += 1;
        }
    }

    fn store(&self, value: V) {
        let mut stored = lock(&self.stored);
        stored.generation += 1;
        stored.value = Some((value, Instant::now()));
        stored.stores += 1;
    }

    fn clear(&self) {
        let mut stored = lock(&self.stored);
        stored.generation += 1;
        stored.value = None;
    }
}

impl<K, V> TtlCache<K, V>
where
    K: Hash + Eq + Clone,
    V: Clone,
{
    /// An empty cache with this policy.
    pub fn new(policy: CachePolicy) -> Self {
        Self {
            policy,
            slots: Mutex::new(HashMap::new()),
        }
    }

    /// The cache's policy.
    pub fn policy(&self) -> CachePolicy {
        self.policy
    }

    fn slot(&self, key: &K) -> Arc<Slot<V>> {
        lock(&self.slots)
            .entry(key.clone())
            .or_insert_with(|| Arc::new(Slot::new()))
            .clone()
    }

    /// The value for `key` under `mode`, calling `load` when the stored one cannot be served.
    ///
    /// Loads of one key never overlap: a reader arriving during a load waits for it and is served
    /// its result (even a [`ReadMode::ForceRefresh`] reader, since that load started after it
    /// asked). A failed load stores nothing and leaves the previous value in place; its error goes
    /// to the reader that ran it, and the next waiter loads again. With a pass-through policy every
    /// call runs `load` and nothing is stored.
    pub async fn get<F, Fut, E>(&self, key: &K, mode: ReadMode, load: F) -> Result<V, E>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<V, E>>,
    {
        if self.policy.disabled {
            return load().await;
        }
        let slot = self.slot(key);
        if let Some(value) = slot.servable(mode, &self.policy, None) {
            return Ok(value);
        }
        let (_, seen_stores) = slot.counters();
        let _gate = slot.gate.lock().await;
        if let Some(value) = slot.servable(mode, &self.policy, Some(seen_stores)) {
            return Ok(value);
        }
        let (generation, _) = slot.counters();
        let value = load().await?;
        slot.store_if_current(generation, value.clone());
        Ok(value)
    }

    /// Stores `value` as freshly loaded (e.g. the body a write returned); a load in flight for
    /// the same key will not overwrite it.
    pub fn insert(&self, key: K, value: V) {
        if self.policy.disabled {
            return;
        }
        self.slot(&key).store(value);
    }

    /// The stored value for `key` whatever its age, without loading (e.g. the ETag for `If-Match`).
    pub fn peek(&self, key: &K) -> Option<V> {
        let slot = lock(&self.slots).get(key).cloned()?;
        let stored = lock(&slot.stored);
        stored.value.as_ref().map(|(v, _)| v.clone())
    }

    /// Drops `key` (after a write, a 412, a node deletion); a load in flight will not store.
    pub fn invalidate(&self, key: &K) {
        if let Some(slot) = lock(&self.slots).remove(key) {
            slot.clear();
        }
    }

    /// Drops every key.
    pub fn invalidate_all(&self) {
        let drained: Vec<_> = lock(&self.slots).drain().map(|(_, slot)| slot).collect();
        for slot in drained {
            slot.clear();
        }
    }
}

impl<K, V> std::fmt::Debug for TtlCache<K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TtlCache")
            .field("policy", &self.policy)
            .field("keys", &lock(&self.slots).len())
            .finish()
    }
}
