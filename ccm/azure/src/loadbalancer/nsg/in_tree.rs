//! The NSG as the in-tree provider of Kubernetes ≤ 1.29 wrote it, for the harness's stand-in
//! in-tree kube-controller-manager ([`crate::config::InTreeCompat::per_service_nsg_rules`]): one
//! allow rule per Service port and source, named `<a+uid>-<PROTO>-<port>-<source with / → _>`,
//! with the single-valued `sourceAddressPrefix`, `destinationPortRange` and (one destination)
//! `destinationAddressPrefix`, priority the lowest free from 500; the Service's other rules of
//! that shape are dropped, everything else is left alone (the in-tree code did not know the
//! consolidated `k8s-azure-lb_*` rules).
//!
//! Sources: `reconcileSecurityGroup` / `getExpectedSecurityRules` / `getSecurityRuleName`
//! (`legacy-cloud-providers/azure/azure_loadbalancer.go`, `azure_standard.go`) and the same
//! functions of cloud-provider-azure before v1.29; anchor-ccm.md §4.7 ("Legacy (< v1.29)").
//! Sources: `Internet` for a public Service without restriction (the default `0.0.0.0/0` counts
//! as none), nothing for an internal one, else every range then every service tag.
//! [infer] Not reproduced: the `azure-deny-all-except-load-balancer-source-ranges` deny rules
//! (absent from the in-tree release read), `shared-*` rules (`azure-shared-securityrule`), and
//! IPv6 destinations (an IPv6 rule gets a `-IPv6` suffix here).

use super::priority::{Band, Priorities};
use super::rule_fields::values;
use super::rule_name::{arm_protocol, is_legacy_service_rule};
use super::wanted::{INTERNET_TAG, destinations_by_family};
use super::{Destinations, NsgError};
use crate::arm::resources::security_group::{
    NetworkSecurityGroup, SecurityRule, SecurityRuleProperties,
};
use crate::loadbalancer::service::{IpFamily, LbService};

/// The in-tree rule name `<base>-<PROTO>-<port>-<source with / replaced by _>`.
pub fn in_tree_rule_name(base: &str, protocol: &str, port: u16, source: &str) -> String {
    format!("{base}-{protocol}-{port}-{}", source.replace('/', "_"))
}

/// The sources the in-tree provider allowed: `Internet` for an unrestricted public Service,
/// nothing for an unrestricted internal one, else the ranges then the service tags.
fn sources(svc: &LbService) -> Vec<String> {
    let sec = &svc.security;
    let allow_all =
        sec.source_ranges.is_empty() || sec.source_ranges.iter().any(|r| r.prefix_len() == 0);
    if allow_all && sec.service_tags.is_empty() {
        return if svc.internal {
            Vec::new()
        } else {
            vec![INTERNET_TAG.to_string()]
        };
    }
    sec.source_ranges
        .iter()
        .filter(|r| r.prefix_len() != 0 || sec.service_tags.is_empty())
        .map(ToString::to_string)
        .chain(sec.service_tags.iter().cloned())
        .collect()
}

/// The rules the Service wants (priority left unset).
fn expected(svc: &LbService, dst: &Destinations) -> Vec<SecurityRule> {
    let mut out = Vec::new();
    for (family, destinations) in destinations_by_family(svc, dst) {
        let suffix = if family == IpFamily::V6 { "-IPv6" } else { "" };
        for port in &svc.ports {
            let number = if svc.rules.floating_ip {
                Some(port.port)
            } else {
                port.node_port
            };
            let Some(number) = number else { continue };
            for source in sources(svc) {
                let name = in_tree_rule_name(
                    &svc.base_name,
                    port.protocol.name_part(),
                    port.port,
                    &source,
                );
                let (one, many) = match destinations.as_slice() {
                    [one] => (Some(one.clone()), None),
                    _ => (None, Some(destinations.clone())),
                };
                out.push(SecurityRule {
                    name: Some(format!("{name}{suffix}")),
                    properties: Some(SecurityRuleProperties {
                        protocol: Some(arm_protocol(port.protocol).to_string()),
                        source_port_range: Some("*".to_string()),
                        destination_port_range: Some(number.to_string()),
                        source_address_prefix: Some(source),
                        destination_address_prefix: one,
                        destination_address_prefixes: many,
                        access: Some("Allow".to_string()),
                        direction: Some("Inbound".to_string()),
                        ..SecurityRuleProperties::default()
                    }),
                    ..SecurityRule::default()
                });
            }
        }
    }
    out
}

