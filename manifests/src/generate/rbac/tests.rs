//! The call table against upstream's ClusterRole (what the upstream image calls, verb by verb)
//! and its shape. The table is also checked against this project's binaries' real calls, from the
//! embedded API server's audit log, in `ccm/tests/it/rbac.rs`.

use azure_ccm::names::leases;

use super::calls::EVENT_VERBS;
use super::*;
use crate::options::Mode;
use crate::version::KubeVersion;

/// Out-of-tree options at 1.30 (the last version that accepts leader migration).
fn opts(routes: bool, ipam: Option<NodeIpam>, leader_migration: bool) -> Options {
    let mut o = Options::new(Mode::OutOfTree, KubeVersion::from_minor(30).unwrap());
    o.configure_cloud_routes = routes;
    o.node_ipam = ipam;
    o.leader_migration = leader_migration;
    o
}

/// True when some rule grants `verb` on `group/resource` (for object `name`, if given).
fn grants(
    rules: &[PolicyRule],
    group: &str,
    resource: &str,
    verb: &str,
    name: Option<&str>,
) -> bool {
    rules.iter().any(|r| {
        let listed = |v: &Option<Vec<String>>, x: &str| {
            v.as_deref().unwrap_or_default().iter().any(|y| y == x)
        };
        listed(&r.api_groups, group)
            && listed(&r.resources, resource)
            && r.verbs.iter().any(|v| v == verb)
            && match (&r.resource_names, name) {
                (None, _) => true,
                (Some(names), Some(n)) => names.iter().any(|x| x == n),
                (Some(_), None) => false,
            }
    })
}

fn has(rules: &[PolicyRule], resource: &str, verb: &str) -> bool {
    [
        "",
        "events.k8s.io",
        "discovery.k8s.io",
        "coordination.k8s.io",
    ]
    .iter()
    .any(|g| grants(rules, g, resource, verb, None))
}

/// Cluster rules plus the kube-system Role of the CCM with every optional controller on.
fn full_ccm() -> Vec<PolicyRule> {
    let callers = ccm_callers(&opts(true, None, false));
    assert!(callers.contains(&Caller::Controller(controllers::NODE_IPAM)));
    let mut rules = rules_for(&callers, Scope::Cluster);
    rules.extend(rules_for(&callers, Scope::KubeSystem));
    rules
}

/// One verb of the upstream ClusterRole `system:cloud-controller-manager` (migration.md 1.5).
struct ReferenceVerb {
    group: &'static str,
    resource: &'static str,
    verb: &'static str,
    /// Object the call targets when our rule is name-restricted.
    name: Option<&'static str>,
    /// None: the upstream image makes this call, the role must grant it. Some: why not.
    not_needed: Option<&'static str>,
}

const fn need(group: &'static str, resource: &'static str, verb: &'static str) -> ReferenceVerb {
    ReferenceVerb {
        group,
        resource,
        verb,
        name: None,
        not_needed: None,
    }
}

const fn skip(resource: &'static str, verb: &'static str, why: &'static str) -> ReferenceVerb {
    ReferenceVerb {
        group: "",
        resource,
        verb,
        name: None,
        not_needed: Some(why),
    }
}

const fn lease(verb: &'static str, name: &'static str) -> ReferenceVerb {
    ReferenceVerb {
        group: "coordination.k8s.io",
        resource: "leases",
        verb,
        name: Some(name),
        not_needed: None,
    }
}

const RECORDER: &str = "client-go's recorder creates and patches events, it never updates them";
const SA_CREDS: &str = "only with --use-service-account-credentials=true, which is not set";
const NO_PVL: &str = "no PersistentVolume label controller among the anchor's controllers";
const NO_ENDPOINTS_LOCK: &str = "leader election must use leases (endpoints lock is refused)";
const FILE_CONFIG: &str = "azure.json comes from --cloud-config; the Secret is read only by dynamic reloading without a file";
const PATCH_ONLY: &str = "services are patched (status subresource), never updated";
const NODE_PATCH_ONLY: &str =
    "taints and podCIDRs are patched; cloud-node (full update) is disabled";

/// The upstream ClusterRole, verb by verb, with what the upstream image actually calls.
fn reference_rules() -> Vec<ReferenceVerb> {
    vec![
        need("", "events", "create"),
        need("", "events", "patch"),
        skip("events", "update", RECORDER),
        need("", "nodes", "get"),
        need("", "nodes", "list"),
        need("", "nodes", "watch"),
        need("", "nodes", "patch"),
        need("", "nodes", "delete"),
        skip("nodes", "update", NODE_PATCH_ONLY),
        skip("nodes", "create", NODE_PATCH_ONLY),
        need("", "nodes/status", "patch"),
        need("", "services", "list"),
        need("", "services", "watch"),
        skip("services", "update", PATCH_ONLY),
        need("", "services/status", "patch"),
        skip("services/status", "update", PATCH_ONLY),
        skip("serviceaccounts", "create", SA_CREDS),
        skip("serviceaccounts", "get", SA_CREDS),
        skip("serviceaccounts", "update", SA_CREDS),
        skip("persistentvolumes", "get", NO_PVL),
        skip("persistentvolumes", "update", NO_PVL),
        skip("endpoints", "create", NO_ENDPOINTS_LOCK),
        skip("endpoints", "update", NO_ENDPOINTS_LOCK),
        skip("secrets", "get", FILE_CONFIG),
        skip("secrets", "list", FILE_CONFIG),
        lease("get", leases::CLOUD_CONTROLLER_MANAGER),
        lease("update", leases::CLOUD_CONTROLLER_MANAGER),
        lease("create", leases::CLOUD_CONTROLLER_MANAGER),
        lease("get", leases::AZURE_RESOURCE_LOCKER),
        lease("update", leases::AZURE_RESOURCE_LOCKER),
        need("discovery.k8s.io", "endpointslices", "get"),
        need("discovery.k8s.io", "endpointslices", "list"),
        need("discovery.k8s.io", "endpointslices", "watch"),
    ]
}

