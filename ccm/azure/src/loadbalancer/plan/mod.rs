//! The desired load-balancer document for one Service (anchor-ccm.md §4.1-4.6, §4.9): pure
//! functions from (current LB, LB target, parsed Service, frontend sources) to "PUT this", "delete
//! the LB" or "nothing to do". The executor reads the current LB once and writes only on `Put`.
//!
//! Layout: `frontends` (one frontend per family, shared-IP reuse, replacement), `rules`
//! (rule properties, HA ports, equality), `conflicts` (other owners on the same listener),
//! `probes` (Local / per-port / shared probes, equality), `pools` (backend pools exist),
//! `ownership` (what belongs to a Service), `removal` (dropping a Service's children),
//! `tags` (config tags on the LB), `merge` (editing child lists in place), `ids` (ARM ids).
//!
//! Verified against upstream (`kubernetes-sigs/cloud-provider-azure`):
//! - probes carry `intervalInSeconds` + `probeThreshold` (defaults 5 / 2, interval × count
//!   < 120), protocol precedence port annotation > `appProtocol` > Service annotation > Tcp,
//!   an unknown `appProtocol` is Tcp, Https is Tcp on basic SKU, path port > Service > `/`,
//!   probe equality = name, port, protocol and path (case-insensitive), interval, threshold;
//!   the shared probe is Http on the configured port / path with 5 / 2
//!   (`azure_loadbalancer_healthprobe.go`: `buildHealthProbeRulesForPort`, `findProbe`,
//!   `buildClusterServiceSharedProbe`);
//! - a frontend is changed when the PIP id differs (case-insensitive), or (internal) the subnet
//!   differs, a pinned IP is not Static at that address, or an unpinned one is Static; a primary
//!   frontend under another name is changed too (`isFrontendIPChanged`);
//! - rule equality ignores the idle timeout unless both sides set one and treats an absent TCP
//!   reset / outbound-SNAT flag as false (`equalLoadBalancingRulePropertiesFormat`);
//! - rule properties: floating IP on, backend port = NodePort with floating IP off or on the
//!   IPv6 half of an internal Service, idle timeout 4 without annotation, TCP reset on TCP rules
//!   of standard LBs, `SourceIP` for ClientIP affinity, `disableOutboundSnat` always written;
//!   the HA-ports rule is named after the first spec port, `All` / 0 / 0 with TCP reset, and
//!   uses the Local probe or else the first port that yields a probe (named after the HA rule);
//!   a `Local` Service's rules (UDP too) all use the Local probe; `no_lb_rule` / `no_probe_rule`
//!   (`getExpectedLBRules`, `getExpectedLoadBalancingRulePropertiesForPort`);
//! - SCTP rules use transport protocol `All` and get no probe; SCTP needs an internal LB
//!   (`azure_standard.go` `getProtocolsFromKubernetesProtocol`);
//! - LB ownership of rules / probes by base-name prefix (`serviceOwnsRule`).
//!
//! `[infer]` (not read in upstream source for this version):
//! - the HA-ports rule takes the `TCP reset off` annotation into account (the version read
//!   forces it on) and uses the shared probe in shared mode;
//! - a `Local` Service's port with its own probe-port annotation gets its own probe; the Local
//!   probe takes the Service-wide interval and threshold annotations (the version read uses the
//!   defaults);
//! - shared mode: every rule of a `Cluster` Service (UDP too) uses the shared probe, which stays
//!   while any rule on the LB uses it;
//! - rule equality also compares the probe reference, ids compare without ASCII case, and a
//!   probe written with `numberOfProbes` only (in-tree provider) counts as that threshold;
//! - `privateIPAddressVersion` is written on every new internal frontend; new children carry
//!   no `id` except frontends; new backend pools are `{name, id, properties: {}}`;
//! - a changed rule / probe is rewritten in place (position and unknown fields kept) where
//!   upstream drops it and appends a new one: the PUT means the same to ARM;
//! - a frontend the Service used as secondary (shared IP) goes with the Service's last rule on it
//!   when nothing else needs it, even though it is named after another Service;
//! - LB tags: configured keys are added / overwritten (key match ignores ASCII case), others kept.
//!
//! In-tree profile ([`crate::config::InTreeCompat`], harness stand-in KCM only): with
//! `tcp_probe_for_app_protocol` a port's `appProtocol` is not read (the in-tree
//! `getExpectedLBRules` never did: TCP unless annotated; migration.md P10), and with
//! `number_of_probes_field` probes carry `numberOfProbes` instead of `probeThreshold` (the
//! in-tree provider's network API had no `probeThreshold`); probe equality treats the two fields
//! alike, so only a protocol change makes today's CCM rewrite an in-tree probe; with
//! `local_probe_per_rule` an `externalTrafficPolicy: Local` Service gets one HTTP probe per rule,
//! named after the rule (the in-tree `getExpectedLBRules`), which today's CCM replaces by its one
//! shared probe; with `healthz_probe_path` an HTTP(S) probe from the Service's probe-protocol
//! annotation without a path probes `/healthz` (the in-tree default) instead of `/`.

