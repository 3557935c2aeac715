//! The desired network security group (anchor-ccm.md §4.7): pure plans that take the current NSG,
//! one parsed Service and its destination addresses, and return the NSG to PUT (or `None` when
//! nothing differs, so an NSG already written by the upstream CCM is adopted without a write).
//!
//! Verified against upstream `kubernetes-sigs/cloud-provider-azure` (v1.29+ consolidated rules):
//! * names `k8s-azure-lb_allow_<IPv4|IPv6>_<md5>` / `k8s-azure-lb_deny-all_<IPv4|IPv6>`; the MD5
//!   input is `<Tcp|Udp|*>_<sorted sources joined ",">_<ports sorted as strings joined ",">`
//!   (`pkg/provider/securitygroup/securityrule.go` `GenerateAllowSecurityRuleName`);
//! * sources: service tags one rule each, all source ranges aggregated (overlaps merged,
//!   neighbours collapsed) into one rule per family, `Internet` for an unrestricted public Service,
//!   an allow-all range used as source instead of `Internet`, nothing for an unrestricted internal
//!   Service; deny-all with `azure-deny-all-except-load-balancer-source-ranges` and ranges, or
//!   with any invalid range (`pkg/provider/loadbalancer/accesscontrol.go`);
//! * destinations: frontend IPs, or backend node IPs with floating IP off, plus
//!   `azure-additional-public-ips`; ports: Service ports, NodePorts with floating IP off; SCTP ⇒
//!   protocol `*` (`SecurityRuleDestinationPortsByProtocol`, `ProtocolFromKubernetes`);
//! * writing: one source / destination in the single field, several in the plural field, sorted
//!   and deduplicated; allow-rule ports always in `destinationPortRanges`; deny-all uses `*`
//!   source, source port and destination port (`securitygroup.go` `addAllowRule`,
//!   `AddRuleForDenyAll`, `SetDestinationPrefixes`);
//! * destinations merge into an existing rule of the same name; cleaning removes the Service's
//!   destinations from every managed rule; rules left without destination are deleted;
//! * priorities: allow rules lowest free from 500, deny rules highest free from 4095 (upstream's
//!   loop never hands out 4096), any rule's priority counts as taken (`nextRulePriority`);
//!   managed = name prefix `k8s-azure-lb` and priority 500..=4096 (`IsManagedSecurityRule`);
//! * limits 1000 rules / 4000 source / 4000 destination addresses per NSG (`SecurityGroup()`);
//! * legacy names `<base>-<PROTO>-<port>-<source / → _>[-IPv6]` (matched by the case-insensitive
//!   `<base>` prefix like `serviceOwnsRule`) and `shared-<PROTO>-<port>-<source>`
//!   (`azure_standard.go` `getSecurityRuleName`).
//!
//! Inferred / deliberate differences:
//! * [infer] Shared destinations: upstream keeps another Service's ports on a shared IP by listing
//!   every Service (`listSharedIPPortMapping`) and re-splitting rules by port. Here the caller
//!   passes the other Services ([`plan_ensure_shared`], [`plan_remove_shared`]) and a destination
//!   is kept in exactly the rules those Services want it in; [`plan_ensure`] / [`plan_remove`]
//!   assume no other Service shares the destinations.
//! * [infer] Legacy per-Service rules are deleted, by name, on ensure and on delete. Upstream
//!   reaches the same end by address: `RemoveDestinationFromRules` (`securitygroup.go`) takes the
//!   Service's addresses out of every rule of that protocol with a priority in 500..=4096 whatever
//!   its name, so a legacy rule loses its only destination; that its ensure path cleans too is
//!   not verified. Legacy `shared-*` rules only lose the Service's destinations on delete. Only managed and touched legacy rules are pruned when empty (upstream prunes any
//!   rule without destination).
//! * [infer] With floating IP off, ports without an allocated NodePort get no rule (upstream
//!   would write port 0).
//! * [infer] `azure-disable-load-balancer-nsg-rule=true` leaves the NSG untouched on delete too.
//! * Upstream's stale-destination sweep across all Services (`listAvailableSecurityGroupDestinations`)
//!   is not part of these per-Service plans.
//!
//! [`in_tree`] ([`plan_in_tree`]) writes the NSG as the in-tree provider of Kubernetes ≤ 1.29 did
//! (per-Service rules); only the harness's stand-in in-tree KCM uses it
//! ([`crate::config::InTreeCompat::per_service_nsg_rules`]). The plans above remove those rules
//! when today's CCM reconciles or deletes the Service.

