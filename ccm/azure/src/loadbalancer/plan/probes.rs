//! Health probes (anchor-ccm.md §4.5; upstream `azure_loadbalancer_healthprobe.go`): the
//! `externalTrafficPolicy: Local` probe, per-port probes with their protocol / port / path /
//! interval / threshold precedence, the shared cluster probe, and when two probes are "equal"
//! (upstream's `findProbe`: name, port, protocol, path, interval, threshold).

use crate::arm::resources::load_balancer::{Probe, ProbeProperties};
use crate::config::LoadBalancerSku;
use crate::loadbalancer::names::SHARED_PROBE_NAME;
use crate::loadbalancer::service::{LbPort, LbService, ProbeOverrides, ProbeProtocol, Protocol};

use super::{LbPlanError, LbTarget};

/// Probe interval when no annotation sets one (`HealthProbeDefaultProbeInterval`).
pub(crate) const DEFAULT_INTERVAL_SECONDS: i64 = 5;
/// Probe threshold when no annotation sets one (`HealthProbeDefaultNumOfProbe`).
pub(crate) const DEFAULT_THRESHOLD: i64 = 2;
/// Path of HTTP(S) probes without a path annotation.
pub(crate) const DEFAULT_REQUEST_PATH: &str = "/";
/// kube-proxy's health path, probed for `externalTrafficPolicy: Local`.
pub(crate) const LOCAL_REQUEST_PATH: &str = "/healthz";

fn probe(name: &str, props: ProbeProperties) -> Probe {
    Probe {
        name: Some(name.to_string()),
        properties: Some(props),
        ..Default::default()
    }
}

/// Moves the threshold to `numberOfProbes` when reproducing the in-tree provider (its network
/// API version had no `probeThreshold`).
fn threshold_field(target: &LbTarget, mut probe: Probe) -> Probe {
    if target.in_tree.number_of_probes_field
        && let Some(props) = probe.properties.as_mut()
    {
        props.number_of_probes = props.probe_threshold.take();
    }
    probe
}

/// Interval and threshold: port annotation > Service annotation > default; interval × count
/// must stay under 120 s.
fn timing(
    port: Option<&ProbeOverrides>,
    svc: &ProbeOverrides,
    port_number: u16,
) -> Result<(i64, i64), LbPlanError> {
    let interval = port
        .and_then(|p| p.interval_seconds)
        .or(svc.interval_seconds)
        .unwrap_or(DEFAULT_INTERVAL_SECONDS);
    let threshold = port
        .and_then(|p| p.number_of_probes)
        .or(svc.number_of_probes)
        .unwrap_or(DEFAULT_THRESHOLD);
    if interval.saturating_mul(threshold) >= 120 {
        return Err(LbPlanError::ProbeTooLong {
            port: port_number,
            interval,
            threshold,
        });
    }
    Ok((interval, threshold))
}

/// HTTP probe on the health-check NodePort for `externalTrafficPolicy: Local`.
pub(crate) fn local_probe(
    target: &LbTarget,
    name: &str,
    svc: &LbService,
    port: u16,
) -> Result<Probe, LbPlanError> {
    let (interval, threshold) = timing(None, &svc.probe, port)?;
    Ok(threshold_field(
        target,
        probe(
            name,
            ProbeProperties {
                protocol: Some(ProbeProtocol::Http.arm().into()),
                port: Some(i64::from(port)),
                request_path: Some(LOCAL_REQUEST_PATH.into()),
                interval_in_seconds: Some(interval),
                probe_threshold: Some(threshold),
                ..Default::default()
            },
        ),
    ))
}

/// The probe every `Cluster` Service shares in `shared` probe mode (kube-proxy's health port).
pub(crate) fn shared_probe(target: &LbTarget) -> Probe {
    threshold_field(
        target,
        probe(
            SHARED_PROBE_NAME,
            ProbeProperties {
                protocol: Some(ProbeProtocol::Http.arm().into()),
                port: Some(i64::from(target.shared_probe_port)),
                request_path: Some(target.shared_probe_path.clone()),
                interval_in_seconds: Some(DEFAULT_INTERVAL_SECONDS),
                probe_threshold: Some(DEFAULT_THRESHOLD),
                ..Default::default()
            },
        ),
    )
}

