//! The ARM diff between two snapshots: every load balancer part (frontend, pool, rule, probe),
//! public IP, NSG rule and route compared by lower-cased id, each difference classified as
//! identical, allowed addition, expected change or forbidden (migration.md §7) against an
//! [`AllowList`]. Which Services and Nodes exist in each snapshot decides whether a resource that
//! came or went belongs to the workload. VMs and NICs are snapshotted but not diffed (node churn
//! is the node checks' business); pool membership changes are reported as expected changes.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Snapshot;
use super::allow::{AllowList, AllowRule};
use super::arm::{ArmResources, SecurityRule};

/// Class of one difference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DiffClass {
    /// Nothing changed.
    Identical,
    /// Something was added that the allow-list accepts.
    AllowedAddition,
    /// A change the allow-list expects (reported, not a failure).
    ExpectedChange,
    /// Anything else.
    Forbidden,
}

/// One difference (or one unchanged resource).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiffEntry {
    /// Resource id, lower-cased.
    pub resource: String,
    /// Human label: `probe k8s/a1b2-TCP-80`.
    pub label: String,
    /// Field path inside the resource (`""` for the whole resource).
    pub path: String,
    /// Value before (`None`: absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old: Option<Value>,
    /// Value after (`None`: absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new: Option<Value>,
    /// Its class.
    pub class: DiffClass,
    /// Source of the allow-list entry that classified it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

impl std::fmt::Display for DiffEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let show = |v: &Option<Value>| match v {
            None => "absent".to_owned(),
            Some(Value::String(s)) => s.clone(),
            Some(v) => v.to_string(),
        };
        match (self.path.as_str(), &self.old, &self.new) {
            ("", None, Some(_)) => write!(f, "{} added", self.label)?,
            ("", Some(_), None) => write!(f, "{} removed", self.label)?,
            ("", _, _) => write!(f, "{} unchanged", self.label)?,
            (path, old, new) => write!(f, "{} {path}: {} -> {}", self.label, show(old), show(new))?,
        }
        if let Some(source) = &self.source {
            write!(f, " ({source})")?;
        }
        Ok(())
    }
}

/// The classified differences, sorted by resource then path.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArmDiff {
    /// Every entry.
    pub entries: Vec<DiffEntry>,
}

impl ArmDiff {
    /// Entries of `class`.
    pub fn of(&self, class: DiffClass) -> impl Iterator<Item = &DiffEntry> {
        self.entries.iter().filter(move |e| e.class == class)
    }

    /// True when no entry is forbidden.
    pub fn is_allowed(&self) -> bool {
        self.of(DiffClass::Forbidden).next().is_none()
    }
}

/// One comparable item: a top-level resource or a child, with its scalar fields.
#[derive(Debug, Clone)]
struct Item {
    kind: &'static str,
    name: String,
    label: String,
    fields: BTreeMap<String, Value>,
    rule: Option<SecurityRule>,
}

fn fields_of<T: Serialize>(value: &T, skip: &[&str]) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    if let Ok(Value::Object(map)) = serde_json::to_value(value) {
        for (k, v) in map {
            if k == "id" || skip.contains(&k.as_str()) {
                continue;
            }
            match v {
                Value::Object(inner) => {
                    for (ik, iv) in inner {
                        out.insert(format!("{k}.{ik}"), iv);
                    }
                }
                v => {
                    out.insert(k, v);
                }
            }
        }
    }
    out
}

