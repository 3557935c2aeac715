//! What one Service wants in the NSG (`pkg/provider/loadbalancer/accesscontrol.go`
//! `PatchSecurityGroup`): per protocol and IP family, one allow rule per source service tag and
//! one for all (aggregated) source ranges, plus the per-family deny-all rule when asked for.

use std::net::IpAddr;

use ipnet::IpNet;

use super::Destinations;
use super::rule_name::{allow_rule_name, arm_protocol, deny_all_rule_name, port_strings};
use crate::loadbalancer::service::{IpFamily, LbService, Protocol};

/// Source service tag used for a public Service without any restriction.
pub const INTERNET_TAG: &str = "Internet";

/// One rule the Service contributes destinations to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WantedRule {
    /// Rule name (hash-named allow rule or the family's deny-all rule).
    pub name: String,
    /// Allow or deny-all, with what the rule matches.
    pub kind: WantedKind,
    /// Destination addresses this Service adds (one family).
    pub destinations: Vec<String>,
}

/// The match part of a wanted rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WantedKind {
    /// `Allow` from `sources` to `ports` over `protocol` (ARM spelling).
    Allow {
        /// `Tcp`, `Udp` or `*`.
        protocol: &'static str,
        /// Sorted source prefixes (service tag or CIDRs).
        sources: Vec<String>,
        /// Destination ports, sorted as strings.
        ports: Vec<String>,
    },
    /// `Deny` everything to the destinations.
    DenyAll,
}

/// The destination addresses a Service's rules point at: frontend IPs (floating IP on) or backend
/// node IPs (floating IP off), plus `azure-additional-public-ips`, split by family.
pub fn destinations_by_family(svc: &LbService, dst: &Destinations) -> Vec<(IpFamily, Vec<String>)> {
    let base: &[IpAddr] = if svc.rules.floating_ip {
        &dst.frontend_ips
    } else {
        &dst.backend_ips
    };
    [IpFamily::V4, IpFamily::V6]
        .into_iter()
        .map(|family| {
            let mut ips: Vec<String> = base
                .iter()
                .chain(&svc.additional_public_ips)
                .filter(|ip| IpFamily::of(ip) == family)
                .map(IpAddr::to_string)
                .collect();
            ips.sort_unstable();
            ips.dedup();
            (family, ips)
        })
        .filter(|(_, ips)| !ips.is_empty())
        .collect()
}

/// True when any range is an allow-all (`/0`) range.
fn has_allow_all(ranges: &[IpNet]) -> bool {
    ranges.iter().any(|r| r.prefix_len() == 0)
}

/// Upstream's `IsAllowFromInternet`: no service tags, no restricting range, no invalid range; a
/// public Service is then open to the Internet, an internal one only with an explicit allow-all
/// range.
fn allows_internet(svc: &LbService) -> bool {
    let sec = &svc.security;
    if !sec.service_tags.is_empty() || !sec.invalid_ranges.is_empty() {
        return false;
    }
    if !sec.source_ranges.is_empty() && !has_allow_all(&sec.source_ranges) {
        return false;
    }
    !svc.internal || !sec.source_ranges.is_empty()
}

/// Upstream's `DenyAllExceptSourceRanges`: the annotation with ranges given, or any invalid range.
fn wants_deny_all(svc: &LbService) -> bool {
    let sec = &svc.security;
    (sec.deny_all_except_source_ranges && !sec.source_ranges.is_empty())
        || !sec.invalid_ranges.is_empty()
}

/// Destination ports per protocol: the Service port, or its NodePort with floating IP off (ports
/// without an allocated NodePort are skipped then).
fn ports_by_protocol(svc: &LbService) -> Vec<(Protocol, Vec<u16>)> {
    [Protocol::Tcp, Protocol::Udp, Protocol::Sctp]
        .into_iter()
        .map(|protocol| {
            let ports: Vec<u16> = svc
                .ports
                .iter()
                .filter(|p| p.protocol == protocol)
                .filter_map(|p| {
                    if svc.rules.floating_ip {
                        Some(p.port)
                    } else {
                        p.node_port
                    }
                })
                .collect();
            (protocol, ports)
        })
        .filter(|(_, ports)| !ports.is_empty())
        .collect()
}

/// Every rule the Service wants, with the destinations it adds to each.
pub fn wanted_rules(svc: &LbService, dst: &Destinations) -> Vec<WantedRule> {
    let sec = &svc.security;
    let mut tags: Vec<String> = sec.service_tags.clone();
    if allows_internet(svc) && !has_allow_all(&sec.source_ranges) {
        tags.push(INTERNET_TAG.to_string());
    }
    let ranges = IpNet::aggregate(&sec.source_ranges.iter().map(IpNet::trunc).collect());
    let by_family = destinations_by_family(svc, dst);

    let mut out = Vec::new();
    for (protocol, ports) in ports_by_protocol(svc) {
        // SCTP shares the `*` protocol with nothing else a Service port can map to.
        let protocol = arm_protocol(protocol);
        for (family, destinations) in &by_family {
            let family_ranges: Vec<String> = ranges
                .iter()
                .filter(|r| IpFamily::of(&r.addr()) == *family)
                .map(IpNet::to_string)
                .collect();
            let mut source_sets: Vec<Vec<String>> =
                tags.iter().map(|tag| vec![tag.clone()]).collect();
            if !family_ranges.is_empty() {
                source_sets.push(family_ranges);
            }
            for mut sources in source_sets {
                sources.sort_unstable();
                out.push(WantedRule {
                    name: allow_rule_name(protocol, *family, &sources, &ports),
                    kind: WantedKind::Allow {
                        protocol,
                        sources,
                        ports: port_strings(&ports),
                    },
                    destinations: destinations.clone(),
                });
            }
        }
    }
    if wants_deny_all(svc) {
        for (family, destinations) in &by_family {
            out.push(WantedRule {
                name: deny_all_rule_name(*family),
                kind: WantedKind::DenyAll,
                destinations: destinations.clone(),
            });
        }
    }
    out
}