/// Probe protocol of a port: port annotation > `appProtocol` > Service annotation > Tcp; an
/// unknown `appProtocol` means Tcp; Https falls back to Tcp on basic SKU. Reproducing the
/// in-tree provider, `appProtocol` is not read.
fn probe_protocol(target: &LbTarget, svc: &LbService, port: &LbPort) -> ProbeProtocol {
    let app_protocol = port
        .app_protocol
        .as_deref()
        .filter(|_| !target.in_tree.tcp_probe_for_app_protocol);
    let chosen = port.probe.protocol.or_else(|| match app_protocol {
        Some(app) => Some(match app.trim() {
            a if a.eq_ignore_ascii_case("http") => ProbeProtocol::Http,
            a if a.eq_ignore_ascii_case("https") => ProbeProtocol::Https,
            _ => ProbeProtocol::Tcp,
        }),
        None => svc.probe.protocol,
    });
    match chosen.unwrap_or(ProbeProtocol::Tcp) {
        ProbeProtocol::Https if target.sku == LoadBalancerSku::Basic => ProbeProtocol::Tcp,
        other => other,
    }
}

/// The probe of one port of a `Cluster` Service (or a `Local` one whose port overrides the probe
/// port); `None` for UDP / SCTP ports, for `Local` ports without override (they use the Local
/// probe) and in shared probe mode.
pub(crate) fn port_probe(
    target: &LbTarget,
    svc: &LbService,
    port: &LbPort,
    name: &str,
    shared_mode: bool,
) -> Result<Option<Probe>, LbPlanError> {
    if shared_mode || port.protocol != Protocol::Tcp {
        return Ok(None);
    }
    let probed = match (port.probe_port, svc.local_health_check_node_port) {
        (Some(p), _) => p,
        (None, Some(_)) => return Ok(None),
        (None, None) => port
            .node_port
            .ok_or(LbPlanError::MissingNodePort { port: port.port })?,
    };
    let protocol = probe_protocol(target, svc, port);
    let request_path = (protocol != ProbeProtocol::Tcp).then(|| {
        port.probe
            .request_path
            .clone()
            .or_else(|| svc.probe.request_path.clone())
            .unwrap_or_else(|| {
                let default = if target.in_tree.healthz_probe_path {
                    LOCAL_REQUEST_PATH
                } else {
                    DEFAULT_REQUEST_PATH
                };
                default.to_string()
            })
    });
    let (interval, threshold) = timing(Some(&port.probe), &svc.probe, port.port)?;
    Ok(Some(threshold_field(
        target,
        probe(
            name,
            ProbeProperties {
                protocol: Some(protocol.arm().into()),
                port: Some(i64::from(probed)),
                request_path,
                interval_in_seconds: Some(interval),
                probe_threshold: Some(threshold),
                ..Default::default()
            },
        ),
    )))
}

fn same_text(a: Option<&str>, b: Option<&str>) -> bool {
    a.unwrap_or("").eq_ignore_ascii_case(b.unwrap_or(""))
}

/// Upstream's `findProbe` on properties. `[infer]` a document written with `numberOfProbes` only
/// (the in-tree provider) counts as having that threshold, so adopting it causes no PUT.
pub(crate) fn probe_equal(current: &ProbeProperties, wanted: &ProbeProperties) -> bool {
    current.port == wanted.port
        && same_text(current.protocol.as_deref(), wanted.protocol.as_deref())
        && same_text(
            current.request_path.as_deref(),
            wanted.request_path.as_deref(),
        )
        && current.interval_in_seconds.unwrap_or(0) == wanted.interval_in_seconds.unwrap_or(0)
        && current
            .probe_threshold
            .or(current.number_of_probes)
            .unwrap_or(0)
            == wanted
                .probe_threshold
                .or(wanted.number_of_probes)
                .unwrap_or(0)
}

/// Rewrites the managed fields of an existing probe, keeping unknown fields.
pub(crate) fn probe_update(current: &mut ProbeProperties, wanted: &ProbeProperties) {
    current.protocol = wanted.protocol.clone();
    current.port = wanted.port;
    current.request_path = wanted.request_path.clone();
    current.interval_in_seconds = wanted.interval_in_seconds;
    current.probe_threshold = wanted.probe_threshold;
    current.number_of_probes = wanted.number_of_probes;
}