fn items(arm: &ArmResources) -> BTreeMap<String, Item> {
    let mut out = BTreeMap::new();
    let mut add = |id: &str, kind: &'static str, name: &str, parent: Option<&str>, fields| {
        let label = match parent {
            Some(p) => format!("{kind} {p}/{name}"),
            None => format!("{kind} {name}"),
        };
        out.insert(
            id.to_owned(),
            Item {
                kind,
                name: name.to_owned(),
                label,
                fields,
                rule: None,
            },
        );
    };
    let lb_children = ["frontends", "pools", "rules", "probes"];
    for lb in &arm.load_balancers {
        add(
            &lb.id,
            "load balancer",
            &lb.name,
            None,
            fields_of(lb, &lb_children),
        );
        let p = Some(lb.name.as_str());
        for x in &lb.frontends {
            add(&x.id, "frontend", &x.name, p, fields_of(x, &[]));
        }
        for x in &lb.pools {
            add(&x.id, "backend pool", &x.name, p, fields_of(x, &[]));
        }
        for x in &lb.rules {
            add(&x.id, "rule", &x.name, p, fields_of(x, &[]));
        }
        for x in &lb.probes {
            add(&x.id, "probe", &x.name, p, fields_of(x, &[]));
        }
    }
    for pip in &arm.public_ips {
        add(&pip.id, "public IP", &pip.name, None, fields_of(pip, &[]));
    }
    for nsg in &arm.security_groups {
        add(&nsg.id, "NSG", &nsg.name, None, fields_of(nsg, &["rules"]));
        for r in &nsg.rules {
            add(
                &r.id,
                "NSG rule",
                &r.name,
                Some(&nsg.name),
                fields_of(r, &[]),
            );
        }
    }
    for table in &arm.route_tables {
        add(
            &table.id,
            "route table",
            &table.name,
            None,
            fields_of(table, &["routes"]),
        );
        for r in &table.routes {
            add(
                &r.id,
                "route",
                &r.name,
                Some(&table.name),
                fields_of(r, &[]),
            );
        }
    }
    for nsg in &arm.security_groups {
        for r in &nsg.rules {
            if let Some(item) = out.get_mut(&r.id) {
                item.rule = Some(r.clone());
            }
        }
    }
    out
}

/// What the two snapshots say about the workload.
struct Context<'a> {
    allow: &'a AllowList,
    /// Base names and `ns/name` of Services only in the later snapshot.
    created: Vec<(String, String)>,
    /// Base names and `ns/name` of Services only in the earlier snapshot.
    deleted: Vec<(String, String)>,
    nodes_before: BTreeSet<&'a str>,
    nodes_after: BTreeSet<&'a str>,
    after_rules: Vec<&'a SecurityRule>,
    /// The earlier snapshot has in-tree per-service NSG rules.
    legacy_before: bool,
    /// `(port)` of HTTP `/healthz` probes (Local health checks) before and after.
    healthz_before: BTreeMap<String, i64>,
    healthz_after: BTreeMap<String, i64>,
    /// Ids of load balancers (and their backend pools) created for Services created between
    /// the snapshots: see [`first_load_balancers`].
    first_lbs: BTreeSet<String>,
}

/// True for the internal load balancer's name (`<cluster>-internal`).
fn is_internal_lb(name: &str) -> bool {
    name.to_ascii_lowercase().ends_with("-internal")
}

/// Ids of the load balancers in `after` (with their backend pools) that the cluster's first
/// Service of their kind brought: absent from `before`, which had no load balancer of the same
/// kind (public or `-internal`) serving anything (with a load-balancing rule; an outbound-only
/// load balancer of the topology does not count), and every frontend of theirs (at least one)
/// belongs to a Service created between the snapshots. The CCM (like the in-tree provider) names the load balancer
/// after the cluster, not the Service, so the ownership test by name or tag cannot see it; a
/// load balancer appearing beside an existing one of its kind, or carrying a frontend of an
/// older Service, stays forbidden (a recreate or a renamed load balancer).
fn first_load_balancers(
    before: &ArmResources,
    after: &ArmResources,
    new: &BTreeMap<String, Item>,
    created: &[(String, String)],
) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    if created.is_empty() {
        return out;
    }
    for lb in &after.load_balancers {
        let kind_existed = before
            .load_balancers
            .iter()
            .any(|b| is_internal_lb(&b.name) == is_internal_lb(&lb.name) && !b.rules.is_empty());
        let all_created = !lb.frontends.is_empty()
            && lb
                .frontends
                .iter()
                .all(|f| new.get(&f.id).is_some_and(|item| owned_by(item, created)));
        if !kind_existed && all_created {
            out.insert(lb.id.clone());
            out.extend(lb.pools.iter().map(|p| p.id.clone()));
        }
    }
    out
}

