//! Exact LB PUT bodies for the common Service shapes (reviewed against anchor-ccm.md §4.3-4.5).

use insta::assert_json_snapshot;

use crate::config::ProbeMode;
use crate::loadbalancer::service::{IpFamily, PerFamily, ProbeOverrides, ProbeProtocol, Protocol};

use super::*;

#[test]
fn public_tcp() {
    let svc = service("web", UID_A, vec![tcp(80, 30080), tcp(443, 30443)]);
    let lb = ensure(None, &target(), &svc, &v4(pip("kubernetes-a1a2b3c4d")));
    assert_json_snapshot!(lb);
}

#[test]
fn internal_with_subnet_and_pinned_ip() {
    let mut svc = service("ilb", UID_A, vec![tcp(80, 30080)]);
    svc.internal = true;
    svc.internal_subnet = Some("snet".into());
    svc.requested_ips.v4 = Some("10.0.0.10".parse().expect("ip"));
    let lb = ensure(
        None,
        &internal_target(),
        &svc,
        &v4(internal(Some("10.0.0.10"))),
    );
    assert_json_snapshot!(lb);
}

#[test]
fn external_traffic_policy_local() {
    let mut svc = service("local", UID_A, vec![tcp(80, 30080), udp(53, 30053)]);
    svc.local_health_check_node_port = Some(32000);
    let lb = ensure(None, &target(), &svc, &v4(pip("pip-local")));
    assert_json_snapshot!(lb);
}

#[test]
fn dual_stack() {
    let mut svc = service("dual", UID_A, vec![tcp(80, 30080)]);
    svc.families = vec![IpFamily::V4, IpFamily::V6];
    let sources = PerFamily {
        v4: Some(pip("pip-v4")),
        v6: Some(pip("pip-v6")),
    };
    let lb = ensure(None, &target(), &svc, &sources);
    assert_json_snapshot!(lb);
}

#[test]
fn udp_only() {
    let svc = service("dns", UID_A, vec![udp(53, 30053)]);
    let lb = ensure(None, &target(), &svc, &v4(pip("pip-dns")));
    assert_json_snapshot!(lb);
}

#[test]
fn high_availability_ports() {
    let mut svc = service("ha", UID_A, vec![tcp(80, 30080), tcp(443, 30443)]);
    svc.internal = true;
    svc.rules.ha_ports = true;
    let lb = ensure(None, &internal_target(), &svc, &v4(internal(None)));
    assert_json_snapshot!(lb);
}

#[test]
fn floating_ip_off() {
    let mut svc = service("nofip", UID_A, vec![tcp(80, 30080)]);
    svc.rules.floating_ip = false;
    let lb = ensure(None, &target(), &svc, &v4(pip("pip-nofip")));
    assert_json_snapshot!(lb);
}

#[test]
fn idle_timeout_tcp_reset_off_and_client_ip_affinity() {
    let mut svc = service("sticky", UID_A, vec![tcp(80, 30080)]);
    svc.rules.idle_timeout_minutes = Some(15);
    svc.rules.tcp_reset = false;
    svc.rules.client_ip_affinity = true;
    let lb = ensure(None, &target(), &svc, &v4(pip("pip-sticky")));
    assert_json_snapshot!(lb);
}

#[test]
fn probe_annotations() {
    let mut per_port = tcp(80, 30080);
    per_port.probe = ProbeOverrides {
        protocol: Some(ProbeProtocol::Https),
        request_path: Some("/port-path".into()),
        interval_seconds: Some(7),
        number_of_probes: Some(4),
    };
    let mut app_protocol = tcp(8080, 30808);
    app_protocol.app_protocol = Some("HTTP".into());
    let mut probe_port = tcp(9000, 30900);
    probe_port.probe_port = Some(31000);
    let mut no_probe = tcp(9100, 30910);
    no_probe.no_probe_rule = true;
    let mut no_rule = tcp(9200, 30920);
    no_rule.no_lb_rule = true;
    let mut svc = service(
        "probes",
        UID_A,
        vec![per_port, app_protocol, probe_port, no_probe, no_rule],
    );
    svc.probe = ProbeOverrides {
        protocol: Some(ProbeProtocol::Http),
        request_path: Some("/svc-path".into()),
        interval_seconds: Some(10),
        number_of_probes: Some(3),
    };
    let lb = ensure(None, &target(), &svc, &v4(pip("pip-probes")));
    assert_json_snapshot!(lb);
}

#[test]
fn shared_ip_between_two_services() {
    let first = service("first", UID_A, vec![tcp(80, 30080)]);
    let mut second = service("second", UID_B, vec![tcp(443, 30443)]);
    second.public_ip.names.v4 = Some("shared-pip".into());
    let sources = v4(pip("shared-pip"));
    let lb = ensure(None, &target(), &first, &sources);
    let lb = ensure(Some(&lb), &target(), &second, &sources);
    assert_eq!(
        names(
            lb.properties
                .as_ref()
                .and_then(|p| p.frontend_ip_configurations.as_ref())
        ),
        vec![first.base_name.clone()],
        "the second Service reuses the first one's frontend"
    );
    assert_eq!(super::super::service_frontends(&lb, &second).len(), 1);
    assert_json_snapshot!(lb);
}

#[test]
fn shared_probe_mode() {
    let target = LbTarget {
        probe_mode: ProbeMode::Shared,
        ..target()
    };
    let first = service("first", UID_A, vec![tcp(80, 30080), udp(53, 30053)]);
    let second = service("second", UID_B, vec![tcp(8080, 30808)]);
    let lb = ensure(None, &target, &first, &v4(pip("pip-a")));
    let lb = ensure(Some(&lb), &target, &second, &v4(pip("pip-b")));
    assert_json_snapshot!(lb);
}

#[test]
fn sctp_on_internal_uses_transport_all_without_probe() {
    let mut port = tcp(5000, 30500);
    port.protocol = Protocol::Sctp;
    let mut svc = service("sctp", UID_A, vec![port]);
    svc.internal = true;
    let lb = ensure(None, &internal_target(), &svc, &v4(internal(None)));
    assert_json_snapshot!(lb);
}
