//! `plan_remove`: what goes, what stays, and when the LB itself goes.

use crate::arm::resources::Reference;
use crate::arm::resources::load_balancer::{OutboundRule, OutboundRuleProperties};

use super::super::service_frontends;
use super::*;

#[test]
fn last_frontend_gone_deletes_the_lb() {
    let svc = service("web", UID_A, vec![tcp(80, 30080)]);
    let lb = ensure(None, &target(), &svc, &v4(pip("pip-a")));
    assert_eq!(remove(&lb, &target(), &svc), LbChange::Delete);
}

#[test]
fn removing_an_absent_service_writes_nothing() {
    let svc = service("web", UID_A, vec![tcp(80, 30080)]);
    let lb = ensure(None, &target(), &svc, &v4(pip("pip-a")));
    let stranger = service("stranger", UID_C, vec![tcp(80, 30080)]);
    assert_eq!(remove(&lb, &target(), &stranger), LbChange::Unchanged);
}

#[test]
fn frontend_used_by_an_outbound_rule_is_kept() {
    let svc = service("web", UID_A, vec![tcp(80, 30080)]);
    let mut lb = ensure(None, &target(), &svc, &v4(pip("pip-a")));
    let props = lb.properties.as_mut().expect("props");
    let fip_id = props.frontend_ip_configurations.as_ref().expect("fips")[0]
        .id
        .clone();
    props.outbound_rules = Some(vec![OutboundRule {
        name: Some("aksOutboundRule".into()),
        properties: Some(OutboundRuleProperties {
            frontend_ip_configurations: Some(vec![Reference {
                id: fip_id.map(|id| id.to_uppercase()),
                ..Default::default()
            }]),
            protocol: Some("All".into()),
            ..Default::default()
        }),
        ..Default::default()
    }]);
    let after = put(remove(&lb, &target(), &svc));
    let after_props = after.properties.as_ref().expect("props");
    assert_eq!(
        names(after_props.frontend_ip_configurations.as_ref()),
        vec![svc.base_name.clone()]
    );
    assert!(names(after_props.load_balancing_rules.as_ref()).is_empty());
    assert!(names(after_props.probes.as_ref()).is_empty());
    assert_eq!(
        names(after_props.outbound_rules.as_ref()),
        vec!["aksOutboundRule".to_string()]
    );
}

#[test]
fn shared_frontend_stays_while_the_other_service_uses_it() {
    let first = service("first", UID_A, vec![tcp(80, 30080)]);
    let second = service("second", UID_B, vec![tcp(443, 30443)]);
    let sources = v4(pip("shared-pip"));
    let lb = ensure(None, &target(), &first, &sources);
    let lb = ensure(Some(&lb), &target(), &second, &sources);

    let lb = put(remove(&lb, &target(), &first));
    let props = lb.properties.as_ref().expect("props");
    assert_eq!(
        names(props.frontend_ip_configurations.as_ref()),
        vec![first.base_name.clone()]
    );
    assert_eq!(
        names(props.load_balancing_rules.as_ref()),
        vec![format!("{}-TCP-443", second.base_name)]
    );
    assert_eq!(service_frontends(&lb, &second).len(), 1);
    assert!(
        service_frontends(&lb, &first).len() == 1,
        "still named after the first Service"
    );

    assert_eq!(remove(&lb, &target(), &second), LbChange::Delete);
}

#[test]
fn shared_probe_goes_with_its_last_user() {
    let target = LbTarget {
        probe_mode: crate::config::ProbeMode::Shared,
        ..target()
    };
    let first = service("first", UID_A, vec![tcp(80, 30080)]);
    let second = service("second", UID_B, vec![tcp(81, 30081)]);
    let lb = ensure(None, &target, &first, &v4(pip("a")));
    let lb = ensure(Some(&lb), &target, &second, &v4(pip("b")));
    let lb = put(remove(&lb, &target, &first));
    let shared = crate::loadbalancer::names::SHARED_PROBE_NAME.to_string();
    assert_eq!(
        names(lb.properties.as_ref().and_then(|p| p.probes.as_ref())),
        vec![shared]
    );
    // Switching the last user to Local drops the shared probe.
    let mut local = second.clone();
    local.local_health_check_node_port = Some(32001);
    let lb = ensure(Some(&lb), &target, &local, &v4(pip("b")));
    assert_eq!(
        names(lb.properties.as_ref().and_then(|p| p.probes.as_ref())),
        vec![format!("{}-TCP-32001", second.base_name)]
    );
}
