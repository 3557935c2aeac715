//! Least-privilege RBAC derived from a table of the API calls each controller really makes.
//! Adding a call means adding a row here, with the reason; the ClusterRole/Role are computed.

use std::collections::BTreeMap;

use azure_ccm::names::{controllers, leases};
use k8s_openapi::api::rbac::v1::PolicyRule;

/// Which code path makes a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Caller {
    /// A CCM controller, by canonical name.
    Controller(&'static str),
    /// Shared informers of the CCM (list/watch feeding every controller).
    Informers,
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
}

const CCM_LEASES: &[&str] = &[leases::CLOUD_CONTROLLER_MANAGER];
/// Events go through kube-runtime's recorder, which writes `events.k8s.io/v1` Events with
/// create and (for repeats) merge patch; it never uses the core/v1 Events API nor update.
const EVENTS_GROUP: &str = "events.k8s.io";
/// Verbs of that recorder.
const EVENT_VERBS: &[&str] = &["create", "patch"];
const MIGRATION_LEASE: &[&str] = &[leases::LEADER_MIGRATION];

/// Every call the CCM and the CNM make against the Kubernetes API.
pub static API_CALLS: &[ApiCall] = &[
    ApiCall {
        caller: Caller::Informers,
        group: "",
        resource: "nodes",
        verbs: &["get", "list", "watch"],
        names: &[],
        scope: Scope::Cluster,
        why: "node informer shared by the service, route and node-lifecycle controllers",
    },
    ApiCall {
        caller: Caller::Informers,
        group: "",
        resource: "services",
        verbs: &["get", "list", "watch"],
        names: &[],
        scope: Scope::Cluster,
        why: "service informer of the service controller (UpdateLoadBalancer re-reads from it)",
    },
    ApiCall {
        caller: Caller::Controller(controllers::SERVICE_LB),
        group: "",
        resource: "services",
        verbs: &["patch"],
        names: &[],
        scope: Scope::Cluster,
        why: "add/remove the load-balancer-cleanup finalizer",
    },
    ApiCall {
        caller: Caller::Controller(controllers::SERVICE_LB),
        group: "",
        resource: "services/status",
        verbs: &["patch"],
        names: &[],
        scope: Scope::Cluster,
        why: "write status.loadBalancer.ingress",
    },
    ApiCall {
        caller: Caller::Controller(controllers::SERVICE_LB),
        group: EVENTS_GROUP,
        resource: "events",
        verbs: EVENT_VERBS,
        names: &[],
        scope: Scope::Cluster,
        why: "EnsuringLoadBalancer/SyncLoadBalancerFailed... events in the Service namespace",
    },
    ApiCall {
        caller: Caller::Controller(controllers::SERVICE_LB),
        group: "coordination.k8s.io",
        resource: "leases",
        verbs: &["get", "update"],
        names: &[leases::AZURE_RESOURCE_LOCKER],
        scope: Scope::KubeSystem,
        why: "hold aks-managed-resource-locker around every LB reconcile",
    },
    ApiCall {
        caller: Caller::Controller(controllers::SERVICE_LB),
        group: "coordination.k8s.io",
        resource: "leases",
        verbs: &["create"],
        names: &[],
        scope: Scope::KubeSystem,
        why: "create aks-managed-resource-locker when missing (create cannot be name-restricted)",
    },
    ApiCall {
        caller: Caller::Controller(controllers::NODE_ROUTE),
        group: "",
        resource: "nodes/status",
        verbs: &["patch"],
        names: &[],
        scope: Scope::Cluster,
        why: "set the NetworkUnavailable condition (RouteCreated/NoRouteCreated)",
    },
    ApiCall {
        caller: Caller::Controller(controllers::NODE_ROUTE),
        group: EVENTS_GROUP,
        resource: "events",
        verbs: EVENT_VERBS,
        names: &[],
        scope: Scope::Cluster,
        why: "FailedToCreateRoute events",
    },
    ApiCall {
        caller: Caller::Controller(controllers::CLOUD_NODE_LIFECYCLE),
        group: "",
        resource: "nodes",
        verbs: &["delete"],
        names: &[],
        scope: Scope::Cluster,
        why: "delete NotReady Nodes whose VM no longer exists",
    },
    ApiCall {
        caller: Caller::Controller(controllers::CLOUD_NODE_LIFECYCLE),
        group: "",
        resource: "nodes",
        verbs: &["patch", "update"],
        names: &[],
        scope: Scope::Cluster,
        why: "add/remove the shutdown and out-of-service taints",
    },
    ApiCall {
        caller: Caller::Controller(controllers::CLOUD_NODE_LIFECYCLE),
        group: EVENTS_GROUP,
        resource: "events",
        verbs: EVENT_VERBS,
        names: &[],
        scope: Scope::Cluster,
        why: "DeletingNode/DeletingNodeFailed events",
    },
    ApiCall {
        caller: Caller::LeaderElection,
        group: "coordination.k8s.io",
        resource: "leases",
        verbs: &["get", "update"],
        names: CCM_LEASES,
        scope: Scope::KubeSystem,
        why: "renew the cloud-controller-manager lease",
    },
    ApiCall {
        caller: Caller::LeaderElection,
        group: "coordination.k8s.io",
        resource: "leases",
        verbs: &["create"],
        names: &[],
        scope: Scope::KubeSystem,
        why: "create the lease on first start",
    },
    ApiCall {
        caller: Caller::LeaderMigration,
        group: "coordination.k8s.io",
        resource: "leases",
        verbs: &["get", "update"],
        names: MIGRATION_LEASE,
        scope: Scope::KubeSystem,
        why: "campaign for cloud-provider-extraction-migration",
    },
    ApiCall {
        caller: Caller::LeaderMigration,
        group: "coordination.k8s.io",
        resource: "leases",
        verbs: &["create"],
        names: &[],
        scope: Scope::KubeSystem,
        why: "create the migration lease if KCM has not",
    },
    ApiCall {
        caller: Caller::CloudNodeManager,
        group: "",
        resource: "nodes",
        verbs: &["get", "list", "watch"],
        names: &[],
        scope: Scope::Cluster,
        why: "watch its own Node (field selector metadata.name)",
    },
    ApiCall {
        caller: Caller::CloudNodeManager,
        group: "",
        resource: "nodes",
        verbs: &["patch", "update"],
        names: &[],
        scope: Scope::Cluster,
        why: "set providerID and labels, remove the uninitialized taint",
    },
    ApiCall {
        caller: Caller::CloudNodeManager,
        group: "",
        resource: "nodes/status",
        verbs: &["patch"],
        names: &[],
        scope: Scope::Cluster,
        why: "write status.addresses and NetworkUnavailable (--wait-routes)",
    },
    ApiCall {
        caller: Caller::CloudNodeManager,
        group: EVENTS_GROUP,
        resource: "events",
        verbs: EVENT_VERBS,
        names: &[],
        scope: Scope::Cluster,
        why: "Synced events (source cloud-node-controller)",
    },
];

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

