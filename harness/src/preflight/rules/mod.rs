//! The preflight decisions: pure functions from what was read (the target manifests, Nodes,
//! Services, ARM, the CCM's own answers for each node and its load balancer dry run, workloads) to
//! [`Finding`]s. No I/O here, so every rule is tested on hand-built facts.

mod control_plane;
mod labels;
mod load_balancers;
mod nodes;
mod simulate;

#[cfg(test)]
mod tests;

pub(crate) use super::finding::Severity as S;
use super::finding::{Finding, PlannedWrite};
use super::target::Target;
use crate::snapshot::{ArmResources, NodeState, ServiceState};

pub use labels::{BETA_LABELS, BetaLabelUse, beta_label_uses};

/// What the CCM's `InstanceExists`/`InstanceMetadata` answered for a node under the target config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    /// The instance exists; its providerID as the CCM computes it.
    Exists {
        /// providerID from InstanceMetadata (`None` when metadata failed).
        provider_id: Option<String>,
    },
    /// `InstanceExists` answered false.
    Missing,
    /// The lookup failed.
    Failed(String),
}

/// One node and its resolution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeResolution {
    /// Node name.
    pub node: String,
    /// Its current `spec.providerID`.
    pub provider_id: Option<String>,
    /// The CCM's answer.
    pub resolution: Resolution,
}

/// The load balancer dry run of one Service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DryRun {
    /// `namespace/name`.
    pub service: String,
    /// Each write in order, or why the plan failed.
    pub writes: Result<Vec<Planned>, String>,
    /// What the plan could not spell out as writes.
    pub notes: Vec<String>,
}

/// One ARM write of a dry run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Planned {
    /// `PUT` or `DELETE`.
    pub method: String,
    /// ARM id.
    pub resource: String,
    /// Body of a PUT.
    pub body: Option<serde_json::Value>,
}

/// The target settings findings quote.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TargetSettings {
    /// `vmType` of the target azure.json.
    pub vm_type: String,
    /// `resourceGroup` of the target azure.json.
    pub resource_group: String,
    /// `loadBalancerName`, when set.
    pub load_balancer_name: Option<String>,
}

/// Everything preflight decides from.
#[derive(Debug, Clone, Copy)]
pub struct Facts<'a> {
    /// The target manifests.
    pub target: &'a Target,
    /// Target config settings quoted in messages.
    pub settings: &'a TargetSettings,
    /// Nodes.
    pub nodes: &'a [NodeState],
    /// LoadBalancer Services.
    pub services: &'a [ServiceState],
    /// ARM resources of the cluster's groups.
    pub arm: &'a ArmResources,
    /// Each node's resolution under the target config.
    pub resolutions: &'a [NodeResolution],
    /// Each Service's dry run under the target config.
    pub dry_runs: &'a [DryRun],
    /// Workloads and PVs using beta topology labels.
    pub beta_uses: &'a [BetaLabelUse],
    /// Lint findings of the target manifests for the cluster's version, as text.
    pub lint: &'a [(String, String)],
    /// Kubernetes minor the allow-list is taken for.
    pub minor: u32,
    /// The live kube-controller-managers (mirror Pods in kube-system), when the control plane runs
    /// as Pods.
    pub live_kcm: &'a [super::target::ManagerFlags],
}

/// Every finding, most severe first, then by pitfall and object.
pub fn findings(facts: &Facts<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    out.extend(load_balancers::cluster_name(facts));
    out.extend(load_balancers::dry_runs(facts, &simulate::judge(facts)));
    out.extend(nodes::resolutions(facts));
    out.extend(labels::findings(facts.beta_uses));
    out.extend(control_plane::ipam(facts));
    out.extend(control_plane::leader_migration(facts.target));
    out.extend(control_plane::lint(facts));
    super::finding::sort_findings(&mut out);
    out
}

/// The dry runs' writes, in Service order then write order, each with its changes and whether
/// the allow-list accepts them all.
pub fn planned_writes(facts: &Facts<'_>) -> Vec<PlannedWrite> {
    let judged = simulate::judge(facts);
    let mut judged = judged.into_iter();
    let mut out = Vec::new();
    for d in facts.dry_runs {
        let count = d.writes.as_ref().map(Vec::len).unwrap_or(0);
        for (w, changes) in judged.by_ref().take(count) {
            out.push(PlannedWrite {
                service: d.service.clone(),
                method: w.method,
                allowed: allowed(&changes),
                changes: changes.iter().map(ToString::to_string).collect(),
                resource: w.resource,
            });
        }
    }
    out
}

/// True when every change is allow-listed (a DELETE never is: it is judged as a removal).
fn allowed(changes: &[crate::snapshot::DiffEntry]) -> bool {
    changes
        .iter()
        .all(|c| c.class != crate::snapshot::DiffClass::Forbidden)
}

/// Last path segment of an ARM id.
fn last_segment(id: &str) -> &str {
    id.rsplit('/').next().unwrap_or(id)
}
