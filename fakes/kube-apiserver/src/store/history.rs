//! Bounded event history: watches resume from a resourceVersion by replaying it, and lists at an
//! older resourceVersion (continue tokens) are rebuilt by undoing it. Older versions get 410.

use std::collections::VecDeque;
use std::sync::Arc;

use serde_json::Value;

use crate::kinds::KindId;

/// Watch event type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventType {
    /// Object created.
    Added,
    /// Object changed.
    Modified,
    /// Object removed.
    Deleted,
}

impl EventType {
    /// The wire name (`ADDED`...).
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::Added => "ADDED",
            EventType::Modified => "MODIFIED",
            EventType::Deleted => "DELETED",
        }
    }
}

/// One committed change.
#[derive(Debug, Clone)]
pub struct Change {
    /// resourceVersion the change was committed at.
    pub rv: u64,
    /// Which kind changed.
    pub kind: KindId,
    /// Namespace ("" for cluster-scoped).
    pub namespace: String,
    /// Object name.
    pub name: String,
    /// What happened.
    pub event: EventType,
    /// The object after the change (for deletes: the last state, with the deletion's resourceVersion).
    pub object: Arc<Value>,
    /// The object before the change, `None` for creates.
    pub prev: Option<Arc<Value>>,
}

/// Ring of recent changes plus the oldest resourceVersion a watch may still start from.
#[derive(Debug)]
pub struct History {
    events: VecDeque<Arc<Change>>,
    capacity: usize,
    /// Watches and snapshots at or after this version can be served.
    floor: u64,
}

impl History {
    /// Empty history whose floor is `current_rv` (nothing older can be replayed).
    pub fn new(capacity: usize, current_rv: u64) -> Self {
        Self {
            events: VecDeque::with_capacity(capacity.min(4096)),
            capacity: capacity.max(1),
            floor: current_rv,
        }
    }

    /// Records a change, evicting the oldest when full.
    pub fn push(&mut self, change: Arc<Change>) {
        if self.events.len() == self.capacity
            && let Some(old) = self.events.pop_front()
        {
            self.floor = old.rv;
        }
        self.events.push_back(change);
    }

    /// Drops all history: every older resourceVersion now answers 410.
    pub fn compact(&mut self, current_rv: u64) {
        self.events.clear();
        self.floor = current_rv;
    }

    /// The oldest version still servable.
    pub fn floor(&self) -> u64 {
        self.floor
    }

    /// Changes committed after `rv` (callers checked `rv >= floor`).
    pub fn since(&self, rv: u64) -> impl DoubleEndedIterator<Item = &Arc<Change>> {
        let start = self.events.partition_point(|c| c.rv <= rv);
        self.events.range(start..)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(rv: u64) -> Arc<Change> {
        Arc::new(Change {
            rv,
            kind: 0,
            namespace: String::new(),
            name: format!("n{rv}"),
            event: EventType::Added,
            object: Arc::new(Value::Null),
            prev: None,
        })
    }

    #[test]
    fn eviction_raises_the_floor() {
        let mut h = History::new(2, 10);
        for rv in 11..=14 {
            h.push(change(rv));
        }
        assert_eq!(h.floor(), 12);
        let rvs: Vec<u64> = h.since(12).map(|c| c.rv).collect();
        assert_eq!(rvs, vec![13, 14]);
        h.compact(14);
        assert_eq!(h.floor(), 14);
        assert_eq!(h.since(14).count(), 0);
    }
}