mod conflicts;
mod frontends;
mod ids;
mod merge;
mod ownership;
mod pools;
mod probes;
mod removal;
mod rules;
mod tags;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::net::IpAddr;

use crate::arm::resources::Sku;
use crate::arm::resources::load_balancer::{LoadBalancer, LoadBalancerProperties};
use crate::config::{InTreeCompat, LoadBalancerSku, ProbeMode};
use crate::loadbalancer::names::SHARED_PROBE_NAME;
use crate::loadbalancer::service::{IpFamily, LbService, PerFamily};

pub use ownership::service_frontends;

use ids::LbIds;
use merge::{ChildRules, put_back, reconcile, take};
use ownership::owns_name;

/// Everything about the load balancer that is not the Service (from config and the lead's
/// selection of the LB).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LbTarget {
    /// Subscription of the LB (network subscription).
    pub subscription: String,
    /// Resource group of the LB.
    pub resource_group: String,
    /// LB name (`<cluster>` / `<cluster>-internal`).
    pub name: String,
    /// Region of a new LB.
    pub location: String,
    /// Cluster name: backend pools are `<cluster>` / `<cluster>-IPv6`.
    pub cluster_name: String,
    /// LB SKU (TCP reset, HA ports, HTTPS probes and zones depend on it).
    pub sku: LoadBalancerSku,
    /// Config `disableOutboundSnat` (standard SKU only).
    pub disable_outbound_snat: bool,
    /// Config `clusterServiceLoadBalancerHealthProbeMode`.
    pub probe_mode: ProbeMode,
    /// Config `clusterServiceSharedLoadBalancerHealthProbePort`.
    pub shared_probe_port: u16,
    /// Config `clusterServiceSharedLoadBalancerHealthProbePath`.
    pub shared_probe_path: String,
    /// Region zones for new internal frontends (empty = none).
    pub internal_frontend_zones: Vec<String>,
    /// Config tags, set on a new LB and added / overwritten on an existing one.
    pub tags: BTreeMap<String, String>,
    /// Config `systemTags`: with them set, other tags not under these prefixes are removed.
    pub system_tags: Vec<String>,
    /// In-tree provider behaviours to reproduce (probe protocol and fields).
    pub in_tree: InTreeCompat,
}

/// What a Service's frontend of one family points at (resolved by the lead: PIP, subnet).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrontendSource {
    /// A public frontend on this PIP.
    Public {
        /// Full ARM id of the PIP.
        pip_id: String,
    },
    /// An internal frontend in this subnet.
    Internal {
        /// Full ARM id of the subnet.
        subnet_id: String,
        /// The pinned private IP (Static), or `None` (Dynamic).
        private_ip: Option<IpAddr>,
    },
}

/// The outcome of a plan: what the executor must do to the LB.
#[derive(Debug, Clone, PartialEq)]
#[allow(
    clippy::large_enum_variant,
    reason = "one value per reconcile; the lead matches on `Put(LoadBalancer)` directly"
)]
pub enum LbChange {
    /// The LB already is what is wanted: no write.
    Unchanged,
    /// PUT this document (it keeps everything the CCM does not manage).
    Put(LoadBalancer),
    /// No frontend is left: delete the LB (after detaching its backend pools).
    Delete,
}

/// Why a Service's LB document cannot be planned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LbPlanError {
    /// The Service wants a family the lead gave no frontend source for.
    #[error("no frontend source for the {family} family of the Service")]
    MissingFrontendSource {
        /// The family.
        family: IpFamily,
    },
    /// SCTP needs an internal load balancer.
    #[error("port {port}: SCTP is only supported on internal load balancers")]
    SctpOnPublic {
        /// The Service port.
        port: u16,
    },
    /// Floating IP off or a NodePort probe needs a NodePort the Service does not have.
    #[error("port {port} has no NodePort, which its rule or probe needs")]
    MissingNodePort {
        /// The Service port.
        port: u16,
    },
    /// Probe interval × threshold reaches 120 s.
    #[error("port {port}: probe interval {interval}s × {threshold} probes must stay under 120s")]
    ProbeTooLong {
        /// The Service port.
        port: u16,
        /// Interval in seconds.
        interval: i64,
        /// Number of probes.
        threshold: i64,
    },
    /// Another owner's rule listens on the same frontend, protocol and port.
    #[error("rule {rule} conflicts with existing rule {other} on the same frontend and port")]
    RuleConflict {
        /// Our rule.
        rule: String,
        /// The other owner's rule.
        other: String,
    },
    /// An inbound NAT rule listens on the same frontend, protocol and port.
    #[error("rule {rule} conflicts with inbound NAT rule {nat_rule} on the same frontend and port")]
    NatRuleConflict {
        /// Our rule.
        rule: String,
        /// The NAT rule.
        nat_rule: String,
    },
}

