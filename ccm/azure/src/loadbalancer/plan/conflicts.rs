//! Conflicts (anchor-ccm.md §4.1): a wanted rule must not listen where another owner's rule or
//! an inbound NAT rule already listens (same frontend, protocol and port, or HA ports).

use crate::arm::resources::load_balancer::{
    InboundNatRule, LoadBalancingRule, LoadBalancingRuleProperties,
};
use crate::loadbalancer::service::LbService;

use super::LbPlanError;
use super::ids::{last_segment, refers_to};
use super::ownership::{name_of, owns_name};

/// (frontend name, protocol, port) a rule listens on.
fn listener(props: &LoadBalancingRuleProperties) -> Option<(&str, &str, i64)> {
    let frontend = props
        .frontend_ip_configuration
        .as_ref()?
        .id
        .as_deref()
        .map(last_segment)?;
    Some((
        frontend,
        props.protocol.as_deref().unwrap_or(""),
        props.frontend_port.unwrap_or(0),
    ))
}

/// True when two listeners collide: same frontend and same protocol + port, or either is an
/// HA-ports rule (`All`, port 0) on that frontend.
fn collide(a: (&str, &str, i64), b: (&str, &str, i64)) -> bool {
    let ha = |l: (&str, &str, i64)| l.1.eq_ignore_ascii_case("All") && l.2 == 0;
    a.0.eq_ignore_ascii_case(b.0)
        && (ha(a) || ha(b) || (a.1.eq_ignore_ascii_case(b.1) && a.2 == b.2))
}

/// Fails when a wanted rule listens where another owner's rule or an inbound NAT rule does.
pub(crate) fn check_conflicts(
    svc: &LbService,
    existing_rules: &[LoadBalancingRule],
    nat_rules: &[InboundNatRule],
    wanted: &[LoadBalancingRule],
) -> Result<(), LbPlanError> {
    for ours in wanted {
        let Some(mine) = ours.properties.as_ref().and_then(listener) else {
            continue;
        };
        for other in existing_rules
            .iter()
            .filter(|r| !owns_name(svc, name_of(r)))
        {
            let theirs = other.properties.as_ref().and_then(listener);
            if theirs.is_some_and(|theirs| collide(mine, theirs)) {
                return Err(LbPlanError::RuleConflict {
                    rule: name_of(ours).to_string(),
                    other: name_of(other).to_string(),
                });
            }
        }
        for nat in nat_rules {
            let Some(props) = nat.properties.as_ref() else {
                continue;
            };
            if !refers_to(props.frontend_ip_configuration.as_ref(), mine.0) {
                continue;
            }
            let protocol = props.protocol.as_deref().unwrap_or("");
            let same_protocol = protocol.eq_ignore_ascii_case(mine.1)
                || protocol.eq_ignore_ascii_case("All")
                || mine.1.eq_ignore_ascii_case("All");
            let port_hit = match (
                props.frontend_port,
                props.frontend_port_range_start,
                props.frontend_port_range_end,
            ) {
                _ if mine.2 == 0 => true,
                (Some(p), _, _) => p == mine.2,
                (None, Some(lo), Some(hi)) => (lo..=hi).contains(&mine.2),
                _ => false,
            };
            if same_protocol && port_hit {
                return Err(LbPlanError::NatRuleConflict {
                    rule: name_of(ours).to_string(),
                    nat_rule: name_of(nat).to_string(),
                });
            }
        }
    }
    Ok(())
}
