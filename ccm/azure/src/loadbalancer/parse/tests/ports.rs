//! Ports, per-port annotations, rule switches, SCTP/HA limits and probe settings.

use ccm_names::service_annotations as sa;
use serde_json::{Value, json};

use super::super::{ParseContext, ServiceConfigError, parse_service};
use super::{Pairs, STANDARD, err, ok, service};
use crate::config::{LoadBalancerSku, ProbeMode};
use crate::loadbalancer::service::{ProbeProtocol, Protocol};

const BASIC: ParseContext = ParseContext {
    sku: LoadBalancerSku::Basic,
    probe_mode: ProbeMode::ServiceNodePort,
};
const SHARED: ParseContext = ParseContext {
    sku: LoadBalancerSku::Standard,
    probe_mode: ProbeMode::Shared,
};

fn two_ports() -> Value {
    json!({"ports": [
        {"name": "http", "protocol": "TCP", "port": 80, "nodePort": 30080, "appProtocol": "http"},
        {"name": "dns", "protocol": "UDP", "port": 53, "nodePort": 30053}
    ]})
}

fn key80(template: &str) -> String {
    template.replace(sa::PORT_PLACEHOLDER, "80")
}

#[test]
fn ports_carry_protocol_numbers_app_protocol_and_per_port_switches() {
    let no_lb = key80(sa::PORT_NO_LB_RULE);
    let no_probe = sa::PORT_NO_PROBE_RULE.replace(sa::PORT_PLACEHOLDER, "53");
    let p = ok(&[(&no_lb, "true"), (&no_probe, "TRUE")], two_ports()).service;
    assert_eq!(p.ports.len(), 2);
    let (http, dns) = (&p.ports[0], &p.ports[1]);
    assert_eq!(
        (http.name.as_str(), http.protocol, http.port, http.node_port),
        ("http", Protocol::Tcp, 80, Some(30080))
    );
    assert_eq!(http.app_protocol.as_deref(), Some("http"));
    assert!(http.no_lb_rule && !http.no_probe_rule);
    assert_eq!((dns.protocol, dns.port), (Protocol::Udp, 53));
    assert!(!dns.no_lb_rule && dns.no_probe_rule);
}

#[test]
fn unallocated_node_ports_are_none_and_bad_spec_ports_are_refused() {
    let p = ok(&[], json!({"ports": [{"port": 80}]})).service;
    assert_eq!(
        (p.ports[0].protocol, p.ports[0].node_port),
        (Protocol::Tcp, None)
    );
    for (spec, key) in [
        (json!({"ports": [{"port": 0}]}), "spec.ports[0].port"),
        (json!({"ports": [{"port": 70000}]}), "spec.ports[0].port"),
        (
            json!({"ports": [{"port": 80, "protocol": "ICMP"}]}),
            "spec.ports[0].protocol",
        ),
        (
            json!({"ports": [{"port": 80, "nodePort": -1}]}),
            "spec.ports[0].nodePort",
        ),
    ] {
        assert_eq!(err(&[], spec.clone()).key(), key, "{spec}");
    }
}

#[test]
fn per_port_probe_overrides_are_parsed_per_port() {
    let p = ok(
        &[
            (&key80(sa::PORT_HEALTH_PROBE_PROTOCOL), "https"),
            (&key80(sa::PORT_HEALTH_PROBE_REQUEST_PATH), "/ready"),
            (&key80(sa::PORT_HEALTH_PROBE_INTERVAL), "10"),
            (&key80(sa::PORT_HEALTH_PROBE_NUM_OF_PROBE), "3"),
        ],
        two_ports(),
    )
    .service;
    let probe = &p.ports[0].probe;
    assert_eq!(probe.protocol, Some(ProbeProtocol::Https));
    assert_eq!(probe.request_path.as_deref(), Some("/ready"));
    assert_eq!(
        (probe.interval_seconds, probe.number_of_probes),
        (Some(10), Some(3))
    );
    assert_eq!(p.ports[1].probe, Default::default());
}

