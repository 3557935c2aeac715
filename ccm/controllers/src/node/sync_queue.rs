//! [`SyncQueue`]: the Node names waiting for a cloud-node sync, handed to a bounded number of
//! workers. Instead of kube-runtime's `Controller` scheduler, whose delay queue slab and hash maps
//! grow to the largest backlog and never shrink: 5000 registering Nodes left about 3.5 MiB of
//! empty capacity behind for the life of the process (heaptrack). Here a backlog is a deque of
//! names whose capacity is handed back once it is drained.
//!
//! Semantics kept from the `Controller`: a name is queued once however many events arrive for
//! it; a Node is never synced twice at once; a Node that changes while its sync runs is synced
//! again after it; names are served in arrival order.

use std::collections::{HashSet, VecDeque};
use std::sync::{Mutex, MutexGuard, PoisonError};

use tokio::sync::Notify;

/// Names to sync, deduplicated; see the module docs.
#[derive(Debug, Default)]
pub struct SyncQueue {
    state: Mutex<State>,
    /// Woken when a name becomes available to a worker.
    available: Notify,
}

#[derive(Debug, Default)]
struct State {
    /// Waiting names, oldest first.
    pending: VecDeque<String>,
    /// The names in `pending`.
    queued: HashSet<String>,
    /// Names a worker is syncing now.
    running: HashSet<String>,
    /// Running names that changed meanwhile: queued again when their sync ends.
    again: HashSet<String>,
}

impl SyncQueue {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues `name` unless it is queued already; a running one is synced again after its sync.
    pub fn push(&self, name: &str) {
        let mut state = self.state();
        if state.running.contains(name) {
            state.again.insert(name.to_owned());
            return;
        }
        if state.queued.insert(name.to_owned()) {
            state.pending.push_back(name.to_owned());
            drop(state);
            self.available.notify_one();
        }
    }

    /// Waits for the oldest waiting name and marks it running; the caller calls
    /// [`SyncQueue::done`] when its sync ends.
    pub async fn next(&self) -> String {
        loop {
            // Registered before the check, so a push in between is not missed.
            let notified = self.available.notified();
            if let Some(name) = self.take() {
                return name;
            }
            notified.await;
        }
    }

    fn take(&self) -> Option<String> {
        let mut state = self.state();
        let name = state.pending.pop_front()?;
        state.queued.remove(&name);
        state.running.insert(name.clone());
        if state.pending.is_empty() {
            // The backlog is drained: give its capacity back.
            state.pending.shrink_to_fit();
            state.queued.shrink_to_fit();
        }
        let more = !state.pending.is_empty();
        drop(state);
        if more {
            // Another worker may take the next one.
            self.available.notify_one();
        }
        Some(name)
    }

    /// Ends `name`'s sync; a change seen meanwhile queues it again.
    pub fn done(&self, name: &str) {
        let mut state = self.state();
        state.running.remove(name);
        let again = state.again.remove(name);
        drop(state);
        if again {
            self.push(name);
        }
    }

    /// Names waiting (not running).
    pub fn len(&self) -> usize {
        self.state().pending.len()
    }

    /// Whether no name is waiting.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn names_are_served_once_in_arrival_order() {
        let queue = SyncQueue::default();
        for name in ["b", "a", "b", "c", "a"] {
            queue.push(name);
        }
        assert_eq!(queue.len(), 3);
        assert_eq!(queue.next().await, "b");
        assert_eq!(queue.next().await, "a");
        assert_eq!(queue.next().await, "c");
        assert!(queue.is_empty());
    }

    #[tokio::test]
    async fn a_name_changed_while_running_is_synced_again_after_it() {
        let queue = SyncQueue::default();
        queue.push("a");
        assert_eq!(queue.next().await, "a");
        // Events while "a" runs: not handed to another worker, remembered.
        queue.push("a");
        queue.push("a");
        assert!(queue.is_empty());
        queue.done("a");
        assert_eq!(queue.len(), 1);
        assert_eq!(queue.next().await, "a");
        queue.done("a");
        assert!(queue.is_empty());
    }

    #[tokio::test]
    async fn a_waiting_worker_is_woken_by_a_push() {
        let queue = Arc::new(SyncQueue::default());
        let worker = tokio::spawn({
            let queue = Arc::clone(&queue);
            async move { queue.next().await }
        });
        tokio::task::yield_now().await;
        queue.push("late");
        let got = tokio::time::timeout(Duration::from_secs(10), worker)
            .await
            .expect("woken")
            .expect("joined");
        assert_eq!(got, "late");
    }

    #[tokio::test]
    async fn every_waiting_worker_gets_work_from_a_burst() {
        let queue = Arc::new(SyncQueue::default());
        let workers: Vec<_> = (0..4)
            .map(|_| {
                let queue = Arc::clone(&queue);
                tokio::spawn(async move { queue.next().await })
            })
            .collect();
        tokio::task::yield_now().await;
        for name in ["a", "b", "c", "d"] {
            queue.push(name);
        }
        let mut got = Vec::new();
        for worker in workers {
            let name = tokio::time::timeout(Duration::from_secs(10), worker)
                .await
                .expect("woken")
                .expect("joined");
            got.push(name);
        }
        got.sort();
        assert_eq!(got, ["a", "b", "c", "d"]);
    }

    #[tokio::test]
    async fn a_drained_backlog_gives_its_capacity_back() {
        let queue = SyncQueue::default();
        for i in 0..5000 {
            queue.push(&format!("node-{i}"));
        }
        for _ in 0..5000 {
            let name = queue.next().await;
            queue.done(&name);
        }
        let state = queue.state();
        assert!(
            state.pending.capacity() < 16,
            "{}",
            state.pending.capacity()
        );
        assert!(state.queued.capacity() < 16, "{}", state.queued.capacity());
    }
}