#[test]
fn ccm_role_covers_what_the_upstream_image_calls_and_nothing_it_does_not() {
    let rules = full_ccm();
    for r in reference_rules() {
        let granted = grants(&rules, r.group, r.resource, r.verb, r.name);
        match r.not_needed {
            None => assert!(
                granted,
                "missing {}/{} {} {:?}",
                r.group, r.resource, r.verb, r.name
            ),
            Some(why) => assert!(!granted, "granted {} {} although {why}", r.resource, r.verb),
        }
    }
}

#[test]
fn every_row_has_a_reason_and_a_source_and_no_wildcard() {
    for c in API_CALLS {
        assert!(
            !c.verbs.contains(&"*") && c.resource != "*" && c.group != "*",
            "{c:?}"
        );
        assert!(!c.why.is_empty() && !c.source.is_empty(), "{c:?}");
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
    let with = rules_for(
        &ccm_callers(&opts(true, Some(NodeIpam::KubeControllerManager), false)),
        Scope::Cluster,
    );
    let without = rules_for(&ccm_callers(&opts(false, None, false)), Scope::Cluster);
    assert!(has(&with, "nodes/status", "patch"));
    assert!(!has(&without, "nodes/status", "patch"));
    assert!(has(&without, "nodes", "delete") && has(&without, "services/status", "patch"));
    // The CCM never creates, deletes or updates Services, and cannot read Secrets.
    assert!(!has(&with, "services", "update") && !has(&with, "services", "delete"));
    assert!(!has(&with, "secrets", "get"));
}

#[test]
fn events_in_the_core_api_only_with_create_and_patch() {
    // Leader migration keeps node IPAM in KCM, so its caller is added to the fullest CCM set.
    let mut callers = ccm_callers(&opts(true, None, false));
    callers.push(Caller::LeaderMigration);
    callers.extend_from_slice(CNM_CALLERS);
    let rules = rules_for(&callers, Scope::Cluster);
    let events = |group: &str| {
        rules
            .iter()
            .find(|r| {
                r.api_groups.as_deref() == Some(&[group.to_string()][..])
                    && r.resources.as_deref() == Some(&["events".to_string()][..])
            })
            .map(|r| r.verbs.clone())
    };
    assert_eq!(
        events(""),
        Some(EVENT_VERBS.iter().map(|v| v.to_string()).collect())
    );
    // Both images post core/v1 Events (the audit log of ccm/tests/it/rbac.rs shows ours).
    assert_eq!(events("events.k8s.io"), None);
}

#[test]
fn leader_migration_with_routes_leaves_node_ipam_out_of_the_ccm() {
    let callers = ccm_callers(&opts(true, None, true));
    assert!(callers.contains(&Caller::Controller(controllers::NODE_ROUTE)));
    assert!(callers.contains(&Caller::LeaderMigration));
    assert!(!callers.contains(&Caller::Controller(controllers::NODE_IPAM)));
}

#[test]
fn lease_rights_are_name_scoped_except_create() {
    let rules = rules_for(&ccm_callers(&opts(false, None, true)), Scope::KubeSystem);
    for r in &rules {
        let names = r.resource_names.clone().unwrap_or_default();
        if r.verbs.iter().any(|v| v == "update" || v == "get") {
            assert!(!names.is_empty(), "{r:?}");
        } else {
            assert_eq!(r.verbs, ["create"]);
        }
    }
    assert!(grants(
        &rules,
        "coordination.k8s.io",
        "leases",
        "update",
        Some(leases::LEADER_MIGRATION)
    ));
    let no_migration = rules_for(&ccm_callers(&opts(false, None, false)), Scope::KubeSystem);
    assert!(!grants(
        &no_migration,
        "coordination.k8s.io",
        "leases",
        "get",
        Some(leases::LEADER_MIGRATION)
    ));
}

#[test]
fn cnm_cannot_delete_nodes_or_touch_services() {
    let rules = rules_for(CNM_CALLERS, Scope::Cluster);
    assert!(!has(&rules, "nodes", "delete"));
    assert!(!has(&rules, "services", "get"));
    assert!(has(&rules, "nodes", "update") && has(&rules, "nodes/status", "patch"));
    assert!(grants(&rules, "", "events", "create", None));
}
