//! Least-privilege RBAC derived from a table of the API calls each controller really makes.
//! Adding a call means adding a row to [`API_CALLS`], with the reason and the source; the
//! ClusterRole/Role are computed.

mod calls;

use std::collections::BTreeMap;

use azure_ccm::names::controllers;
use k8s_openapi::api::rbac::v1::PolicyRule;

use crate::options::{NodeIpam, Options};

pub use calls::API_CALLS;

/// Which code path makes a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Caller {
    /// A CCM controller, by canonical name.
    Controller(&'static str),
    /// Shared informers of the CCM (list/watch feeding every controller).
    Informers,
    /// Event recorders of the CCM and the CNM.
    EventRecorder,
    /// Main leader election of the CCM.
    LeaderElection,
    /// Leader migration lease (only with `--enable-leader-migration`).
    LeaderMigration,
    /// cloud-node-manager.
    CloudNodeManager,
}

/// Where the permission must hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scope {
    /// Cluster-wide (ClusterRole).
    Cluster,
    /// Only in kube-system (Role).
    KubeSystem,
}

/// One API call pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApiCall {
    /// Who makes it.
    pub caller: Caller,
    /// API group (`""` = core).
    pub group: &'static str,
    /// Resource (or `resource/subresource`).
    pub resource: &'static str,
    /// Verbs.
    pub verbs: &'static [&'static str],
    /// Restrict to these object names (empty = any).
    pub names: &'static [&'static str],
    /// Namespace scope.
    pub scope: Scope,
    /// Why the call is made.
    pub why: &'static str,
    /// Code or reference the row was checked against.
    pub source: &'static str,
}

/// Rules for a set of callers, merged per (scope, group, resource, names) with sorted verbs.
pub fn rules_for(callers: &[Caller], scope: Scope) -> Vec<PolicyRule> {
    let mut merged: BTreeMap<(&str, &str, Vec<&str>), Vec<&str>> = BTreeMap::new();
    for call in API_CALLS
        .iter()
        .filter(|c| c.scope == scope && callers.contains(&c.caller))
    {
        let verbs = merged
            .entry((call.group, call.resource, call.names.to_vec()))
            .or_default();
        verbs.extend_from_slice(call.verbs);
    }
    merged
        .into_iter()
        .map(|((group, resource, names), mut verbs)| {
            verbs.sort_unstable();
            verbs.dedup();
            PolicyRule {
                api_groups: Some(vec![group.to_string()]),
                resources: Some(vec![resource.to_string()]),
                resource_names: if names.is_empty() {
                    None
                } else {
                    Some(names.iter().map(|n| n.to_string()).collect())
                },
                verbs: verbs.into_iter().map(str::to_string).collect(),
                non_resource_urls: None,
            }
        })
        .collect()
}

/// Callers active in the CCM given its configuration (`--controllers=*,-cloud-node`): the
/// route controller with routes, node-ipam with `--allocate-node-cidrs=true`.
pub fn ccm_callers(o: &Options) -> Vec<Caller> {
    let mut callers = vec![
        Caller::Informers,
        Caller::EventRecorder,
        Caller::LeaderElection,
        Caller::Controller(controllers::SERVICE_LB),
        Caller::Controller(controllers::CLOUD_NODE_LIFECYCLE),
    ];
    if o.configure_cloud_routes {
        callers.push(Caller::Controller(controllers::NODE_ROUTE));
    }
    if o.allocates(NodeIpam::CloudControllerManager) {
        callers.push(Caller::Controller(controllers::NODE_IPAM));
    }
    if o.leader_migration {
        callers.push(Caller::LeaderMigration);
    }
    callers
}

/// Callers of the cloud-node-manager.
pub const CNM_CALLERS: &[Caller] = &[Caller::CloudNodeManager, Caller::EventRecorder];

#[cfg(test)]
mod tests;
