//! What the scenario changed on purpose, read from the run's marks: the checks excuse these
//! (a deleted Service's ingress may go, a deleted VM's Node may go) and measure from them.

use std::collections::{BTreeMap, BTreeSet};

use crate::record::{Mark, MarkKind};

/// The scenario's deliberate changes and the switch window.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Intent {
    /// Services created by the workload (`ns/name` → first creation time).
    pub services_created: BTreeMap<String, i64>,
    /// Services deleted by the workload (`ns/name` → deletion request time).
    pub services_deleted: BTreeMap<String, i64>,
    /// Nodes whose VM the scenario deleted.
    pub vms_deleted: BTreeSet<String>,
    /// Nodes the scenario added (→ time).
    pub nodes_added: BTreeMap<String, i64>,
    /// Nodes whose kubelet was stopped at some point.
    pub kubelets_stopped: BTreeSet<String>,
    /// `SwitchStarted`.
    pub switch_started: Option<i64>,
    /// `SwitchEnded`.
    pub switch_ended: Option<i64>,
    /// End of the `during` phase.
    pub during_ended: Option<i64>,
    /// Rollback windows (start, end or `None` while it ran to the end of the run).
    pub rollbacks: Vec<(i64, Option<i64>)>,
}

impl Intent {
    /// Reads `marks` (any order).
    pub fn from_marks(marks: &[Mark]) -> Self {
        let mut marks: Vec<&Mark> = marks.iter().collect();
        marks.sort_by_key(|m| m.at_ms);
        let mut intent = Intent::default();
        for mark in marks {
            let at = mark.at_ms;
            match &mark.kind {
                MarkKind::ServiceCreated(o) => {
                    intent.services_created.entry(o.to_string()).or_insert(at);
                }
                MarkKind::ServiceDeleted(o) => {
                    intent.services_deleted.entry(o.to_string()).or_insert(at);
                }
                MarkKind::VmDeleted { node } => {
                    intent.vms_deleted.insert(node.clone());
                }
                MarkKind::NodeAdded { node } => {
                    intent.nodes_added.entry(node.clone()).or_insert(at);
                }
                MarkKind::KubeletStopped { node } => {
                    intent.kubelets_stopped.insert(node.clone());
                }
                MarkKind::SwitchStarted => {
                    intent.switch_started = intent.switch_started.or(Some(at))
                }
                MarkKind::SwitchEnded => intent.switch_ended = Some(at),
                MarkKind::PhaseEnded { phase, .. } if phase == "during" => {
                    intent.during_ended = Some(at);
                }
                MarkKind::RollbackStarted => intent.rollbacks.push((at, None)),
                MarkKind::RollbackEnded => {
                    if let Some(last) = intent.rollbacks.last_mut() {
                        last.1.get_or_insert(at);
                    }
                }
                _ => {}
            }
        }
        intent
    }

    /// A time as a reader of a reason wants it: relative to the start of the switch
    /// (`"3.2 s after the switch started"`), or epoch milliseconds when there was no switch.
    pub fn when(&self, at_ms: i64) -> String {
        match self.switch_started {
            Some(start) if at_ms >= start => {
                format!(
                    "{:.1} s after the switch started",
                    (at_ms - start) as f64 / 1000.0
                )
            }
            Some(start) => {
                format!(
                    "{:.1} s before the switch started",
                    (start - at_ms) as f64 / 1000.0
                )
            }
            None => format!("at {at_ms} ms"),
        }
    }

    /// True when the scenario deleted the Service `key` (`ns/name`).
    pub fn service_deleted(&self, key: &str) -> bool {
        self.services_deleted.contains_key(key)
    }

    /// True when the scenario deleted the VM of node `name`.
    pub fn vm_deleted(&self, name: &str) -> bool {
        self.vms_deleted.contains(name)
    }

    /// True when `at_ms` falls in a rollback window.
    pub fn in_rollback(&self, at_ms: i64) -> bool {
        self.rollbacks
            .iter()
            .any(|(start, end)| *start <= at_ms && end.is_none_or(|e| at_ms <= e))
    }

    /// The switch window: `SwitchStarted` to the end of the `during` phase (or `SwitchEnded`).
    pub fn switch_window(&self) -> Option<(i64, i64)> {
        let start = self.switch_started?;
        let end = self.during_ended.or(self.switch_ended)?;
        Some((start, end.max(start)))
    }
}
