//! A small TTL cache of review answers (TokenReview per token, SubjectAccessReview per request
//! attributes). A zero TTL caches nothing. Keys are held in memory only, never logged.

use std::collections::HashMap;
use std::hash::Hash;
use std::time::{Duration, Instant};

use std::sync::Mutex;

/// Entries beyond which expired ones are swept on insert.
const SWEEP_AT: usize = 4096;

/// Answers with their expiry.
pub struct TtlCache<K, V> {
    entries: Mutex<HashMap<K, (V, Instant)>>,
}

impl<K: Eq + Hash, V: Clone> TtlCache<K, V> {
    /// An empty cache.
    pub fn new() -> Self {
        Self {
            entries: Mutex::new(HashMap::new()),
        }
    }

    /// The cached answer, if still fresh.
    pub fn get(&self, key: &K) -> Option<V> {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries
            .get(key)
            .filter(|(_, until)| *until > Instant::now())
            .map(|(v, _)| v.clone())
    }

    /// Keeps `value` for `ttl` (not at all when zero).
    pub fn put(&self, key: K, value: V, ttl: Duration) {
        if ttl.is_zero() {
            return;
        }
        let now = Instant::now();
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if entries.len() >= SWEEP_AT {
            entries.retain(|_, (_, until)| *until > now);
        }
        entries.insert(key, (value, now + ttl));
    }
}

impl<K: Eq + Hash, V: Clone> Default for TtlCache<K, V> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_ttl_keeps_nothing_and_fresh_entries_are_returned() {
        let cache = TtlCache::new();
        cache.put("a", 1, Duration::ZERO);
        assert_eq!(cache.get(&"a"), None);
        cache.put("a", 2, Duration::from_secs(3600));
        assert_eq!(cache.get(&"a"), Some(2));
    }
}
