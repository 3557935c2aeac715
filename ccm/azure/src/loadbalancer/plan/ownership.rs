//! Which children of a load balancer belong to a Service: rules and probes by name prefix (the
//! Service's base name), frontends as *primary* (name prefix) or *secondary* (the Service's rules
//! use it, or it holds the IP / PIP the Service pins), and which frontends something else still
//! needs (another owner's rule, an outbound rule, an inbound NAT rule or pool).

use std::net::IpAddr;

use crate::arm::resources::load_balancer::{
    FrontendIpConfiguration, LoadBalancer, LoadBalancerProperties,
};
use crate::loadbalancer::names::SHARED_PROBE_NAME;
use crate::loadbalancer::service::{IpFamily, LbService};

use super::ids::{last_segment, refers_to};

/// A child's name, `""` when absent.
pub(crate) fn name_of<P>(child: &crate::arm::resources::Child<P>) -> &str {
    child.name.as_deref().unwrap_or("")
}

/// Upstream's `serviceOwnsRule`: the name starts with the Service's base name (ASCII case ignored).
pub(crate) fn owns_name(svc: &LbService, name: &str) -> bool {
    let base = svc.base_name.as_bytes();
    name.len() >= base.len() && name.as_bytes()[..base.len()].eq_ignore_ascii_case(base)
}

/// True for a frontend the Service owns as primary (named after it).
pub(crate) fn is_primary(svc: &LbService, fip: &FrontendIpConfiguration) -> bool {
    owns_name(svc, name_of(fip))
}

/// The frontend's private IP, when it has a parsable one.
fn private_ip(fip: &FrontendIpConfiguration) -> Option<IpAddr> {
    fip.properties
        .as_ref()
        .and_then(|p| p.private_ip_address.as_deref())
        .and_then(|ip| ip.parse().ok())
}

/// True when the frontend holds an IP or PIP the Service pins (upstream's secondary ownership).
fn holds_pinned_address(svc: &LbService, fip: &FrontendIpConfiguration) -> bool {
    let Some(props) = fip.properties.as_ref() else {
        return false;
    };
    if props.is_internal() {
        return private_ip(fip)
            .is_some_and(|ip| svc.requested_ips.get(IpFamily::of(&ip)).as_ref() == Some(&ip));
    }
    let pip_name = props
        .public_ip_address
        .as_ref()
        .and_then(|r| r.id.as_deref())
        .map(last_segment);
    pip_name.is_some_and(|pip| {
        [IpFamily::V4, IpFamily::V6].iter().any(|family| {
            svc.public_ip
                .names
                .get(*family)
                .as_deref()
                .is_some_and(|wanted| wanted.eq_ignore_ascii_case(pip))
        })
    })
}

/// True when one of the Service's rules uses the frontend called `name`.
fn used_by_service_rules(svc: &LbService, props: &LoadBalancerProperties, name: &str) -> bool {
    props.load_balancing_rules.iter().flatten().any(|rule| {
        owns_name(svc, name_of(rule))
            && refers_to(
                rule.properties
                    .as_ref()
                    .and_then(|p| p.frontend_ip_configuration.as_ref()),
                name,
            )
    })
}

/// The frontends a Service owns on `lb`, as primary or secondary (shared IP), in the LB's order.
pub fn service_frontends<'a>(
    lb: &'a LoadBalancer,
    svc: &LbService,
) -> Vec<&'a FrontendIpConfiguration> {
    let Some(props) = lb.properties.as_ref() else {
        return Vec::new();
    };
    props
        .frontend_ip_configurations
        .iter()
        .flatten()
        .filter(|fip| {
            is_primary(svc, fip)
                || used_by_service_rules(svc, props, name_of(fip))
                || holds_pinned_address(svc, fip)
        })
        .collect()
}

/// True when something other than the Service's own rules needs the frontend called `name`:
/// another owner's rule, an outbound rule, an inbound NAT rule or pool (anchor-ccm.md §4.1).
pub(crate) fn needed_by_others(
    svc: &LbService,
    props: &LoadBalancerProperties,
    name: &str,
) -> bool {
    let other_rule = props.load_balancing_rules.iter().flatten().any(|rule| {
        !owns_name(svc, name_of(rule))
            && refers_to(
                rule.properties
                    .as_ref()
                    .and_then(|p| p.frontend_ip_configuration.as_ref()),
                name,
            )
    });
    let outbound = props.outbound_rules.iter().flatten().any(|rule| {
        rule.properties
            .as_ref()
            .and_then(|p| p.frontend_ip_configurations.as_ref())
            .is_some_and(|refs| refs.iter().any(|r| refers_to(Some(r), name)))
    });
    let nat = props.inbound_nat_rules.iter().flatten().any(|rule| {
        refers_to(
            rule.properties
                .as_ref()
                .and_then(|p| p.frontend_ip_configuration.as_ref()),
            name,
        )
    });
    let back_refs = props
        .frontend_ip_configurations
        .iter()
        .flatten()
        .filter(|fip| name_of(fip).eq_ignore_ascii_case(name))
        .filter_map(|fip| fip.properties.as_ref())
        .any(|p| {
            p.outbound_rules.as_ref().is_some_and(|v| !v.is_empty())
                || p.inbound_nat_rules.as_ref().is_some_and(|v| !v.is_empty())
                || p.extra
                    .get("inboundNatPools")
                    .and_then(|v| v.as_array())
                    .is_some_and(|v| !v.is_empty())
        });
    other_rule || outbound || nat || back_refs
}

/// True when any rule on the LB uses the shared cluster probe.
pub(crate) fn shared_probe_in_use(props: &LoadBalancerProperties) -> bool {
    props.load_balancing_rules.iter().flatten().any(|rule| {
        refers_to(
            rule.properties.as_ref().and_then(|p| p.probe.as_ref()),
            SHARED_PROBE_NAME,
        )
    })
}