/// Probe id → health-check port of every HTTP(S) `/healthz` probe.
fn healthz_probes(arm: &ArmResources) -> BTreeMap<String, i64> {
    arm.load_balancers
        .iter()
        .flat_map(|lb| lb.probes.iter())
        .filter(|p| p.protocol.to_ascii_lowercase().starts_with("http"))
        .filter(|p| p.path.as_deref() == Some("/healthz"))
        .map(|p| (p.id.clone(), p.port))
        .collect()
}

fn owned_by(item: &Item, services: &[(String, String)]) -> bool {
    services.iter().any(|(base, key)| {
        item.name.contains(base.as_str())
            || [
                ccm_names::resource_tags::SERVICE,
                ccm_names::resource_tags::LEGACY_SERVICE,
            ]
            .iter()
            .any(|tag| {
                item.fields
                    .get(&format!("tags.{tag}"))
                    .and_then(Value::as_str)
                    .is_some_and(|v| v.split(',').any(|s| s.trim() == key))
            })
    })
}

/// Priorities the providers give their allow rules (anchor-ccm.md §4.7: lowest free from 500;
/// deny rules take the highest free from 4096 down).
const MANAGED_ALLOW_PRIORITIES: std::ops::Range<i64> = 500..4096;

/// True for a per-service NSG rule name of the in-tree provider: `a<32 hex>-<Proto>-<port>-<source>`.
pub(crate) fn is_legacy_nsg_rule(name: &str) -> bool {
    let mut parts = name.splitn(4, '-');
    let (Some(base), Some(proto), Some(port), Some(_source)) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    base.len() == 32
        && base.starts_with('a')
        && base[1..].chars().all(|c| c.is_ascii_hexdigit())
        && ["tcp", "udp", "sctp"].contains(&proto.to_ascii_lowercase().as_str())
        && port.parse::<u16>().is_ok()
}

/// True when a consolidated rule in `after` covers the legacy rule `old`.
fn covered(old: &SecurityRule, after: &[&SecurityRule]) -> bool {
    after.iter().any(|r| {
        r.name.starts_with("k8s-azure-lb_allow_")
            && r.protocol.eq_ignore_ascii_case(&old.protocol)
            && old
                .destination_ports
                .iter()
                .all(|p| r.destination_ports.contains(p))
            && old.sources.iter().all(|s| r.sources.contains(s))
            && old.destinations.iter().all(|d| r.destinations.contains(d))
    })
}

fn route_node(name: &str) -> &str {
    name.split("____").next().unwrap_or(name)
}

