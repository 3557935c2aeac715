//! [`SharedSet`]: one shared copy of each distinct value that many cached objects hold (a label
//! pair on every Node of a pool, the network profile text of every instance of a scale set), so
//! a cache keeps a pointer per object instead of a copy. Here rather than in a controller or the
//! provider because both sides' caches use it.
//!
//! Values no cache holds any more are dropped by a sweep that runs when the set has doubled since
//! the last one, so it holds at most about twice the live distinct values and each insertion
//! stays amortised O(1).

use std::borrow::Borrow;
use std::collections::HashSet;
use std::hash::Hash;
use std::sync::Arc;

/// The fewest entries at which a sweep runs.
pub const MIN_SWEEP: usize = 1024;

/// A set of shared values, swept when it has doubled (see the module docs).
#[derive(Debug)]
pub struct SharedSet<T: ?Sized> {
    entries: HashSet<Arc<T>>,
    /// Size of the set at which the next sweep runs.
    sweep_at: usize,
}

impl<T: ?Sized + Eq + Hash> Default for SharedSet<T> {
    fn default() -> Self {
        SharedSet {
            entries: HashSet::new(),
            sweep_at: MIN_SWEEP,
        }
    }
}

impl<T: ?Sized + Eq + Hash> SharedSet<T> {
    /// The shared value equal to `probe`, `make` building it on first use.
    pub fn get<Q>(&mut self, probe: &Q, make: impl FnOnce() -> Arc<T>) -> Arc<T>
    where
        Arc<T>: Borrow<Q>,
        Q: ?Sized + Eq + Hash,
    {
        if let Some(shared) = self.entries.get(probe) {
            return Arc::clone(shared);
        }
        if self.entries.len() >= self.sweep_at {
            self.entries.retain(|t| Arc::strong_count(t) > 1);
            self.sweep_at = (self.entries.len() * 2).max(MIN_SWEEP);
        }
        let shared = make();
        self.entries.insert(Arc::clone(&shared));
        shared
    }

    /// Distinct values held (live or not yet swept).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the set holds nothing.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_values_share_one_allocation() {
        let mut set = SharedSet::<str>::default();
        let a = set.get("text", || Arc::from("text"));
        let b = set.get("text", || Arc::from("text"));
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(set.len(), 1);
    }

    #[test]
    fn values_nobody_holds_are_swept_once_the_set_doubled() {
        let mut set = SharedSet::<str>::default();
        let kept: Vec<Arc<str>> = (0..10)
            .map(|i| {
                let text = format!("kept-{i}");
                set.get(text.as_str(), || Arc::from(text.as_str()))
            })
            .collect();
        for i in 0..MIN_SWEEP - kept.len() {
            let text = format!("dropped-{i}");
            drop(set.get(text.as_str(), || Arc::from(text.as_str())));
        }
        assert_eq!(set.len(), MIN_SWEEP, "no sweep below the threshold");
        // The next insertion sweeps: only what someone holds stays.
        let last = set.get("last", || Arc::from("last"));
        assert_eq!(set.len(), kept.len() + 1);
        assert!(Arc::ptr_eq(&set.get("kept-3", || Arc::from("x")), &kept[3]));
        drop(last);
    }
}