#[test]
fn probe_port_resolves_numbers_and_names_like_upstream() {
    let key = key80(sa::PORT_HEALTH_PROBE_PORT);
    for (value, expected) in [
        // A Service port number or name means that port's NodePort.
        ("53", Some(30053)),
        ("80", Some(30080)),
        ("dns", Some(30053)),
        ("DNS", Some(30053)),
        // Any other number is probed as is.
        ("10256", Some(10256)),
        ("0", None),
        ("65536", None),
        ("metrics", None),
        ("", None),
    ] {
        let a = [(key.as_str(), value)];
        match expected {
            Some(n) => assert_eq!(
                ok(&a, two_ports()).service.ports[0].probe_port,
                Some(n),
                "{value:?}"
            ),
            None => assert_eq!(err(&a, two_ports()).key(), key, "{value:?}"),
        }
    }
}

#[test]
fn probe_port_naming_a_port_without_node_port_is_refused() {
    let key = key80(sa::PORT_HEALTH_PROBE_PORT);
    let spec = json!({"ports": [{"name": "http", "port": 80, "nodePort": 30080}, {"name": "m", "port": 9000}]});
    let e = err(&[(key.as_str(), "m")], spec);
    assert_eq!(e.key(), key);
    assert!(e.to_string().contains("nodePort"), "{e}");
}

#[test]
fn rule_switches() {
    let p = ok(&[], json!({})).service.rules;
    assert!(p.floating_ip && p.tcp_reset && !p.ha_ports && !p.client_ip_affinity);
    assert_eq!(p.idle_timeout_minutes, None);
    let p = ok(
        &[
            (sa::DISABLE_FLOATING_IP, "true"),
            (sa::DISABLE_TCP_RESET, "true"),
            (sa::TCP_IDLE_TIMEOUT, "30"),
        ],
        json!({"sessionAffinity": "ClientIP"}),
    )
    .service
    .rules;
    assert!(!p.floating_ip && !p.tcp_reset && p.client_ip_affinity);
    assert_eq!(p.idle_timeout_minutes, Some(30));
    let basic = parse_service(&service(&[], json!({})), &BASIC).expect("basic parses");
    assert!(!basic.service.rules.tcp_reset, "no TCP reset on basic SKU");
}

#[test]
fn ha_ports_take_effect_only_on_internal_standard_load_balancers() {
    let internal_ha = [(sa::INTERNAL, "true"), (sa::ENABLE_HA_PORTS, "true")];
    let svc = service(&internal_ha, json!({}));
    for (annotations, ctx, expected) in [
        (&internal_ha[..], STANDARD, true),
        (&internal_ha[1..], STANDARD, false),
        (&internal_ha[..], BASIC, false),
    ] {
        let svc_here = service(annotations, json!({}));
        let got = parse_service(&svc_here, &ctx)
            .expect("parses")
            .service
            .rules
            .ha_ports;
        assert_eq!(got, expected, "{annotations:?} {:?}", ctx.sku);
    }
    assert!(parse_service(&svc, &STANDARD).is_ok());
}

#[test]
fn sctp_needs_an_internal_standard_load_balancer() {
    let sctp = json!({"ports": [{"port": 80, "nodePort": 30080}, {"port": 3868, "protocol": "SCTP", "nodePort": 31868}]});
    let internal = [(sa::INTERNAL, "true")];
    let e = err(&[], sctp.clone());
    assert_eq!(e.key(), "spec.ports[1].protocol");
    assert!(matches!(e, ServiceConfigError::Unsupported { .. }));
    let on_basic = parse_service(&service(&internal, sctp.clone()), &BASIC);
    assert_eq!(
        on_basic.expect_err("basic refuses SCTP").key(),
        "spec.ports[1].protocol"
    );
    let p = ok(&internal, sctp.clone()).service;
    assert_eq!(p.ports[1].protocol, Protocol::Sctp);
    // A port without a rule is not refused.
    let no_rule = sa::PORT_NO_LB_RULE.replace(sa::PORT_PLACEHOLDER, "3868");
    let p = ok(&[(no_rule.as_str(), "true")], sctp).service;
    assert!(p.ports[1].no_lb_rule);
}

#[test]
fn local_traffic_policy_takes_the_health_check_node_port() {
    let p = ok(
        &[],
        json!({"externalTrafficPolicy": "Local", "healthCheckNodePort": 32000}),
    );
    assert_eq!(p.service.local_health_check_node_port, Some(32000));
    assert_eq!(
        ok(
            &[],
            json!({"externalTrafficPolicy": "Cluster", "healthCheckNodePort": 32000})
        )
        .service
        .local_health_check_node_port,
        None
    );
    assert_eq!(
        err(&[], json!({"externalTrafficPolicy": "Local"})).key(),
        "spec.healthCheckNodePort"
    );
}