/// A new, empty LB for `target`.
fn new_load_balancer(target: &LbTarget) -> LoadBalancer {
    LoadBalancer {
        name: Some(target.name.clone()),
        location: Some(target.location.clone()),
        sku: Some(Sku {
            name: Some(
                match target.sku {
                    LoadBalancerSku::Basic => "Basic",
                    LoadBalancerSku::Standard => "Standard",
                    LoadBalancerSku::Service => "Service",
                }
                .into(),
            ),
            ..Default::default()
        }),
        properties: Some(LoadBalancerProperties::default()),
        ..Default::default()
    }
}

/// The outcome once `lb` is final.
fn outcome(lb: LoadBalancer, current: Option<&LoadBalancer>) -> LbChange {
    let no_frontend = lb
        .properties
        .as_ref()
        .and_then(|p| p.frontend_ip_configurations.as_ref())
        .is_none_or(|f| f.is_empty());
    if no_frontend {
        return if current.is_some() {
            LbChange::Delete
        } else {
            LbChange::Unchanged
        };
    }
    if current == Some(&lb) {
        LbChange::Unchanged
    } else {
        LbChange::Put(lb)
    }
}

/// The LB document with the Service's frontends, rules, probes and pools as wanted (creating
/// the LB when `current` is `None`), or `Unchanged` when `current` already is exactly that.
pub fn plan_ensure(
    current: Option<&LoadBalancer>,
    target: &LbTarget,
    svc: &LbService,
    frontends: &PerFamily<Option<FrontendSource>>,
) -> Result<LbChange, LbPlanError> {
    let ids = LbIds::new(target);
    let mut lb = current
        .cloned()
        .unwrap_or_else(|| new_load_balancer(target));
    tags::reconcile_lb_tags(&mut lb, target);
    let props = lb
        .properties
        .get_or_insert_with(LoadBalancerProperties::default);

    let used_before = removal::frontends_used_by(props, svc);
    let (mut fips, fips_none) = take(&mut props.frontend_ip_configurations);
    let choices = frontends::ensure_frontends(&mut fips, target, &ids, svc, frontends)?;
    put_back(&mut props.frontend_ip_configurations, fips, fips_none);

    let wanted = rules::wanted_children(target, svc, &ids, &choices)?;
    conflicts::check_conflicts(
        svc,
        props.load_balancing_rules.as_deref().unwrap_or_default(),
        props.inbound_nat_rules.as_deref().unwrap_or_default(),
        &wanted.rules,
    )?;

    let owned = |name: &str| owns_name(svc, name);
    let (mut probe_list, probes_none) = take(&mut props.probes);
    reconcile(
        &mut probe_list,
        &wanted.probes,
        &ChildRules {
            owned: &owned,
            equal: probes::probe_equal,
            update: probes::probe_update,
        },
    );
    if let Some(shared) = wanted.shared_probe.as_ref() {
        let is_shared = |name: &str| name.eq_ignore_ascii_case(SHARED_PROBE_NAME);
        reconcile(
            &mut probe_list,
            std::slice::from_ref(shared),
            &ChildRules {
                owned: &is_shared,
                equal: probes::probe_equal,
                update: probes::probe_update,
            },
        );
    }
    put_back(&mut props.probes, probe_list, probes_none);

    let (mut rule_list, rules_none) = take(&mut props.load_balancing_rules);
    reconcile(
        &mut rule_list,
        &wanted.rules,
        &ChildRules {
            owned: &owned,
            equal: rules::rule_equal,
            update: rules::rule_update,
        },
    );
    put_back(&mut props.load_balancing_rules, rule_list, rules_none);

    removal::drop_unused_shared_probe(props);
    pools::ensure_pools(props, target, &ids, svc);
    let keep: Vec<String> = choices.into_iter().map(|c| c.name).collect();
    removal::prune_frontends(props, svc, &keep, &used_before);
    Ok(outcome(lb, current))
}

/// The LB document without the Service: its rules and probes, the shared probe once unused,
/// and its primary frontends nothing else needs; `Delete` when no frontend is left.
pub fn plan_remove(current: &LoadBalancer, target: &LbTarget, svc: &LbService) -> LbChange {
    let _ = target;
    let mut lb = current.clone();
    if let Some(props) = lb.properties.as_mut() {
        let used = removal::frontends_used_by(props, svc);
        removal::drop_rules_and_probes(props, svc);
        removal::drop_unused_shared_probe(props);
        removal::prune_frontends(props, svc, &[], &used);
    }
    outcome(lb, Some(current))
}
