//! Snapshots of one parity run (migration.md §3 "S", §7): Kubernetes objects (Nodes, LoadBalancer
//! Services, Events, kube-system Leases), the ARM resources the cloud loops own and the fake's ARM
//! journal, captured per phase (`baseline`, `switched`, `final`, `rollback`) with every list in a
//! stable order so two snapshots diff without noise; the ARM diff with its versioned allow-list;
//! and the sampler that records lease holders, processes, node/service state and per-Service
//! frontend health every 250 ms while the switch runs.
//!
//! Sources: the snapshot set and the diff classes are migration.md §3 and §7; resource names,
//! tags and NSG rule names are anchor-ccm.md §4.3, §4.7, §4.8 and §5.
//!
//! Inferred, not verified:
//! - [infer] the consolidated NSG rule (`k8s-azure-lb_allow_*`) of the CCM replaces the in-tree
//!   per-service rules on its first reconcile and the legacy rules are removed then (anchor §4.7
//!   names both schemes but not the transition).
//! - [infer] a legacy tag key (`service`, `kubernetes-cluster-name`, `kubernetes-dns-label-service`)
//!   may be dropped when its `k8s-azure-*` successor is written (anchor §4.8 says the legacy keys
//!   are still recognised, not whether they are kept).

mod allow;
mod arm;
mod capture;
mod diff;
mod kube;
mod sampler;

use serde::{Deserialize, Serialize};

pub use allow::{AllowEntry, AllowList, AllowRule, allow_list, minor_of};
pub use arm::{
    ArmResources, BackendPool, Frontend, IpConfiguration, LbRule, LoadBalancer, Machine, Probe,
    PublicIp, Route, RouteTable, SecurityGroup, SecurityRule,
};
pub use azure_fakes::journal::JournalEntry;
pub use capture::{SnapshotError, capture};
pub use diff::{ArmDiff, DiffClass, DiffEntry, diff};
pub use kube::{
    AddressState, ConditionState, EventState, LeaseState, NodeState, ServicePortState,
    ServiceState, TaintState, base_name,
};
pub use sampler::{
    FrontendSample, LeaseSample, NodeSample, ProcessSample, Sample, Sampler, ServiceSample,
    frontend_health,
};

/// Everything one phase of a run left behind, as plain data (written as `snapshot-<label>.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    /// `baseline`, `switched`, `final` or `rollback`.
    pub label: String,
    /// When it was taken, Unix epoch milliseconds.
    pub taken_ms: i64,
    /// Nodes, by name.
    pub nodes: Vec<NodeState>,
    /// LoadBalancer Services, by namespace/name.
    pub services: Vec<ServiceState>,
    /// Events, by involved object, reason, message, name.
    pub events: Vec<EventState>,
    /// kube-system Leases, by name.
    pub leases: Vec<LeaseState>,
    /// ARM resources.
    pub arm: ArmResources,
    /// The fake's journal, by sequence number.
    pub journal: Vec<JournalEntry>,
}

impl Snapshot {
    /// Sorts every list by its stable key (capture does it; tests that build snapshots by hand
    /// call it too).
    pub fn sort(&mut self) {
        self.nodes.sort_by(|a, b| a.name.cmp(&b.name));
        for node in &mut self.nodes {
            node.taints.sort();
            node.conditions.sort_by(|a, b| a.type_.cmp(&b.type_));
        }
        self.services
            .sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
        for service in &mut self.services {
            service.finalizers.sort();
        }
        self.events.sort();
        self.leases.sort_by(|a, b| a.name.cmp(&b.name));
        self.arm.sort();
        self.journal.sort_by_key(|e| e.seq);
    }

    /// The Node called `name`.
    pub fn node(&self, name: &str) -> Option<&NodeState> {
        self.nodes.iter().find(|n| n.name == name)
    }

    /// The Service `namespace/name`.
    pub fn service(&self, key: &str) -> Option<&ServiceState> {
        self.services.iter().find(|s| s.key() == key)
    }

    /// The Lease called `name`.
    pub fn lease(&self, name: &str) -> Option<&LeaseState> {
        self.leases.iter().find(|l| l.name == name)
    }
}

#[cfg(test)]
mod diff_tests;
