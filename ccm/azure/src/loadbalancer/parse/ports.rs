//! `spec.ports` with their per-port annotations (`port_<N>_*`, N = the Service port).

use ccm_names::service_annotations as sa;
use k8s_openapi::api::core::v1::{ServicePort, ServiceSpec};

use super::annotations::{Annotations, Slot};
use super::error::ServiceConfigError;
use super::probes::probe_protocol;
use crate::loadbalancer::service::{LbPort, ProbeOverrides, Protocol};

/// Every Service port, in spec order, with its per-port annotations.
pub(super) fn ports(
    a: &Annotations<'_>,
    spec: &ServiceSpec,
) -> Result<Vec<LbPort>, ServiceConfigError> {
    let given = spec.ports.as_deref().unwrap_or_default();
    given
        .iter()
        .enumerate()
        .map(|(i, p)| port(a, i, p, given))
        .collect()
}

fn port(
    a: &Annotations<'_>,
    index: usize,
    p: &ServicePort,
    all: &[ServicePort],
) -> Result<LbPort, ServiceConfigError> {
    let protocol = match p.protocol.as_deref().unwrap_or("TCP") {
        "TCP" => Protocol::Tcp,
        "UDP" => Protocol::Udp,
        "SCTP" => Protocol::Sctp,
        other => {
            return Err(ServiceConfigError::InvalidValue {
                key: format!("spec.ports[{index}].protocol"),
                value: other.to_string(),
                accepted: "`TCP`, `UDP`, `SCTP`".to_string(),
            });
        }
    };
    let number = port_number(p.port).ok_or_else(|| ServiceConfigError::InvalidValue {
        key: format!("spec.ports[{index}].port"),
        value: p.port.to_string(),
        accepted: "integer 1-65535".to_string(),
    })?;
    let node_port = match p.node_port {
        None | Some(0) => None,
        Some(n) => Some(
            port_number(n).ok_or_else(|| ServiceConfigError::InvalidValue {
                key: format!("spec.ports[{index}].nodePort"),
                value: n.to_string(),
                accepted: "integer 1-65535".to_string(),
            })?,
        ),
    };
    let probe_port = match a.get_port(sa::PORT_HEALTH_PROBE_PORT, number) {
        Some(slot) => Some(resolve_probe_port(&slot, all)?),
        None => None,
    };
    let probe = ProbeOverrides {
        protocol: a
            .get_port(sa::PORT_HEALTH_PROBE_PROTOCOL, number)
            .map(|s| probe_protocol(&s))
            .transpose()?,
        request_path: a
            .get_port(sa::PORT_HEALTH_PROBE_REQUEST_PATH, number)
            .map(|s| s.value.to_string()),
        interval_seconds: a
            .get_port(sa::PORT_HEALTH_PROBE_INTERVAL, number)
            .map(|s| s.integer())
            .transpose()?,
        number_of_probes: a
            .get_port(sa::PORT_HEALTH_PROBE_NUM_OF_PROBE, number)
            .map(|s| s.integer())
            .transpose()?,
    };
    Ok(LbPort {
        name: p.name.clone().unwrap_or_default(),
        protocol,
        port: number,
        node_port,
        app_protocol: p.app_protocol.clone(),
        no_lb_rule: a.port_flag(sa::PORT_NO_LB_RULE, number)?,
        no_probe_rule: a.port_flag(sa::PORT_NO_PROBE_RULE, number)?,
        probe_port,
        probe,
    })
}

/// A port number in 1-65535.
fn port_number(n: i32) -> Option<u16> {
    u16::try_from(n).ok().filter(|n| *n != 0)
}

/// `port_<N>_health-probe_port`, resolved like upstream: a number equal to a Service port means
/// that port's NodePort, any other number is probed as is; a port name (case-insensitive) means
/// that port's NodePort; anything else is refused.
fn resolve_probe_port(slot: &Slot<'_>, all: &[ServicePort]) -> Result<u16, ServiceConfigError> {
    let names = all
        .iter()
        .filter_map(|p| p.name.as_deref())
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let accepted = if names.is_empty() {
        "port number 1-65535".to_string()
    } else {
        format!("port number 1-65535 or a Service port name ({names})")
    };
    let target = match slot.value.parse::<i32>() {
        Ok(n) => {
            let Some(n) = port_number(n) else {
                return Err(slot.invalid_because(accepted));
            };
            match all.iter().find(|p| p.port == i32::from(n)) {
                Some(p) => p,
                None => return Ok(n),
            }
        }
        Err(_) => all
            .iter()
            .find(|p| {
                p.name
                    .as_deref()
                    .is_some_and(|name| name.eq_ignore_ascii_case(slot.value))
            })
            .ok_or_else(|| slot.invalid_because(accepted))?,
    };
    target.node_port.and_then(port_number).ok_or_else(|| {
        slot.invalid_because(
            "a Service port whose `spec.ports[].nodePort` is allocated, or another port number"
                .to_string(),
        )
    })
}
