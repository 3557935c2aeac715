//! Watch fan-out: every change is offered to each interested watcher without ever blocking the
//! writer; a watcher whose buffer is full is dropped (its stream ends) so it re-lists, which is
//! what the real watch cache does with slow consumers.

use std::sync::Arc;

use tokio::sync::mpsc;

use super::history::Change;
use crate::kinds::KindId;

/// Registered interest in one kind (and optionally one namespace).
#[derive(Debug)]
struct Registration {
    kind: KindId,
    namespace: Option<String>,
    tx: mpsc::Sender<Arc<Change>>,
}

/// All live watchers.
#[derive(Debug, Default)]
pub struct Watchers {
    registrations: Vec<Registration>,
    dropped_slow: u64,
}

impl Watchers {
    /// Registers a watcher and returns its receiving end.
    pub fn register(
        &mut self,
        kind: KindId,
        namespace: Option<String>,
        buffer: usize,
    ) -> mpsc::Receiver<Arc<Change>> {
        let (tx, rx) = mpsc::channel(buffer.max(1));
        self.registrations.push(Registration {
            kind,
            namespace,
            tx,
        });
        rx
    }

    /// Offers `change` to every matching watcher; full or closed watchers are removed.
    pub fn publish(&mut self, change: &Arc<Change>) {
        let mut dropped = 0;
        self.registrations.retain(|r| {
            if r.kind != change.kind
                || r.namespace
                    .as_deref()
                    .is_some_and(|ns| ns != change.namespace)
            {
                return !r.tx.is_closed();
            }
            match r.tx.try_send(Arc::clone(change)) {
                Ok(()) => true,
                Err(mpsc::error::TrySendError::Full(_)) => {
                    dropped += 1;
                    false
                }
                Err(mpsc::error::TrySendError::Closed(_)) => false,
            }
        });
        if dropped > 0 {
            tracing::warn!(dropped, "closed watchers that fell too far behind");
            self.dropped_slow += dropped;
        }
    }

    /// Closes every watch (used on shutdown and by tests).
    pub fn close_all(&mut self) {
        self.registrations.clear();
    }

    /// Number of live watchers.
    pub fn len(&self) -> usize {
        self.registrations
            .iter()
            .filter(|r| !r.tx.is_closed())
            .count()
    }

    /// How many watchers were closed for being too slow since start.
    pub fn dropped_slow(&self) -> u64 {
        self.dropped_slow
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::history::EventType;
    use serde_json::Value;

    fn change(kind: KindId, ns: &str) -> Arc<Change> {
        Arc::new(Change {
            rv: 1,
            kind,
            namespace: ns.into(),
            name: "x".into(),
            event: EventType::Added,
            object: Arc::new(Value::Null),
            prev: None,
        })
    }

    #[test]
    fn slow_watchers_are_closed_and_writers_never_block() {
        let mut w = Watchers::default();
        let mut fast = w.register(1, None, 10);
        let mut slow = w.register(1, None, 1);
        let mut other_ns = w.register(1, Some("b".into()), 1);
        for _ in 0..3 {
            w.publish(&change(1, "a"));
            while fast.try_recv().is_ok() {}
        }
        assert_eq!(w.dropped_slow(), 1);
        assert!(slow.try_recv().is_ok());
        assert!(matches!(
            slow.try_recv(),
            Err(mpsc::error::TryRecvError::Disconnected)
        ));
        assert!(matches!(
            other_ns.try_recv(),
            Err(mpsc::error::TryRecvError::Empty)
        ));
        assert_eq!(w.len(), 2);
    }
}
