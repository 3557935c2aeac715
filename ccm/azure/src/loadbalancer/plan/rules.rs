//! Load-balancing rules (anchor-ccm.md §4.4): one per port and family (or one HA-ports rule),
//! their properties, which probe each uses, when an existing rule already is what is wanted
//! (upstream's `equalLoadBalancingRulePropertiesFormat`) and conflicts with other owners' rules.

use crate::arm::resources::Reference;
use crate::arm::resources::load_balancer::{LoadBalancingRule, LoadBalancingRuleProperties, Probe};
use crate::config::{LoadBalancerSku, ProbeMode};
use crate::loadbalancer::names::{SHARED_PROBE_NAME, backend_pool_name, rule_name};
use crate::loadbalancer::service::{IpFamily, LbPort, LbService, Protocol};

use super::frontends::{FrontendChoice, subnet_part};
use super::ids::{LbIds, same_reference};
use super::ownership::name_of;
use super::probes::{local_probe, port_probe, shared_probe};
use super::{LbPlanError, LbTarget};

/// The rules and probes one Service wants on the LB.
#[derive(Debug, Default)]
pub(crate) struct Wanted {
    /// Rules, in port order, IPv4 first.
    pub rules: Vec<LoadBalancingRule>,
    /// The Service's own probes (named after its rules).
    pub probes: Vec<Probe>,
    /// The shared cluster probe, when some rule uses it.
    pub shared_probe: Option<Probe>,
}

/// Idle timeout of a rule without the idle-timeout annotation (ARM's own default too).
pub(crate) const DEFAULT_IDLE_TIMEOUT_MINUTES: i64 = 4;

/// ARM transport protocol: SCTP has none of its own, so its rules use `All`.
fn transport(protocol: Protocol) -> &'static str {
    match protocol {
        Protocol::Tcp => "Tcp",
        Protocol::Udp => "Udp",
        Protocol::Sctp => "All",
    }
}

/// Properties shared by every rule of one port and family.
fn properties(
    target: &LbTarget,
    svc: &LbService,
    ids: &LbIds,
    frontend: &str,
    family: IpFamily,
    port: &LbPort,
) -> Result<LoadBalancingRuleProperties, LbPlanError> {
    let standard = target.sku == LoadBalancerSku::Standard;
    let floating = svc.rules.floating_ip && !(svc.internal && family == IpFamily::V6);
    let backend = if floating {
        port.port
    } else {
        port.node_port
            .ok_or(LbPlanError::MissingNodePort { port: port.port })?
    };
    Ok(LoadBalancingRuleProperties {
        frontend_ip_configuration: Some(Reference::to(ids.frontend(frontend))),
        backend_address_pool: Some(Reference::to(
            ids.pool(&backend_pool_name(&target.cluster_name, family)),
        )),
        protocol: Some(transport(port.protocol).into()),
        frontend_port: Some(i64::from(port.port)),
        backend_port: Some(i64::from(backend)),
        idle_timeout_in_minutes: Some(
            svc.rules
                .idle_timeout_minutes
                .unwrap_or(DEFAULT_IDLE_TIMEOUT_MINUTES),
        ),
        enable_floating_ip: Some(floating),
        enable_tcp_reset: (port.protocol == Protocol::Tcp && standard)
            .then_some(svc.rules.tcp_reset),
        disable_outbound_snat: Some(standard && target.disable_outbound_snat),
        load_distribution: Some(
            if svc.rules.client_ip_affinity {
                "SourceIP"
            } else {
                "Default"
            }
            .into(),
        ),
        ..Default::default()
    })
}

fn rule(name: String, props: LoadBalancingRuleProperties) -> LoadBalancingRule {
    LoadBalancingRule {
        name: Some(name),
        properties: Some(props),
        ..Default::default()
    }
}

/// Adds `probe` to `wanted` once and returns a reference to it.
fn use_probe(wanted: &mut Wanted, ids: &LbIds, probe: Probe) -> Reference {
    let name = probe.name.clone().unwrap_or_default();
    if name == SHARED_PROBE_NAME {
        wanted.shared_probe = Some(probe);
    } else if !wanted.probes.iter().any(|p| name_of(p) == name) {
        wanted.probes.push(probe);
    }
    Reference::to(ids.probe(&name))
}

/// The `Local` probe of the rule `rule`: shared by every rule, or (reproducing the in-tree
/// provider) one per rule named after it.
fn named_local(target: &LbTarget, mut probe: Probe, rule: &str) -> Probe {
    if target.in_tree.local_probe_per_rule {
        probe.name = Some(rule.to_string());
    }
    probe
}

