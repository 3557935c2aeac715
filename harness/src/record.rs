//! What the runner did and when: a timestamped list of marks (phases, the switch, workload and
//! churn actions, process starts and kills, fault windows, snapshots). Checks read it to know
//! what was expected to change (a Service deleted on purpose, a VM deleted by the scenario) and
//! to measure from the right instant (time-to-ingress from a Service's creation).

use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

/// Wall-clock now as Unix epoch milliseconds (the unit of every mark and sample).
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// A namespaced name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ObjectRef {
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
}

impl std::fmt::Display for ObjectRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.namespace, self.name)
    }
}

/// One thing the runner did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    tag = "kind"
)]
pub enum MarkKind {
    /// A phase began (`in-tree`, `before`, `during`, `after`, `rollback`).
    PhaseStarted {
        /// Phase label.
        phase: String,
    },
    /// A phase ended (its workload applied and the cluster settled, or the settle timed out).
    PhaseEnded {
        /// Phase label.
        phase: String,
        /// False when the settle wait timed out.
        settled: bool,
    },
    /// The switch procedure started.
    SwitchStarted,
    /// The switch procedure returned.
    SwitchEnded,
    /// The rollback to in-tree started.
    RollbackStarted,
    /// The rollback returned.
    RollbackEnded,
    /// A LoadBalancer Service was created.
    ServiceCreated(ObjectRef),
    /// A Service was changed.
    ServiceUpdated(ObjectRef),
    /// A Service deletion was requested.
    ServiceDeleted(ObjectRef),
    /// A VM (and its node) was added, by `addVm` or a scale-out.
    NodeAdded {
        /// Node name.
        node: String,
    },
    /// A node's VM was deleted in ARM (scale-in or `deleteVm`): its Node may be deleted.
    VmDeleted {
        /// Node name.
        node: String,
    },
    /// A VM's power state changed.
    PowerState {
        /// Node name.
        node: String,
        /// `running`, `stopped` or `deallocated`.
        state: String,
    },
    /// A kubelet stopped posting status (its Node goes NotReady).
    KubeletStopped {
        /// Node name.
        node: String,
    },
    /// A kubelet started again.
    KubeletStarted {
        /// Node name.
        node: String,
    },
    /// A kubelet restarted with another `--cloud-provider` (`azure` or `external`).
    KubeletFlipped {
        /// Node name.
        node: String,
        /// New mode.
        mode: String,
    },
    /// A supervised process started (name as in the roster).
    ProcessStarted {
        /// Process name.
        name: String,
    },
    /// A supervised process was stopped on purpose (SIGTERM).
    ProcessStopped {
        /// Process name.
        name: String,
    },
    /// A supervised process was SIGKILLed by a process fault.
    ProcessKilled {
        /// Process name.
        name: String,
    },
    /// The embedded API server restarted.
    ApiServerRestarted,
    /// Fault rules were installed in the fake.
    FaultsInstalled {
        /// How many rules.
        rules: usize,
    },
    /// Fault rules were cleared.
    FaultsCleared,
    /// A snapshot was taken.
    Snapshot {
        /// Its label (`baseline`, `switched`, `final`, `rollback`).
        label: String,
    },
}

/// A mark and its time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Mark {
    /// Unix epoch milliseconds.
    pub at_ms: i64,
    /// What happened.
    #[serde(flatten)]
    pub kind: MarkKind,
}

/// The marks of one run, shared by the runner's tasks (cloning shares the list).
#[derive(Debug, Clone, Default)]
pub struct RunRecord {
    marks: Arc<Mutex<Vec<Mark>>>,
}

impl RunRecord {
    /// An empty record.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records `kind` now.
    pub fn mark(&self, kind: MarkKind) {
        self.mark_at(now_ms(), kind);
    }

    /// Records `kind` at `at_ms`.
    pub fn mark_at(&self, at_ms: i64, kind: MarkKind) {
        if let Ok(mut marks) = self.marks.lock() {
            marks.push(Mark { at_ms, kind });
        }
    }

    /// Every mark so far, in time order.
    pub fn marks(&self) -> Vec<Mark> {
        let mut marks = self.marks.lock().map(|m| m.clone()).unwrap_or_default();
        marks.sort_by_key(|m| m.at_ms);
        marks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_come_back_in_time_order_and_serialize_flat() {
        let record = RunRecord::new();
        let clone = record.clone();
        record.mark_at(20, MarkKind::SwitchEnded);
        clone.mark_at(
            10,
            MarkKind::ServiceCreated(ObjectRef {
                namespace: "default".into(),
                name: "web".into(),
            }),
        );
        let marks = record.marks();
        assert_eq!(marks[0].at_ms, 10);
        let json = serde_json::to_value(&marks).unwrap();
        assert_eq!(
            json,
            serde_json::json!([
                {"atMs": 10, "kind": "serviceCreated", "namespace": "default", "name": "web"},
                {"atMs": 20, "kind": "switchEnded"}
            ])
        );
    }
}