#[test]
fn probe_interval_times_count_must_stay_below_120_seconds() {
    let i80 = key80(sa::PORT_HEALTH_PROBE_INTERVAL);
    let n80 = key80(sa::PORT_HEALTH_PROBE_NUM_OF_PROBE);
    let n53 = sa::PORT_HEALTH_PROBE_NUM_OF_PROBE.replace(sa::PORT_PLACEHOLDER, "53");
    let cases: Vec<(Pairs, Option<&str>)> = vec![
        (vec![(sa::HEALTH_PROBE_INTERVAL, "59")], None),
        (
            vec![(sa::HEALTH_PROBE_INTERVAL, "60")],
            Some(sa::HEALTH_PROBE_INTERVAL),
        ),
        (
            vec![(sa::HEALTH_PROBE_NUM_OF_PROBE, "24")],
            Some(sa::HEALTH_PROBE_NUM_OF_PROBE),
        ),
        (vec![(sa::HEALTH_PROBE_NUM_OF_PROBE, "23")], None),
        // The port's own value combines with the Service-wide other one.
        (
            vec![(sa::HEALTH_PROBE_INTERVAL, "20"), (n80.as_str(), "6")],
            Some(sa::HEALTH_PROBE_INTERVAL),
        ),
        (
            vec![(i80.as_str(), "20"), (sa::HEALTH_PROBE_NUM_OF_PROBE, "6")],
            Some(i80.as_str()),
        ),
        // The port's value replaces the Service-wide one.
        (
            vec![(sa::HEALTH_PROBE_INTERVAL, "60"), (i80.as_str(), "5")],
            None,
        ),
        // UDP ports get no probe, so their combination is not checked.
        (
            vec![(sa::HEALTH_PROBE_INTERVAL, "20"), (n53.as_str(), "6")],
            None,
        ),
    ];
    for (annotations, refused_key) in cases {
        match refused_key {
            None => {
                ok(&annotations, two_ports());
            }
            Some(key) => {
                let e = err(&annotations, two_ports());
                assert!(matches!(e, ServiceConfigError::ProbeTooLong { .. }), "{e}");
                assert_eq!(e.key(), key, "{annotations:?}");
            }
        }
    }
}

#[test]
fn probes_that_are_not_built_are_not_checked_for_duration() {
    let interval = [(sa::HEALTH_PROBE_INTERVAL, "60")];
    // Shared probe mode: cluster-policy Services use the shared probe.
    assert!(parse_service(&service(&interval, json!({})), &SHARED).is_ok());
    // No probe rule / no LB rule on the only TCP port.
    for switch in [sa::PORT_NO_PROBE_RULE, sa::PORT_NO_LB_RULE] {
        let k = key80(switch);
        ok(&[interval[0], (&k, "true")], json!({}));
    }
    // Local: the healthCheckNodePort probe is checked, even in shared mode.
    let local = json!({"externalTrafficPolicy": "Local", "healthCheckNodePort": 32000});
    let e = parse_service(&service(&interval, local.clone()), &SHARED).expect_err("local probe");
    assert!(
        matches!(e, ServiceConfigError::ProbeTooLong { port: 32000, .. }),
        "{e}"
    );
    // ...with per-port values looked up under the healthCheckNodePort.
    let i32000 = sa::PORT_HEALTH_PROBE_INTERVAL.replace(sa::PORT_PLACEHOLDER, "32000");
    ok(&[interval[0], (&i32000, "5")], local);
}

#[test]
fn probe_minimums_apply_to_each_annotation() {
    for (key, value) in [
        (sa::HEALTH_PROBE_INTERVAL.to_string(), "4"),
        (sa::HEALTH_PROBE_NUM_OF_PROBE.to_string(), "1"),
        (key80(sa::PORT_HEALTH_PROBE_INTERVAL), "4"),
        (key80(sa::PORT_HEALTH_PROBE_NUM_OF_PROBE), "1"),
    ] {
        let e = err(&[(key.as_str(), value)], json!({}));
        assert!(matches!(e, ServiceConfigError::InvalidValue { .. }), "{e}");
        assert_eq!(e.key(), key);
    }
}