/// Everything the Service wants on the LB, given the frontend each family uses.
pub(crate) fn wanted_children(
    target: &LbTarget,
    svc: &LbService,
    ids: &LbIds,
    choices: &[FrontendChoice],
) -> Result<Wanted, LbPlanError> {
    let mut wanted = Wanted::default();
    let ports: Vec<&LbPort> = svc.ports.iter().filter(|p| !p.no_lb_rule).collect();
    if let Some(port) = ports
        .iter()
        .find(|p| p.protocol == Protocol::Sctp && !svc.internal)
    {
        return Err(LbPlanError::SctpOnPublic { port: port.port });
    }
    let shared_mode =
        target.probe_mode == ProbeMode::Shared && svc.local_health_check_node_port.is_none();
    let ha_ports = svc.rules.ha_ports && svc.internal && target.sku == LoadBalancerSku::Standard;
    let dual = svc.is_dual_stack();
    let subnet = subnet_part(svc);
    for choice in choices {
        let family = choice.family;
        let name_for = |port: &LbPort| {
            rule_name(
                &svc.base_name,
                subnet,
                port.protocol,
                port.port,
                family,
                dual,
            )
        };
        let local = match svc.local_health_check_node_port {
            Some(hc) => Some(local_probe(
                target,
                &rule_name(&svc.base_name, subnet, Protocol::Tcp, hc, family, dual),
                svc,
                hc,
            )?),
            None => None,
        };
        let probe_for = |port: &LbPort, name: &str| -> Result<Option<Probe>, LbPlanError> {
            if port.no_probe_rule {
                return Ok(None);
            }
            if let Some(own) = port_probe(target, svc, port, name, shared_mode)? {
                return Ok(Some(own));
            }
            Ok(local
                .clone()
                .map(|probe| named_local(target, probe, name))
                .or_else(|| shared_mode.then(|| shared_probe(target))))
        };
        if ha_ports {
            let (Some(first), Some(named)) = (ports.first(), svc.ports.first()) else {
                continue;
            };
            let name = name_for(named);
            let mut props = properties(target, svc, ids, &choice.name, family, first)?;
            props.protocol = Some("All".into());
            props.frontend_port = Some(0);
            props.backend_port = Some(0);
            props.enable_tcp_reset = Some(svc.rules.tcp_reset);
            let probe = if first.no_probe_rule {
                None
            } else if let Some(local) = local.clone() {
                Some(named_local(target, local, &name))
            } else if shared_mode {
                Some(shared_probe(target))
            } else {
                let mut found = None;
                for port in &ports {
                    if let Some(p) = port_probe(target, svc, port, &name, false)? {
                        found = Some(p);
                        break;
                    }
                }
                found
            };
            props.probe = probe.map(|p| use_probe(&mut wanted, ids, p));
            wanted.rules.push(rule(name, props));
            continue;
        }
        for port in &ports {
            let name = name_for(port);
            let mut props = properties(target, svc, ids, &choice.name, family, port)?;
            props.probe = probe_for(port, &name)?.map(|p| use_probe(&mut wanted, ids, p));
            wanted.rules.push(rule(name, props));
        }
    }
    Ok(wanted)
}

fn same_protocol(a: Option<&str>, b: Option<&str>) -> bool {
    a.unwrap_or("").eq_ignore_ascii_case(b.unwrap_or(""))
}

/// Upstream's rule equality: protocol, TCP reset (TCP only, absent = false), frontend, pool,
/// distribution, ports, probe, floating IP, outbound SNAT (absent = false); the idle timeout only
/// when both sides set one, so ARM's default of 4 never causes a PUT. `[infer]` ids compare
/// without ASCII case.
pub(crate) fn rule_equal(
    current: &LoadBalancingRuleProperties,
    wanted: &LoadBalancingRuleProperties,
) -> bool {
    let tcp = wanted
        .protocol
        .as_deref()
        .is_some_and(|p| p.eq_ignore_ascii_case("Tcp"));
    same_protocol(current.protocol.as_deref(), wanted.protocol.as_deref())
        && (!tcp
            || current.enable_tcp_reset.unwrap_or(false)
                == wanted.enable_tcp_reset.unwrap_or(false))
        && same_reference(
            current.frontend_ip_configuration.as_ref(),
            wanted.frontend_ip_configuration.as_ref(),
        )
        && same_reference(
            current.backend_address_pool.as_ref(),
            wanted.backend_address_pool.as_ref(),
        )
        && same_protocol(
            current.load_distribution.as_deref(),
            wanted.load_distribution.as_deref(),
        )
        && current.frontend_port == wanted.frontend_port
        && current.backend_port == wanted.backend_port
        && same_reference(current.probe.as_ref(), wanted.probe.as_ref())
        && current.enable_floating_ip.unwrap_or(false) == wanted.enable_floating_ip.unwrap_or(false)
        && current.disable_outbound_snat.unwrap_or(false)
            == wanted.disable_outbound_snat.unwrap_or(false)
        && match (
            current.idle_timeout_in_minutes,
            wanted.idle_timeout_in_minutes,
        ) {
            (Some(a), Some(b)) => a == b,
            _ => true,
        }
}

/// Rewrites the managed fields of an existing rule, keeping unknown fields.
pub(crate) fn rule_update(
    current: &mut LoadBalancingRuleProperties,
    wanted: &LoadBalancingRuleProperties,
) {
    current.frontend_ip_configuration = wanted.frontend_ip_configuration.clone();
    current.backend_address_pool = wanted.backend_address_pool.clone();
    // ARM echoes the single pool as `backendAddressPools` too; a stale copy would contradict
    // the new `backendAddressPool`, so let ARM derive it again.
    current.backend_address_pools = None;
    current.probe = wanted.probe.clone();
    current.protocol = wanted.protocol.clone();
    current.frontend_port = wanted.frontend_port;
    current.backend_port = wanted.backend_port;
    current.idle_timeout_in_minutes = wanted.idle_timeout_in_minutes;
    current.enable_floating_ip = wanted.enable_floating_ip;
    current.enable_tcp_reset = wanted.enable_tcp_reset;
    current.disable_outbound_snat = wanted.disable_outbound_snat;
    current.load_distribution = wanted.load_distribution.clone();
}
