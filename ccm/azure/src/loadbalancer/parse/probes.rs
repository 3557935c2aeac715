//! Health-probe settings: the Service-wide overrides and the combined duration rule
//! (interval x count below 120 s) checked for every probe upstream would build.

use ccm_names::service_annotations as sa;

use super::annotations::{Annotations, Slot};
use super::error::ServiceConfigError;
use crate::config::ProbeMode;
use crate::loadbalancer::service::{LbPort, ProbeOverrides, ProbeProtocol, Protocol};

/// Default probe interval, seconds (anchor-ccm.md §4.5).
pub const DEFAULT_INTERVAL_SECONDS: i64 = 5;
/// Default probe count (anchor-ccm.md §4.5).
pub const DEFAULT_NUMBER_OF_PROBES: i64 = 2;
/// Interval x count must stay below this (seconds).
pub const MAX_TOTAL_SECONDS: i64 = 120;

/// A probe-protocol annotation (`Tcp`/`Http`/`Https`, case-insensitive, trimmed).
pub(super) fn probe_protocol(slot: &Slot<'_>) -> Result<ProbeProtocol, ServiceConfigError> {
    Ok(match slot.one_of()? {
        "Http" => ProbeProtocol::Http,
        "Https" => ProbeProtocol::Https,
        _ => ProbeProtocol::Tcp,
    })
}

/// `azure-load-balancer-health-probe-*`.
pub(super) fn service_probe(a: &Annotations<'_>) -> Result<ProbeOverrides, ServiceConfigError> {
    Ok(ProbeOverrides {
        protocol: a
            .get(sa::HEALTH_PROBE_PROTOCOL)
            .map(|s| probe_protocol(&s))
            .transpose()?,
        request_path: a
            .get(sa::HEALTH_PROBE_REQUEST_PATH)
            .map(|s| s.value.to_string()),
        interval_seconds: a
            .get(sa::HEALTH_PROBE_INTERVAL)
            .map(|s| s.integer())
            .transpose()?,
        number_of_probes: a
            .get(sa::HEALTH_PROBE_NUM_OF_PROBE)
            .map(|s| s.integer())
            .transpose()?,
    })
}

/// Which probes upstream builds, hence which get the combined duration check.
pub(super) struct ProbedPorts<'p> {
    /// `externalTrafficPolicy: Local`: the healthCheckNodePort probe.
    pub local_health_check_node_port: Option<u16>,
    /// Cluster-policy probe mode from the config.
    pub mode: ProbeMode,
    /// The Service's ports.
    pub ports: &'p [LbPort],
}

impl ProbedPorts<'_> {
    /// Port numbers whose probe upstream builds: the healthCheckNodePort for Local Services
    /// (per-port keys are then looked up under that number), else each TCP port with a rule and
    /// a probe unless the shared probe is used; with Local, a port with an explicit
    /// `health-probe_port` still gets its own probe.
    fn probed(&self) -> Vec<u16> {
        let mut out = Vec::new();
        if let Some(h) = self.local_health_check_node_port {
            out.push(h);
        }
        let shared = self.local_health_check_node_port.is_none() && self.mode == ProbeMode::Shared;
        if shared {
            return out;
        }
        for p in self.ports {
            let gets_probe = p.protocol == Protocol::Tcp && !p.no_lb_rule && !p.no_probe_rule;
            let own = self.local_health_check_node_port.is_none() || p.probe_port.is_some();
            if gets_probe && own && !out.contains(&p.port) {
                out.push(p.port);
            }
        }
        out
    }
}

/// Checks interval x count < 120 s for every probe that will be built, with each value taken
/// from the port's annotation, else the Service-wide one, else the default.
pub(super) fn check_durations(
    a: &Annotations<'_>,
    probed: &ProbedPorts<'_>,
    service: &ProbeOverrides,
) -> Result<(), ServiceConfigError> {
    for port in probed.probed() {
        let (interval, interval_from) = effective(
            a,
            sa::PORT_HEALTH_PROBE_INTERVAL,
            sa::HEALTH_PROBE_INTERVAL,
            port,
            service.interval_seconds,
            DEFAULT_INTERVAL_SECONDS,
        )?;
        let (count, count_from) = effective(
            a,
            sa::PORT_HEALTH_PROBE_NUM_OF_PROBE,
            sa::HEALTH_PROBE_NUM_OF_PROBE,
            port,
            service.number_of_probes,
            DEFAULT_NUMBER_OF_PROBES,
        )?;
        let total = interval.saturating_mul(count);
        if total >= MAX_TOTAL_SECONDS {
            let key = match (&interval_from, &count_from) {
                (Some(k), _) | (None, Some(k)) => k.clone(),
                (None, None) => sa::HEALTH_PROBE_INTERVAL.to_string(),
            };
            let from = |s: Option<String>| s.unwrap_or_else(|| "default".to_string());
            return Err(ServiceConfigError::ProbeTooLong {
                key,
                port,
                interval,
                interval_from: from(interval_from),
                count,
                count_from: from(count_from),
                total,
            });
        }
    }
    Ok(())
}

/// The value for `port`: its own annotation, else the Service-wide one, else `default`; with the
/// key it came from (`None` = default).
fn effective(
    a: &Annotations<'_>,
    template: &'static str,
    wide_key: &'static str,
    port: u16,
    wide: Option<i64>,
    default: i64,
) -> Result<(i64, Option<String>), ServiceConfigError> {
    if let Some(slot) = a.get_port(template, port) {
        return Ok((slot.integer()?, Some(slot.key.to_string())));
    }
    Ok(match wide {
        Some(v) => (v, Some(wide_key.to_string())),
        None => (default, None),
    })
}
