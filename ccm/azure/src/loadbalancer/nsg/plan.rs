//! The read-modify-write of the NSG's `securityRules` for one Service: clean the Service's
//! destinations out of every managed rule (keeping those another Service still wants), drop its
//! legacy rules, merge its wanted destinations in, then prune managed rules left without any
//! destination. Mirrors `reconcileSecurityGroup` + `AccessControl` + `RuleHelper` upstream.

use std::collections::{BTreeMap, BTreeSet};
use std::net::IpAddr;

use super::priority::{Band, Priorities};
use super::rule_fields::{set_many, set_one_or_many, set_single, set_str, sorted_union, values};
use super::rule_name::{MANAGED_PREFIX, is_legacy_service_rule, is_legacy_shared_rule};
use super::wanted::{WantedKind, WantedRule, destinations_by_family, wanted_rules};
use super::{
    Destinations, MAX_DESTINATIONS, MAX_PRIORITY, MAX_RULES, MAX_SOURCES, MIN_PRIORITY, NsgError,
};
use crate::arm::resources::security_group::{
    NetworkSecurityGroup, SecurityRule, SecurityRuleProperties,
};
use crate::loadbalancer::service::LbService;

/// Ensure (add the Service's rules) or remove (only clean).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `EnsureLoadBalancer`.
    Ensure,
    /// `EnsureLoadBalancerDeleted`.
    Remove,
}

/// A rule the CCM owns: name prefix `k8s-azure-lb` and priority in 500..=4096.
pub fn is_managed(rule: &SecurityRule) -> bool {
    let priority = rule.properties.as_ref().and_then(|p| p.priority);
    rule.name
        .as_deref()
        .is_some_and(|n| n.starts_with(MANAGED_PREFIX))
        && priority.is_some_and(|p| (MIN_PRIORITY..=MAX_PRIORITY).contains(&p))
}

/// Destination addresses of a rule.
fn destinations(props: &SecurityRuleProperties) -> Vec<String> {
    values(
        &props.destination_address_prefix,
        &props.destination_address_prefixes,
    )
}

/// True when the rule still points somewhere (addresses or application security groups).
fn has_destination(props: &SecurityRuleProperties) -> bool {
    let asgs = props
        .extra
        .get("destinationApplicationSecurityGroups")
        .and_then(|v| v.as_array())
        .is_some_and(|a| !a.is_empty());
    asgs || !destinations(props).is_empty()
}

/// True when every destination port of an allow rule is a plain number; upstream skips rules
/// with `*` or `a-b` ranges when cleaning (it never writes them).
fn has_numeric_ports(props: &SecurityRuleProperties) -> bool {
    values(
        &props.destination_port_range,
        &props.destination_port_ranges,
    )
    .iter()
    .all(|p| p.parse::<u16>().is_ok())
}

/// Removes `remove` (minus what `keep` protects) from the rule's destinations; true if it changed.
fn drop_destinations(
    props: &mut SecurityRuleProperties,
    remove: &BTreeSet<String>,
    keep: Option<&BTreeSet<String>>,
) -> bool {
    let current = destinations(props);
    let dropped = |d: &String| remove.contains(d) && !keep.is_some_and(|k| k.contains(d));
    if !current.iter().any(dropped) {
        return false;
    }
    let rest: Vec<String> = current.iter().filter(|d| !dropped(d)).cloned().collect();
    set_one_or_many(
        &mut props.destination_address_prefix,
        &mut props.destination_address_prefixes,
        sorted_union(rest, &[]),
    );
    true
}

/// Writes the match part of a wanted rule and merges its destinations in.
fn apply_wanted(props: &mut SecurityRuleProperties, wanted: &WantedRule) {
    set_str(&mut props.direction, "Inbound");
    set_single(
        &mut props.source_port_range,
        &mut props.source_port_ranges,
        "*",
    );
    let merged = sorted_union(destinations(props), &wanted.destinations);
    match &wanted.kind {
        WantedKind::Allow {
            protocol,
            sources,
            ports,
        } => {
            set_str(&mut props.protocol, protocol);
            set_str(&mut props.access, "Allow");
            set_one_or_many(
                &mut props.source_address_prefix,
                &mut props.source_address_prefixes,
                sources.clone(),
            );
            set_one_or_many(
                &mut props.destination_address_prefix,
                &mut props.destination_address_prefixes,
                merged,
            );
            set_many(
                &mut props.destination_port_range,
                &mut props.destination_port_ranges,
                ports.clone(),
            );
        }
        WantedKind::DenyAll => {
            set_str(&mut props.protocol, "*");
            set_str(&mut props.access, "Deny");
            set_single(
                &mut props.source_address_prefix,
                &mut props.source_address_prefixes,
                "*",
            );
            set_one_or_many(
                &mut props.destination_address_prefix,
                &mut props.destination_address_prefixes,
                merged,
            );
            set_single(
                &mut props.destination_port_range,
                &mut props.destination_port_ranges,
                "*",
            );
        }
    }
}

/// Destinations other Services want per rule name (they survive this Service's cleaning).
fn claimed_by_others(
    svc: &LbService,
    others: &[(&LbService, &Destinations)],
) -> BTreeMap<String, BTreeSet<String>> {
    let mut claimed: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (other, dst) in others {
        if other.key == svc.key || other.security.disabled {
            continue;
        }
        for rule in wanted_rules(other, dst) {
            claimed
                .entry(rule.name)
                .or_default()
                .extend(rule.destinations);
        }
    }
    claimed
}

