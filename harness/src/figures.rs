//! What one scenario cost, per build under test: each manager's peak resident set and CPU time
//! (read from `/proc` while it ran, `crate::supervisor::usage`) and the ARM calls and writes the
//! out-of-tree managers (the CCM's and CNMs' Entra apps) sent, so two builds of the CCM can be
//! compared scenario by scenario (`harness report --compare`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::cluster::Component;
use crate::roster::{ManagedProcess, ManagerKind};
use crate::snapshot::JournalEntry;

/// One manager's figures (a restarted manager: the highest peak, the CPU of every run).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ManagerFigures {
    /// Roster name.
    pub name: String,
    /// Kind.
    pub kind: ManagerKind,
    /// Peak RSS, KiB.
    pub peak_rss_kib: u64,
    /// CPU time, milliseconds.
    pub cpu_ms: u64,
}

/// A scenario's figures.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScenarioFigures {
    /// Every manager with a reading, by name.
    pub managers: Vec<ManagerFigures>,
    /// ARM requests of the CCM and CNMs.
    pub arm_calls: u64,
    /// Of those, writes (PUT, PATCH, DELETE, POST).
    pub arm_writes: u64,
}

impl ScenarioFigures {
    /// The highest peak RSS (KiB) and the total CPU (ms) of the managers of `kind`.
    pub fn of_kind(&self, kind: ManagerKind) -> Option<(u64, u64)> {
        let of: Vec<&ManagerFigures> = self.managers.iter().filter(|m| m.kind == kind).collect();
        (!of.is_empty()).then(|| {
            (
                of.iter().map(|m| m.peak_rss_kib).max().unwrap_or(0),
                of.iter().map(|m| m.cpu_ms).sum(),
            )
        })
    }
}

/// The figures of a run from its roster and its last journal (pure).
pub fn figures(roster: &[ManagedProcess], journal: &[JournalEntry]) -> ScenarioFigures {
    let mut by_name: BTreeMap<&str, ManagerFigures> = BTreeMap::new();
    for p in roster {
        let Some(usage) = p.usage else { continue };
        let entry = by_name.entry(&p.name).or_insert_with(|| ManagerFigures {
            name: p.name.clone(),
            kind: p.kind,
            peak_rss_kib: 0,
            cpu_ms: 0,
        });
        entry.peak_rss_kib = entry.peak_rss_kib.max(usage.peak_rss_kib);
        entry.cpu_ms += usage.cpu_ms;
    }
    let ours = [
        Component::CloudControllerManager.app().client_id,
        Component::CloudNodeManager.app().client_id,
    ];
    let calls: Vec<&JournalEntry> = journal
        .iter()
        .filter(|e| e.surface == azure_fakes::journal::Surface::Arm)
        .filter(|e| e.client_id.as_ref().is_some_and(|c| ours.contains(c)))
        .collect();
    let writes = calls
        .iter()
        .filter(|e| matches!(e.method.as_str(), "PUT" | "PATCH" | "DELETE" | "POST"))
        .count();
    ScenarioFigures {
        managers: by_name.into_values().collect(),
        arm_calls: calls.len() as u64,
        arm_writes: writes as u64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::supervisor::usage::Usage;

    fn process(name: &str, kind: ManagerKind, rss: u64, cpu: u64) -> ManagedProcess {
        ManagedProcess {
            name: name.into(),
            kind,
            cloud_loops: BTreeMap::new(),
            started_ms: 0,
            stopped_ms: None,
            hostname: name.into(),
            pid: None,
            usage: Some(Usage {
                peak_rss_kib: rss,
                cpu_ms: cpu,
            }),
        }
    }

    fn entry(method: &str, client: &str) -> JournalEntry {
        serde_json::from_value(serde_json::json!({
            "seq": 1, "time": "2026-01-01T00:00:00Z", "surface": "arm",
            "operation": "x", "method": method, "path": "/x", "status": 200,
            "durationMs": 1.0, "throttled": false, "clientId": client
        }))
        .unwrap()
    }

    #[test]
    fn restarts_fold_and_only_out_of_tree_calls_count() {
        let ccm = ManagerKind::CloudControllerManager;
        let roster = [
            process("cloud-controller-manager-0", ccm, 30_000, 1_000),
            process("cloud-controller-manager-0", ccm, 20_000, 500),
            process(
                "cloud-node-manager-n0",
                ManagerKind::CloudNodeManager,
                9_000,
                100,
            ),
        ];
        let ccm_app = Component::CloudControllerManager.app().client_id;
        let in_tree = Component::InTree.app().client_id;
        let journal = [
            entry("GET", &ccm_app),
            entry("PUT", &ccm_app),
            entry("PUT", &in_tree),
        ];
        let f = figures(&roster, &journal);
        assert_eq!(f.managers.len(), 2);
        assert_eq!(f.of_kind(ccm), Some((30_000, 1_500)));
        assert_eq!((f.arm_calls, f.arm_writes), (2, 1));
        assert_eq!(f.of_kind(ManagerKind::KubeControllerManager), None);
    }
}
