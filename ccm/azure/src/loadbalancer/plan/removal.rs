//! Removing a Service's children (anchor-ccm.md §4.1): its rules and probes by name prefix, the
//! shared probe once no rule uses it, and the frontends it owns as primary unless something else
//! still needs them (another Service sharing the IP, an outbound rule, an inbound NAT rule).

use crate::arm::resources::load_balancer::LoadBalancerProperties;
use crate::loadbalancer::names::SHARED_PROBE_NAME;
use crate::loadbalancer::service::LbService;

use super::ids::last_segment;
use super::ownership::{is_primary, name_of, needed_by_others, owns_name, shared_probe_in_use};

/// Drops every rule and probe the Service owns.
pub(crate) fn drop_rules_and_probes(props: &mut LoadBalancerProperties, svc: &LbService) {
    if let Some(rules) = props.load_balancing_rules.as_mut() {
        rules.retain(|r| !owns_name(svc, name_of(r)));
    }
    if let Some(probes) = props.probes.as_mut() {
        probes.retain(|p| !owns_name(svc, name_of(p)));
    }
}

/// Drops the shared cluster probe when no rule uses it any more.
pub(crate) fn drop_unused_shared_probe(props: &mut LoadBalancerProperties) {
    if shared_probe_in_use(props) {
        return;
    }
    if let Some(probes) = props.probes.as_mut() {
        probes.retain(|p| !name_of(p).eq_ignore_ascii_case(SHARED_PROBE_NAME));
    }
}

/// Names of the frontends the Service's current rules use (its secondary frontends among them).
pub(crate) fn frontends_used_by(props: &LoadBalancerProperties, svc: &LbService) -> Vec<String> {
    props
        .load_balancing_rules
        .iter()
        .flatten()
        .filter(|rule| owns_name(svc, name_of(rule)))
        .filter_map(|rule| rule.properties.as_ref())
        .filter_map(|p| p.frontend_ip_configuration.as_ref())
        .filter_map(|r| r.id.as_deref())
        .map(|id| last_segment(id).to_string())
        .collect()
}

/// Drops the frontends the Service owns as primary, or used as secondary (`used`), that are not
/// named in `keep` and that nothing else needs. Call after the Service's rules are final (its
/// own rules on a dropped frontend must already be gone).
pub(crate) fn prune_frontends(
    props: &mut LoadBalancerProperties,
    svc: &LbService,
    keep: &[String],
    used: &[String],
) {
    let Some(fips) = props.frontend_ip_configurations.as_ref() else {
        return;
    };
    let doomed: Vec<String> = fips
        .iter()
        .filter(|fip| {
            is_primary(svc, fip) || used.iter().any(|u| u.eq_ignore_ascii_case(name_of(fip)))
        })
        .map(|fip| name_of(fip).to_string())
        .filter(|name| !keep.iter().any(|k| k.eq_ignore_ascii_case(name)))
        .filter(|name| !needed_by_others(svc, props, name))
        .collect();
    if let Some(fips) = props.frontend_ip_configurations.as_mut() {
        fips.retain(|fip| !doomed.iter().any(|d| d.eq_ignore_ascii_case(name_of(fip))));
    }
}
