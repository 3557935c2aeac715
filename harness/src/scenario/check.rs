//! The parity checks a scenario can run (named after the pitfalls of migration.md §3) and which of them
//! take a budget.

use serde::{Deserialize, Serialize};
use std::fmt;

/// One parity check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CheckName {
    /// Every Node keeps a byte-identical `spec.providerID` (P5).
    ProviderIdStable,
    /// No Node is recreated: UIDs identical (P4).
    NodeUidStable,
    /// Cloud-owned labels equal per node (P6).
    LabelsEqual,
    /// `status.addresses` equal per node (P7).
    AddressesEqual,
    /// No node keeps the uninitialized taint (P8).
    TaintsCleared,
    /// `spec.podCIDR(s)` unchanged and unique (P12).
    PodCidrStable,
    /// No Ready (or merely NotReady) node is deleted (P4).
    NoNodeDeleted,
    /// Every LoadBalancer Service keeps its ingress IP (P1, P9).
    IngressIpStable,
    /// Public IP resource ids unchanged (P1).
    PipIdStable,
    /// ARM load balancer diff within the allow-list (P10).
    NoLbRecreate,
    /// Every LoadBalancer Service carries the cleanup finalizer (P9).
    FinalizerPresent,
    /// Never two managers running a cloud loop (P2).
    SingleWriter,
    /// After deletes, no tagged PIP, frontend, rule, probe, NSG rule or route left.
    NoOrphans,
    /// Route table entries unchanged (P11).
    RoutesStable,
    /// ARM calls per node and per Service within budget (P13).
    ArmCallBudget,
    /// p99 Service time to ingress within budget (P3).
    TimeToIngress,
    /// p99 uninitialized-taint removal delay within budget (P3).
    TaintRemovalDelay,
    /// Per-Service data-path downtime within budget.
    Downtime,
}

impl CheckName {
    /// Every check, in report order (the default set).
    pub const ALL: [CheckName; 18] = [
        Self::ProviderIdStable,
        Self::NodeUidStable,
        Self::LabelsEqual,
        Self::AddressesEqual,
        Self::TaintsCleared,
        Self::PodCidrStable,
        Self::NoNodeDeleted,
        Self::IngressIpStable,
        Self::PipIdStable,
        Self::NoLbRecreate,
        Self::FinalizerPresent,
        Self::SingleWriter,
        Self::NoOrphans,
        Self::RoutesStable,
        Self::ArmCallBudget,
        Self::TimeToIngress,
        Self::TaintRemovalDelay,
        Self::Downtime,
    ];

    /// The kebab-case name used in files, reports and JUnit.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ProviderIdStable => "provider-id-stable",
            Self::NodeUidStable => "node-uid-stable",
            Self::LabelsEqual => "labels-equal",
            Self::AddressesEqual => "addresses-equal",
            Self::TaintsCleared => "taints-cleared",
            Self::PodCidrStable => "pod-cidr-stable",
            Self::NoNodeDeleted => "no-node-deleted",
            Self::IngressIpStable => "ingress-ip-stable",
            Self::PipIdStable => "pip-id-stable",
            Self::NoLbRecreate => "no-lb-recreate",
            Self::FinalizerPresent => "finalizer-present",
            Self::SingleWriter => "single-writer",
            Self::NoOrphans => "no-orphans",
            Self::RoutesStable => "routes-stable",
            Self::ArmCallBudget => "arm-call-budget",
            Self::TimeToIngress => "time-to-ingress",
            Self::TaintRemovalDelay => "taint-removal-delay",
            Self::Downtime => "downtime",
        }
    }

    /// Whether the check compares against a budget (the others are pass/fail invariants).
    pub fn takes_budget(self) -> bool {
        matches!(
            self,
            Self::ArmCallBudget | Self::TimeToIngress | Self::TaintRemovalDelay | Self::Downtime
        )
    }
}

impl fmt::Display for CheckName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_serde() {
        for check in CheckName::ALL {
            let parsed: CheckName = serde_saphyr::from_str(check.as_str()).unwrap();
            assert_eq!(parsed, check);
        }
    }

    #[test]
    fn an_unknown_name_lists_the_accepted_ones() {
        let err = serde_saphyr::from_str::<CheckName>("provider-id").unwrap_err();
        let text = err.to_string();
        assert!(text.contains("provider-id-stable"), "{text}");
        assert!(text.contains("taint-removal-delay"), "{text}");
    }
}
