//! Which manager processes run during a parity run, what cloud loops each is configured for and
//! which Lease governs each loop: the switch registers them, the sampler copies the roster into
//! every sample, and `single-writer` decides from it (with the Lease holders and the ARM journal)
//! whether two managers ever ran the same cloud loop.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use crate::cluster::Component;
use crate::record::now_ms;

/// The kind of manager a process is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ManagerKind {
    /// The in-tree kube-controller-manager (the harness's stand-in process).
    KubeControllerManager,
    /// The out-of-tree cloud-controller-manager under test.
    CloudControllerManager,
    /// A cloud-node-manager (one per node).
    CloudNodeManager,
}

impl ManagerKind {
    /// The Entra app component whose client id marks this manager's ARM calls in the journal.
    pub fn component(self) -> Component {
        match self {
            ManagerKind::KubeControllerManager => Component::InTree,
            ManagerKind::CloudControllerManager => Component::CloudControllerManager,
            ManagerKind::CloudNodeManager => Component::CloudNodeManager,
        }
    }
}

/// One supervised manager process.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ManagedProcess {
    /// Supervisor name (`kube-controller-manager-0`, `cloud-controller-manager-1`,
    /// `cloud-node-manager-node-0`); also its log file's stem.
    pub name: String,
    /// Kind of manager.
    pub kind: ManagerKind,
    /// Cloud loops it is configured to run (canonical controller names of `ccm_names::controllers`),
    /// each with the Lease (`kube-system/<name>`) that must be held for it to run; a loop with no
    /// lease (`""`) runs whenever the process does (leader election off, or the cloud-node-manager).
    pub cloud_loops: BTreeMap<String, String>,
    /// Start, Unix epoch milliseconds.
    pub started_ms: i64,
    /// Stop or kill time; `None` while it runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_ms: Option<i64>,
    /// The host name it ran with; its leader-election identity is `<hostname>_<uuid>`.
    /// Empty in artifacts written before host names were kept; it then matches no holder.
    #[serde(default)]
    pub hostname: String,
    /// Its pid while it runs (not kept in artifacts).
    #[serde(skip)]
    pub pid: Option<u32>,
    /// Its last resource reading while it ran (peak RSS and CPU time over its life).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<crate::supervisor::usage::Usage>,
}

impl ManagedProcess {
    /// True when the Lease holder identity `holder` is this process's (by its host name).
    pub fn holds(&self, holder: &str) -> bool {
        identity_of(holder, &self.hostname)
    }

    /// True when the process was running at `at_ms`.
    pub fn alive_at(&self, at_ms: i64) -> bool {
        self.started_ms <= at_ms && self.stopped_ms.is_none_or(|stop| at_ms < stop)
    }
}

/// True when the leader-election identity `holder` belongs to a process on host `hostname`:
/// client-go's (and every Go manager's) identity is `<hostname>_<uuid>`; a bare host name
/// counts too.
pub fn identity_of(holder: &str, hostname: &str) -> bool {
    !hostname.is_empty()
        && holder
            .strip_prefix(hostname)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('_'))
}

/// The processes of one run, shared by the switch (writer) and the sampler (reader).
#[derive(Debug, Clone, Default)]
pub struct Roster {
    processes: Arc<Mutex<Vec<ManagedProcess>>>,
}

impl Roster {
    /// An empty roster.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a process that has just started.
    pub fn started(&self, process: ManagedProcess) {
        if let Ok(mut list) = self.processes.lock() {
            list.push(process);
        }
    }

    /// Marks the running process called `name` stopped now.
    pub fn stopped(&self, name: &str) {
        let now = now_ms();
        if let Ok(mut list) = self.processes.lock() {
            for p in list
                .iter_mut()
                .filter(|p| p.name == name && p.stopped_ms.is_none())
            {
                p.stopped_ms = Some(now);
            }
        }
    }

    /// Reads the resources of every running process with a pid (the sampler calls it each tick,
    /// so a process's figures are at most one tick older than its end).
    pub fn read_usage(&self) {
        if let Ok(mut list) = self.processes.lock() {
            for p in list.iter_mut().filter(|p| p.stopped_ms.is_none()) {
                if let Some(usage) = p.pid.and_then(crate::supervisor::usage::read) {
                    p.usage = Some(usage);
                }
            }
        }
    }

    /// Records that the running process `name` runs the loops it was configured to run under
    /// Lease `from` under Lease `to` instead (a CCM build seen ignoring the migration Lease runs
    /// them under its own); `single-writer` reads every sample of the process this way.
    pub fn reassign_lease(&self, name: &str, from: &str, to: &str) {
        if let Ok(mut list) = self.processes.lock() {
            for p in list
                .iter_mut()
                .filter(|p| p.name == name && p.stopped_ms.is_none())
            {
                for lease in p.cloud_loops.values_mut().filter(|l| *l == from) {
                    *lease = to.to_owned();
                }
            }
        }
    }

    /// Every process so far (a restarted process appears once per run of it).
    pub fn processes(&self) -> Vec<ManagedProcess> {
        self.processes.lock().map(|l| l.clone()).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stopped_process_is_alive_only_inside_its_window() {
        let roster = Roster::new();
        roster.started(ManagedProcess {
            name: "kube-controller-manager-0".into(),
            kind: ManagerKind::KubeControllerManager,
            cloud_loops: BTreeMap::from([(
                "service-lb-controller".into(),
                "kube-controller-manager".into(),
            )]),
            started_ms: 100,
            stopped_ms: None,
            hostname: "kube-controller-manager-0".into(),
            pid: Some(std::process::id()),
            usage: None,
        });
        roster.read_usage();
        assert!(
            roster.processes()[0]
                .usage
                .is_some_and(|u| u.peak_rss_kib > 0)
        );
        roster.stopped("kube-controller-manager-0");
        let p = &roster.processes()[0];
        assert!(p.alive_at(100));
        assert!(!p.alive_at(99));
        assert!(!p.alive_at(p.stopped_ms.unwrap()));
        assert!(p.holds("kube-controller-manager-0_0f1e2d3c-aaaa-bbbb-cccc-000011112222"));
        assert!(p.holds("kube-controller-manager-0"));
        assert!(!p.holds("kube-controller-manager-01_x"));
        assert!(!p.holds("other_kube-controller-manager-0"));
        assert!(!identity_of("anything", ""));
        assert_eq!(p.kind.component(), Component::InTree);
    }
}