/// The in-tree `findSecurityRule`: same name (any case), protocol, ports, prefixes, access and
/// direction.
fn same_rule(current: &SecurityRule, wanted: &SecurityRule) -> bool {
    let same_name = match (current.name.as_deref(), wanted.name.as_deref()) {
        (Some(a), Some(b)) => a.eq_ignore_ascii_case(b),
        _ => false,
    };
    let (Some(c), Some(w)) = (current.properties.as_ref(), wanted.properties.as_ref()) else {
        return false;
    };
    let text = |a: &Option<String>, b: &Option<String>| {
        a.as_deref()
            .unwrap_or("")
            .eq_ignore_ascii_case(b.as_deref().unwrap_or(""))
    };
    same_name
        && text(&c.protocol, &w.protocol)
        && text(&c.access, &w.access)
        && text(&c.direction, &w.direction)
        && values(&c.source_port_range, &c.source_port_ranges)
            == values(&w.source_port_range, &w.source_port_ranges)
        && values(&c.destination_port_range, &c.destination_port_ranges)
            == values(&w.destination_port_range, &w.destination_port_ranges)
        && values(&c.source_address_prefix, &c.source_address_prefixes)
            == values(&w.source_address_prefix, &w.source_address_prefixes)
        && values(
            &c.destination_address_prefix,
            &c.destination_address_prefixes,
        ) == values(
            &w.destination_address_prefix,
            &w.destination_address_prefixes,
        )
}

/// The in-tree NSG for `svc` (`ensure` false: deletion), or `None` when nothing changes.
pub fn plan_in_tree(
    current: &NetworkSecurityGroup,
    svc: &LbService,
    dst: &Destinations,
    ensure: bool,
) -> Result<Option<NetworkSecurityGroup>, NsgError> {
    if svc.security.disabled {
        return Ok(None);
    }
    if ensure && dst.frontend_ips.is_empty() {
        return Err(NsgError::NoFrontendIp {
            service: svc.key.to_string(),
        });
    }
    let existing: Vec<SecurityRule> = current
        .properties
        .as_ref()
        .and_then(|p| p.security_rules.clone())
        .unwrap_or_default();
    let wanted = if ensure {
        expected(svc, dst)
    } else {
        Vec::new()
    };
    let owned = |r: &SecurityRule| {
        r.name
            .as_deref()
            .is_some_and(|n| is_legacy_service_rule(n, &svc.base_name))
    };
    let mut rules: Vec<SecurityRule> = existing
        .iter()
        .filter(|r| !owned(r) || wanted.iter().any(|w| same_rule(r, w)))
        .cloned()
        .collect();
    let mut priorities = Priorities::new(
        rules
            .iter()
            .filter_map(|r| r.properties.as_ref().and_then(|p| p.priority)),
    );
    for mut rule in wanted {
        if rules.iter().any(|r| same_rule(r, &rule)) {
            continue;
        }
        let priority =
            priorities
                .take(Band::FromStart)
                .ok_or_else(|| NsgError::PriorityExhausted {
                    rule: rule.name.clone().unwrap_or_default(),
                })?;
        if let Some(props) = rule.properties.as_mut() {
            props.priority = Some(priority);
        }
        rules.push(rule);
    }
    if rules == existing {
        return Ok(None);
    }
    let mut desired = current.clone();
    desired
        .properties
        .get_or_insert_with(Default::default)
        .security_rules = Some(rules);
    Ok(Some(desired))
}
