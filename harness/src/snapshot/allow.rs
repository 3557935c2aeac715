//! The versioned allow-list of ARM differences the first CCM reconcile may make to what the in-tree
//! provider left (migration.md §7: "keep allow-lists versioned"), each entry with its source.

use serde::Serialize;

use super::diff::DiffClass;

/// What an allow-list entry lets through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "rule", content = "key")]
pub enum AllowRule {
    /// A tag with this key added to a public IP or load balancer.
    TagAdded(&'static str),
    /// A legacy tag key dropped (its `k8s-azure-*` successor carries the value).
    LegacyTagDropped(&'static str),
    /// Per-service NSG rules `<a+uid>-<Proto>-<port>-<source>` replaced by consolidated
    /// `k8s-azure-lb_allow_*` rules covering the same protocol, ports, sources and destinations.
    LegacyNsgRuleReplaced,
    /// A consolidated `k8s-azure-lb_*` rule's destinations, ports or sources follow the Services.
    ConsolidatedNsgRuleFollowsServices,
    /// A provider's allow rule re-created at another free priority of the managed band (e.g. the
    /// in-tree rule written again after a rollback, beside the CCM's consolidated rules): among
    /// allow rules, the order changes nothing.
    AllowRulePriorityReassigned,
    /// A probe of an `appProtocol: http/https` port went from `Tcp` to `Http(s)` with path `/`.
    ProbeHttpForAppProtocol,
    /// `externalTrafficPolicy: Local`: the in-tree provider's probe per rule (named after the rule,
    /// HTTP `/healthz` on the health-check node port) replaced by one shared probe on the same port
    /// and path, and the rules pointed at it.
    LocalProbePerRuleReplaced,
    /// An annotated HTTP(S) probe without a path: `/healthz` in tree, `/` out of tree.
    ProbePathHealthzToRoot,
    /// Backend pool members follow the node set (nodes added, deleted, NotReady).
    PoolMembersFollowNodes,
    /// Resources of a Service created after the earlier snapshot.
    ServiceCreated,
    /// Resources of a Service deleted before the later snapshot.
    ServiceDeleted,
    /// Routes of nodes added after, or gone before, the later snapshot.
    NodeRoutes,
}

/// One allow-list entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AllowEntry {
    /// What it lets through.
    #[serde(flatten)]
    pub rule: AllowRule,
    /// The class a difference it matches gets.
    pub class: DiffClass,
    /// Why it is allowed (the document and section, or the upstream change).
    pub source: &'static str,
    /// First Kubernetes minor it applies to.
    pub since_minor: u32,
    /// Last Kubernetes minor it applies to (`None`: still applies).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub until_minor: Option<u32>,
}

/// The allow-list for one Kubernetes minor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AllowList {
    /// The minor it was built for.
    pub minor: u32,
    /// Entries applying to that minor.
    pub entries: Vec<AllowEntry>,
}

impl AllowList {
    /// The entry for `rule`, when the list has it.
    pub fn entry(&self, rule: AllowRule) -> Option<&AllowEntry> {
        self.entries.iter().find(|e| e.rule == rule)
    }
}

const P10: &str = "migration.md §3 P10; anchor-ccm.md §4.8 (tag keys and their legacy names)";
const NSG: &str = "anchor-ccm.md §4.7: rules consolidated across Services since CCM v1.29, \
                   legacy per-service names `<a+uid>-<Proto>-<port>-<source>`";
const PROBE: &str = "migration.md §3 P10: cluster-policy TCP ports with appProtocol http/https \
                     get an HTTP(S) probe on `/`; anchor-ccm.md §4.5";
const LOCAL_PROBE: &str = "kubernetes legacy-cloud-providers/azure azure_loadbalancer.go \
                           (reconcileLoadBalancer: one probe per rule for Local services); \
                           harness/src/intree/kcm_profile.rs `local_probe_per_rule`";
const HEALTHZ: &str = "kubernetes legacy-cloud-providers/azure azure_loadbalancer.go (default \
                       request path /healthz); harness/src/intree/kcm_profile.rs \
                       `healthz_probe_path`";
const WORKLOAD: &str = "the scenario's workload (Services created or deleted between snapshots)";

fn entry(rule: AllowRule, class: DiffClass, source: &'static str) -> AllowEntry {
    AllowEntry {
        rule,
        class,
        source,
        since_minor: 28,
        until_minor: None,
    }
}

/// The allow-list for Kubernetes `1.<minor>`: every entry whose range holds `minor`.
pub fn allow_list(minor: u32) -> AllowList {
    use AllowRule::*;
    use DiffClass::{AllowedAddition, ExpectedChange};
    use ccm_names::resource_tags as tags;
    let all = vec![
        entry(TagAdded(tags::SERVICE), AllowedAddition, P10),
        entry(TagAdded(tags::CLUSTER_NAME), AllowedAddition, P10),
        entry(TagAdded(tags::DNS_LABEL_SERVICE), AllowedAddition, P10),
        entry(TagAdded("k8s-azure-created-by"), AllowedAddition, P10),
        entry(LegacyTagDropped(tags::LEGACY_SERVICE), ExpectedChange, P10),
        entry(
            LegacyTagDropped(tags::LEGACY_CLUSTER_NAME),
            ExpectedChange,
            P10,
        ),
        entry(
            LegacyTagDropped(tags::LEGACY_DNS_LABEL_SERVICE),
            ExpectedChange,
            P10,
        ),
        entry(LegacyNsgRuleReplaced, ExpectedChange, NSG),
        entry(ConsolidatedNsgRuleFollowsServices, ExpectedChange, NSG),
        entry(
            AllowRulePriorityReassigned,
            ExpectedChange,
            "anchor-ccm.md §4.7: allow rules take the lowest free priority from 500; deny rules \
             the highest free from 4096 down",
        ),
        entry(ProbeHttpForAppProtocol, ExpectedChange, PROBE),
        entry(LocalProbePerRuleReplaced, ExpectedChange, LOCAL_PROBE),
        entry(ProbePathHealthzToRoot, ExpectedChange, HEALTHZ),
        entry(
            PoolMembersFollowNodes,
            ExpectedChange,
            "migration.md §3 P10: NotReady nodes stay in backend pools out of tree; pools follow \
             the node set",
        ),
        entry(ServiceCreated, AllowedAddition, WORKLOAD),
        entry(ServiceDeleted, ExpectedChange, WORKLOAD),
        entry(
            NodeRoutes,
            ExpectedChange,
            "anchor-ccm.md §5: one route per node, removed with the node",
        ),
    ];
    AllowList {
        minor,
        entries: all
            .into_iter()
            .filter(|e| e.since_minor <= minor && e.until_minor.is_none_or(|u| minor <= u))
            .collect(),
    }
}

/// The minor of a `1.N` version string.
pub fn minor_of(version: &str) -> Option<u32> {
    version.strip_prefix("1.")?.split('.').next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_names_its_source_and_versions_filter() {
        let list = allow_list(29);
        assert!(list.entries.iter().all(|e| !e.source.is_empty()));
        assert!(list.entry(AllowRule::LegacyNsgRuleReplaced).is_some());
        assert!(allow_list(20).entries.is_empty());
        assert_eq!(minor_of("1.29"), Some(29));
        assert_eq!(minor_of("v1"), None);
    }
}