/// Callers active in the CCM given its configuration (`--controllers=*,-cloud-node`).
pub fn ccm_callers(routes: bool, leader_migration: bool) -> Vec<Caller> {
    let mut callers = vec![
        Caller::Informers,
        Caller::LeaderElection,
        Caller::Controller(controllers::SERVICE_LB),
        Caller::Controller(controllers::CLOUD_NODE_LIFECYCLE),
    ];
    if routes {
        callers.push(Caller::Controller(controllers::NODE_ROUTE));
    }
    if leader_migration {
        callers.push(Caller::LeaderMigration);
    }
    callers
}

#[cfg(test)]
mod tests {
    use super::*;

    fn has(rules: &[PolicyRule], resource: &str, verb: &str) -> bool {
        rules.iter().any(|r| {
            r.resources
                .as_deref()
                .unwrap_or_default()
                .iter()
                .any(|x| x == resource)
                && r.verbs.iter().any(|v| v == verb)
        })
    }

    #[test]
    fn no_wildcards_anywhere() {
        for c in API_CALLS {
            assert!(
                !c.verbs.contains(&"*") && c.resource != "*" && c.group != "*",
                "{c:?}"
            );
            assert!(!c.why.is_empty());
        }
    }

    #[test]
    fn every_controller_call_names_a_known_controller() {
        for c in API_CALLS {
            if let Caller::Controller(name) = c.caller {
                assert_eq!(controllers::lookup(name).map(|x| x.canonical), Some(name));
            }
        }
    }

    #[test]
    fn routes_off_drops_node_status_patch_and_nothing_else_needed() {
        let with = rules_for(&ccm_callers(true, false), Scope::Cluster);
        let without = rules_for(&ccm_callers(false, false), Scope::Cluster);
        assert!(has(&with, "nodes/status", "patch"));
        assert!(!has(&without, "nodes/status", "patch"));
        assert!(has(&without, "nodes", "delete") && has(&without, "services/status", "patch"));
        // The CCM never creates, deletes or updates Services, and cannot read Secrets.
        assert!(!has(&with, "services", "update") && !has(&with, "services", "delete"));
        assert!(!has(&with, "secrets", "get"));
    }

    #[test]
    fn events_only_through_the_events_api() {
        let mut callers = ccm_callers(true, true);
        callers.push(Caller::CloudNodeManager);
        for r in rules_for(&callers, Scope::Cluster) {
            if r.resources.as_deref() == Some(&["events".to_string()][..]) {
                assert_eq!(
                    r.api_groups.as_deref(),
                    Some(&[EVENTS_GROUP.to_string()][..])
                );
                assert_eq!(r.verbs, ["create", "patch"]);
            }
        }
    }

    #[test]
    fn lease_rights_are_name_scoped_except_create() {
        let rules = rules_for(&ccm_callers(false, true), Scope::KubeSystem);
        for r in &rules {
            let names = r.resource_names.clone().unwrap_or_default();
            if r.verbs.iter().any(|v| v == "update" || v == "get") {
                assert!(!names.is_empty(), "{r:?}");
            } else {
                assert_eq!(r.verbs, ["create"]);
            }
        }
        assert!(rules.iter().any(|r| r.resource_names.as_deref()
            == Some(&["cloud-provider-extraction-migration".to_string()][..])));
        let no_migration = rules_for(&ccm_callers(false, false), Scope::KubeSystem);
        assert!(!no_migration.iter().any(|r| {
            r.resource_names
                .as_deref()
                .unwrap_or_default()
                .iter()
                .any(|n| n == leases::LEADER_MIGRATION)
        }));
    }

    #[test]
    fn cnm_cannot_delete_nodes_or_touch_services() {
        let rules = rules_for(&[Caller::CloudNodeManager], Scope::Cluster);
        assert!(!has(&rules, "nodes", "delete"));
        assert!(!has(&rules, "services", "get"));
        assert!(has(&rules, "nodes", "update") && has(&rules, "nodes/status", "patch"));
    }
}
