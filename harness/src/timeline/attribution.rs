//! Which process of the run made an ARM call: the Entra client id names the component (in-tree,
//! CCM, CNM); among that component's processes, the one whose identity held the component's
//! Lease at the nearest earlier sample, else the only one alive.

use std::collections::BTreeMap;

use crate::roster::{ManagedProcess, ManagerKind};
use crate::snapshot::Sample;

/// Attributes calls to lanes.
pub struct Attribution<'a> {
    roster: &'a [ManagedProcess],
    samples: &'a [Sample],
    kinds: BTreeMap<String, ManagerKind>,
}

impl<'a> Attribution<'a> {
    /// Over the run's processes and samples (samples in time order).
    pub fn new(roster: &'a [ManagedProcess], samples: &'a [Sample]) -> Self {
        let kinds = [
            ManagerKind::KubeControllerManager,
            ManagerKind::CloudControllerManager,
            ManagerKind::CloudNodeManager,
        ]
        .into_iter()
        .map(|k| (k.component().app().client_id, k))
        .collect();
        Self {
            roster,
            samples,
            kinds,
        }
    }

    /// The lane (process name, or `<component> (unattributed)`) of a call by `client_id` at
    /// `at_ms` (Unix ms); `None` for a caller that is no manager.
    pub fn lane(&self, client_id: Option<&str>, at_ms: i64) -> Option<String> {
        let kind = *self.kinds.get(client_id?)?;
        let alive: Vec<&ManagedProcess> = self
            .roster
            .iter()
            .filter(|p| p.kind == kind && p.alive_at(at_ms))
            .collect();
        if kind == ManagerKind::CloudNodeManager {
            return Some(super::build::CNM_LANE.to_owned());
        }
        let holders: Vec<&str> = self
            .sample_before(at_ms)
            .and_then(|s| s.leases.as_ref())
            .map(|leases| leases.iter().map(|l| l.holder.as_str()).collect())
            .unwrap_or_default();
        let holder = alive
            .iter()
            .find(|p| !p.cloud_loops.is_empty() && holders.iter().any(|h| p.holds(h)));
        let with_loops: Vec<&&ManagedProcess> =
            alive.iter().filter(|p| !p.cloud_loops.is_empty()).collect();
        match (holder, with_loops.as_slice()) {
            (Some(p), _) => Some(p.name.clone()),
            (None, [one]) => Some(one.name.clone()),
            _ => Some(format!("{} (unattributed)", kind.component().as_str())),
        }
    }

    fn sample_before(&self, at_ms: i64) -> Option<&Sample> {
        let after = self.samples.partition_point(|s| s.at_ms <= at_ms);
        self.samples.get(after.checked_sub(1)?)
    }
}