pub mod in_tree;
mod plan;
mod priority;
mod rule_fields;
pub mod rule_name;
mod wanted;

#[cfg(test)]
mod tests;

use std::net::IpAddr;

use crate::arm::resources::security_group::NetworkSecurityGroup;
use crate::loadbalancer::service::LbService;

pub use in_tree::{in_tree_rule_name, plan_in_tree};
pub use rule_name::{allow_rule_name, deny_all_rule_name};

/// Lowest priority of a managed rule.
pub const MIN_PRIORITY: i64 = 500;
/// Highest priority of a managed rule.
pub const MAX_PRIORITY: i64 = 4096;
/// Security rules per NSG (Azure limit upstream checks).
pub const MAX_RULES: usize = 1_000;
/// Source addresses over all rules of an NSG.
pub const MAX_SOURCES: usize = 4_000;
/// Destination addresses over all rules of an NSG.
pub const MAX_DESTINATIONS: usize = 4_000;

/// The addresses a Service's NSG rules point at.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Destinations {
    /// The Service's load-balancer frontend IPs (both families for dual-stack).
    pub frontend_ips: Vec<IpAddr>,
    /// Private IPs of the backend nodes: the destinations instead of the frontend IPs when
    /// floating IP is off.
    pub backend_ips: Vec<IpAddr>,
    /// Addresses the Service's rules named before and must name no more (an old frontend IP, a
    /// released PIP, a node that left, node IPs after floating IP was turned on): cleaned out
    /// of every managed rule like the Service's own, except where another Service claims them.
    pub stale: Vec<IpAddr>,
}

/// Why no NSG could be planned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NsgError {
    /// Ensure without a frontend IP (upstream: "no load balancer IP for setting up security rules").
    #[error("no load balancer IP for setting up security rules for service {service}")]
    NoFrontendIp {
        /// `namespace/name`.
        service: String,
    },
    /// Every priority of the band is taken.
    #[error("security rule priority exhausted while adding {rule}")]
    PriorityExhausted {
        /// The rule that found no priority.
        rule: String,
    },
    /// The NSG would exceed an Azure limit.
    #[error("security group exceeds the maximum number of {what} ({count} > {limit})")]
    LimitExceeded {
        /// What was counted.
        what: &'static str,
        /// How many there would be.
        count: usize,
        /// The limit.
        limit: usize,
    },
}

/// The NSG with `svc`'s rules in place (`None` = unchanged); assumes no other Service shares its
/// destinations (see [`plan_ensure_shared`]).
pub fn plan_ensure(
    current: &NetworkSecurityGroup,
    svc: &LbService,
    dst: &Destinations,
) -> Result<Option<NetworkSecurityGroup>, NsgError> {
    plan_ensure_shared(current, svc, dst, &[])
}

/// [`plan_ensure`] keeping, in each rule, the destinations the `others` Services want there
/// (Services sharing a frontend IP, or floating-IP-off Services sharing the node IPs).
pub fn plan_ensure_shared(
    current: &NetworkSecurityGroup,
    svc: &LbService,
    dst: &Destinations,
    others: &[(&LbService, &Destinations)],
) -> Result<Option<NetworkSecurityGroup>, NsgError> {
    plan::plan(current, svc, dst, others, plan::Mode::Ensure)
}

/// The NSG without `svc`'s destinations and legacy rules (`None` = unchanged); assumes no other
/// Service shares its destinations (see [`plan_remove_shared`]).
pub fn plan_remove(
    current: &NetworkSecurityGroup,
    svc: &LbService,
    dst: &Destinations,
) -> Option<NetworkSecurityGroup> {
    plan_remove_shared(current, svc, dst, &[])
}

/// [`plan_remove`] keeping the destinations the `others` Services still want.
pub fn plan_remove_shared(
    current: &NetworkSecurityGroup,
    svc: &LbService,
    dst: &Destinations,
    others: &[(&LbService, &Destinations)],
) -> Option<NetworkSecurityGroup> {
    // Removing allocates no priority and adds nothing, so it cannot fail.
    plan::plan(current, svc, dst, others, plan::Mode::Remove)
        .ok()
        .flatten()
}