impl Context<'_> {
    fn allowed(&self, rule: AllowRule) -> Option<(crate::snapshot::DiffClass, String)> {
        self.allow
            .entry(rule)
            .map(|e| (e.class, e.source.to_owned()))
    }

    fn added(&self, id: &str, item: &Item) -> Option<(DiffClass, String)> {
        if owned_by(item, &self.created) || self.first_lbs.contains(id) {
            return self.allowed(AllowRule::ServiceCreated);
        }
        if item.kind == "NSG rule" && item.name.starts_with("k8s-azure-lb_") {
            if self.legacy_before {
                return self.allowed(AllowRule::LegacyNsgRuleReplaced);
            }
            if !self.created.is_empty() {
                return self.allowed(AllowRule::ServiceCreated);
            }
        }
        if item.kind == "route" && !self.nodes_before.contains(route_node(&item.name)) {
            return self.allowed(AllowRule::NodeRoutes);
        }
        if item.kind == "probe"
            && let Some(port) = self.healthz_after.get(id)
            && self.healthz_before.values().any(|p| p == port)
            && !self.healthz_before.contains_key(id)
        {
            return self.allowed(AllowRule::LocalProbePerRuleReplaced);
        }
        None
    }

    fn removed(&self, id: &str, item: &Item) -> Option<(DiffClass, String)> {
        if owned_by(item, &self.deleted) {
            return self.allowed(AllowRule::ServiceDeleted);
        }
        if let Some(rule) = &item.rule
            && is_legacy_nsg_rule(&rule.name)
            && covered(rule, &self.after_rules)
        {
            return self.allowed(AllowRule::LegacyNsgRuleReplaced);
        }
        if item.kind == "route" && !self.nodes_after.contains(route_node(&item.name)) {
            return self.allowed(AllowRule::NodeRoutes);
        }
        if item.kind == "probe"
            && let Some(port) = self.healthz_before.get(id)
            && self.healthz_after.values().any(|p| p == port)
        {
            return self.allowed(AllowRule::LocalProbePerRuleReplaced);
        }
        None
    }

    fn changed(
        &self,
        item: &Item,
        path: &str,
        old: Option<&Value>,
        new: Option<&Value>,
        all: (&BTreeMap<String, Value>, &BTreeMap<String, Value>),
    ) -> Option<(DiffClass, String)> {
        if let Some(key) = path.strip_prefix("tags.") {
            let rule = match (old, new) {
                (None, Some(_)) => AllowRule::TagAdded(tag_key(key)?),
                (Some(_), None) => AllowRule::LegacyTagDropped(tag_key(key)?),
                _ => return None,
            };
            return self.allowed(rule);
        }
        match (item.kind, path) {
            ("backend pool", "members") => self.allowed(AllowRule::PoolMembersFollowNodes),
            ("NSG rule", "destinations" | "destinationPorts" | "sources")
                if item.name.starts_with("k8s-azure-lb_") =>
            {
                self.allowed(AllowRule::ConsolidatedNsgRuleFollowsServices)
            }
            ("NSG rule", "priority")
                if (item.name.starts_with("k8s-azure-lb_allow")
                    || is_legacy_nsg_rule(&item.name))
                    && [old, new].iter().all(|p| {
                        p.and_then(Value::as_i64)
                            .is_some_and(|p| (MANAGED_ALLOW_PRIORITIES).contains(&p))
                    }) =>
            {
                self.allowed(AllowRule::AllowRulePriorityReassigned)
            }
            ("rule", "probeId") => {
                let old = old
                    .and_then(Value::as_str)
                    .and_then(|p| self.healthz_before.get(p));
                let new = new
                    .and_then(Value::as_str)
                    .and_then(|p| self.healthz_after.get(p));
                (old.is_some() && old == new)
                    .then(|| self.allowed(AllowRule::LocalProbePerRuleReplaced))
                    .flatten()
            }
            ("probe", "path")
                if old.and_then(Value::as_str) == Some("/healthz")
                    && new.and_then(Value::as_str) == Some("/") =>
            {
                self.allowed(AllowRule::ProbePathHealthzToRoot)
            }
            ("probe", "protocol" | "path") => {
                let (before, after) = all;
                let was_tcp = before
                    .get("protocol")
                    .and_then(Value::as_str)
                    .is_some_and(|p| p.eq_ignore_ascii_case("tcp"));
                let is_http = after
                    .get("protocol")
                    .and_then(Value::as_str)
                    .is_some_and(|p| {
                        p.eq_ignore_ascii_case("http") || p.eq_ignore_ascii_case("https")
                    });
                let root = after.get("path").and_then(Value::as_str) == Some("/");
                (was_tcp && is_http && root && before.get("path").is_none())
                    .then(|| self.allowed(AllowRule::ProbeHttpForAppProtocol))
                    .flatten()
            }
            _ => None,
        }
    }
}

fn tag_key(key: &str) -> Option<&'static str> {
    use ccm_names::resource_tags as t;
    [
        t::SERVICE,
        t::CLUSTER_NAME,
        t::DNS_LABEL_SERVICE,
        "k8s-azure-created-by",
        t::LEGACY_SERVICE,
        t::LEGACY_CLUSTER_NAME,
        t::LEGACY_DNS_LABEL_SERVICE,
    ]
    .into_iter()
    .find(|k| *k == key)
}