/// Rejects an NSG over the documented per-NSG limits (upstream checks the same three).
fn check_limits(rules: &[SecurityRule]) -> Result<(), NsgError> {
    let props = || rules.iter().filter_map(|r| r.properties.as_ref());
    let sources: usize = props()
        .map(|p| values(&p.source_address_prefix, &p.source_address_prefixes).len())
        .sum();
    let dests: usize = props().map(|p| destinations(p).len()).sum();
    for (what, count, limit) in [
        ("security rules", rules.len(), MAX_RULES),
        ("source addresses", sources, MAX_SOURCES),
        ("destination addresses", dests, MAX_DESTINATIONS),
    ] {
        if count > limit {
            return Err(NsgError::LimitExceeded { what, count, limit });
        }
    }
    Ok(())
}

/// The desired NSG for `svc` in `mode`, or `None` when it equals `current`.
pub fn plan(
    current: &NetworkSecurityGroup,
    svc: &LbService,
    dst: &Destinations,
    others: &[(&LbService, &Destinations)],
    mode: Mode,
) -> Result<Option<NetworkSecurityGroup>, NsgError> {
    if svc.security.disabled {
        return Ok(None);
    }
    if mode == Mode::Ensure && dst.frontend_ips.is_empty() {
        return Err(NsgError::NoFrontendIp {
            service: svc.key.to_string(),
        });
    }
    let mut rules: Vec<SecurityRule> = current
        .properties
        .as_ref()
        .and_then(|p| p.security_rules.clone())
        .unwrap_or_default();
    let mut priorities = Priorities::new(
        rules
            .iter()
            .filter_map(|r| r.properties.as_ref().and_then(|p| p.priority)),
    );
    let own: BTreeSet<String> = destinations_by_family(svc, dst)
        .into_iter()
        .flat_map(|(_, ips)| ips)
        .chain(dst.stale.iter().map(IpAddr::to_string))
        .collect();
    let claimed = claimed_by_others(svc, others);

    // 1. Legacy per-Service rules go; legacy shared rules lose this Service's destinations on delete.
    rules.retain(|r| {
        !r.name
            .as_deref()
            .is_some_and(|n| is_legacy_service_rule(n, &svc.base_name))
    });
    let mut prunable: BTreeSet<String> = BTreeSet::new();
    if mode == Mode::Remove {
        for rule in &mut rules {
            let Some(name) = rule.name.clone() else {
                continue;
            };
            let shared = svc
                .ports
                .iter()
                .any(|p| is_legacy_shared_rule(&name, p.protocol, p.port));
            if let (true, Some(props)) = (shared, rule.properties.as_mut()) {
                drop_destinations(props, &own, None);
                prunable.insert(name);
            }
        }
    }

    // 2. Clean this Service's destinations out of every managed rule.
    for rule in rules.iter_mut().filter(|r| is_managed(r)) {
        let Some(name) = rule.name.clone() else {
            continue;
        };
        let Some(props) = rule.properties.as_mut() else {
            continue;
        };
        let is_allow = props.access.as_deref() != Some("Deny");
        if is_allow && !has_numeric_ports(props) {
            continue;
        }
        drop_destinations(props, &own, claimed.get(&name));
        prunable.insert(name);
    }

    // 3. Merge what the Service wants.
    if mode == Mode::Ensure {
        for wanted in wanted_rules(svc, dst) {
            let index = match rules
                .iter()
                .position(|r| r.name.as_deref() == Some(wanted.name.as_str()))
            {
                Some(index) => index,
                None => {
                    let band = match wanted.kind {
                        WantedKind::Allow { .. } => Band::FromStart,
                        WantedKind::DenyAll => Band::FromEnd,
                    };
                    let priority =
                        priorities
                            .take(band)
                            .ok_or_else(|| NsgError::PriorityExhausted {
                                rule: wanted.name.clone(),
                            })?;
                    rules.push(SecurityRule {
                        name: Some(wanted.name.clone()),
                        properties: Some(SecurityRuleProperties {
                            priority: Some(priority),
                            ..SecurityRuleProperties::default()
                        }),
                        ..SecurityRule::default()
                    });
                    rules.len() - 1
                }
            };
            let props = rules[index]
                .properties
                .get_or_insert_with(SecurityRuleProperties::default);
            apply_wanted(props, &wanted);
        }
    }

    // 4. Managed (and touched legacy shared) rules left without destination are deleted.
    rules.retain(|r| {
        let touched = r.name.as_ref().is_some_and(|n| prunable.contains(n));
        !touched || r.properties.as_ref().is_some_and(has_destination)
    });
    if mode == Mode::Ensure {
        check_limits(&rules)?;
    }

    let current_rules = current
        .properties
        .as_ref()
        .and_then(|p| p.security_rules.as_ref());
    let unchanged = match current_rules {
        Some(existing) => *existing == rules,
        None => rules.is_empty(),
    };
    if unchanged {
        return Ok(None);
    }
    let mut desired = current.clone();
    desired
        .properties
        .get_or_insert_with(Default::default)
        .security_rules = Some(rules);
    Ok(Some(desired))
}