/// Classifies every ARM difference from `before` to `after` against `allow`.
pub fn diff(before: &Snapshot, after: &Snapshot, allow: &AllowList) -> ArmDiff {
    let sorted = |arm: &ArmResources| {
        let mut arm = arm.clone();
        arm.sort();
        arm
    };
    let old = items(&sorted(&before.arm));
    let new = items(&sorted(&after.arm));
    let keys = |s: &Snapshot| -> Vec<(String, String, String)> {
        s.services
            .iter()
            .map(|x| (x.uid.clone(), x.base_name(), x.key()))
            .collect()
    };
    let (bk, ak) = (keys(before), keys(after));
    let only = |a: &[(String, String, String)], b: &[(String, String, String)]| {
        a.iter()
            .filter(|x| !b.iter().any(|y| y.0 == x.0))
            .map(|x| (x.1.clone(), x.2.clone()))
            .collect::<Vec<_>>()
    };
    let after_rules: Vec<&SecurityRule> = after
        .arm
        .security_groups
        .iter()
        .flat_map(|n| n.rules.iter())
        .collect();
    let mut context = Context {
        allow,
        created: only(&ak, &bk),
        deleted: only(&bk, &ak),
        nodes_before: before.nodes.iter().map(|n| n.name.as_str()).collect(),
        nodes_after: after.nodes.iter().map(|n| n.name.as_str()).collect(),
        after_rules,
        legacy_before: false,
        healthz_before: healthz_probes(&before.arm),
        healthz_after: healthz_probes(&after.arm),
        first_lbs: BTreeSet::new(),
    };
    context.first_lbs = first_load_balancers(&before.arm, &after.arm, &new, &context.created);
    // The in-tree scheme was in use: the CCM's consolidated rules replace (or, after a rollback
    // to in-tree, sit beside) its per-service rules.
    context.legacy_before = old.values().any(|item| {
        item.rule
            .as_ref()
            .is_some_and(|r| is_legacy_nsg_rule(&r.name))
    });
    let mut entries = Vec::new();
    let ids: BTreeSet<&String> = old.keys().chain(new.keys()).collect();
    for id in ids {
        let entry = |label: &str,
                     path: &str,
                     o: Option<&Value>,
                     n: Option<&Value>,
                     c: Option<(DiffClass, String)>| {
            let (class, source) = match c {
                Some((class, source)) => (class, Some(source)),
                None => (DiffClass::Forbidden, None),
            };
            DiffEntry {
                resource: id.clone(),
                label: label.to_owned(),
                path: path.to_owned(),
                old: o.cloned(),
                new: n.cloned(),
                class,
                source,
            }
        };
        match (old.get(id), new.get(id)) {
            (Some(o), None) => {
                let whole = Value::Object(o.fields.clone().into_iter().collect());
                entries.push(entry(
                    &o.label,
                    "",
                    Some(&whole),
                    None,
                    context.removed(id, o),
                ));
            }
            (None, Some(n)) => {
                let whole = Value::Object(n.fields.clone().into_iter().collect());
                entries.push(entry(
                    &n.label,
                    "",
                    None,
                    Some(&whole),
                    context.added(id, n),
                ));
            }
            (Some(o), Some(n)) => {
                let paths: BTreeSet<&String> = o.fields.keys().chain(n.fields.keys()).collect();
                let mut any = false;
                for path in paths {
                    let (ov, nv) = (o.fields.get(path), n.fields.get(path));
                    if ov == nv {
                        continue;
                    }
                    any = true;
                    let class = context.changed(n, path, ov, nv, (&o.fields, &n.fields));
                    entries.push(entry(&n.label, path, ov, nv, class));
                }
                if !any {
                    entries.push(DiffEntry {
                        resource: id.clone(),
                        label: n.label.clone(),
                        path: String::new(),
                        old: None,
                        new: None,
                        class: DiffClass::Identical,
                        source: None,
                    });
                }
            }
            (None, None) => {}
        }
    }
    ArmDiff { entries }
}
