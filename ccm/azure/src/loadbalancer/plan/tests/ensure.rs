//! `plan_ensure` behaviours beyond the first write: updates, stale children, replacements,
//! conflicts and errors.

use crate::arm::resources::Reference;
use crate::arm::resources::load_balancer::{LoadBalancingRule, LoadBalancingRuleProperties};
use crate::loadbalancer::service::{IpFamily, PerFamily, Protocol};

use super::super::LbPlanError;
use super::*;

fn rules_of(lb: &LoadBalancer) -> Vec<String> {
    names(
        lb.properties
            .as_ref()
            .and_then(|p| p.load_balancing_rules.as_ref()),
    )
}

fn probes_of(lb: &LoadBalancer) -> Vec<String> {
    names(lb.properties.as_ref().and_then(|p| p.probes.as_ref()))
}

fn frontends_of(lb: &LoadBalancer) -> Vec<String> {
    names(
        lb.properties
            .as_ref()
            .and_then(|p| p.frontend_ip_configurations.as_ref()),
    )
}

#[test]
fn removed_port_drops_its_rule_and_probe_only() {
    let other = service("other", UID_B, vec![tcp(80, 31080)]);
    let lb = ensure(None, &target(), &other, &v4(pip("pip-b")));
    let svc = service("web", UID_A, vec![tcp(80, 30080), tcp(443, 30443)]);
    let lb = ensure(Some(&lb), &target(), &svc, &v4(pip("pip-a")));
    let fewer = service("web", UID_A, vec![tcp(80, 30080)]);
    let lb = ensure(Some(&lb), &target(), &fewer, &v4(pip("pip-a")));
    let base = &fewer.base_name;
    let b = &other.base_name;
    assert_eq!(
        rules_of(&lb),
        vec![format!("{b}-TCP-80"), format!("{base}-TCP-80")]
    );
    assert_eq!(
        probes_of(&lb),
        vec![format!("{b}-TCP-80"), format!("{base}-TCP-80")]
    );
}

#[test]
fn changed_node_port_rewrites_the_probe_in_place() {
    let svc = service("web", UID_A, vec![tcp(80, 30080), tcp(443, 30443)]);
    let lb = ensure(None, &target(), &svc, &v4(pip("pip-a")));
    let moved = service("web", UID_A, vec![tcp(80, 30081), tcp(443, 30443)]);
    let after = ensure(Some(&lb), &target(), &moved, &v4(pip("pip-a")));
    assert_eq!(probes_of(&after), probes_of(&lb), "order kept");
    let port = after
        .properties
        .as_ref()
        .and_then(|p| p.probes.as_ref())
        .expect("probes")[0]
        .properties
        .as_ref()
        .and_then(|p| p.port);
    assert_eq!(port, Some(30081));
}

#[test]
fn family_removed_drops_its_frontend_rules_and_probes() {
    let mut svc = service("dual", UID_A, vec![tcp(80, 30080)]);
    svc.families = vec![IpFamily::V4, IpFamily::V6];
    let sources = PerFamily {
        v4: Some(pip("pip-v4")),
        v6: Some(pip("pip-v6")),
    };
    let lb = ensure(None, &target(), &svc, &sources);
    svc.families = vec![IpFamily::V4];
    let lb = ensure(Some(&lb), &target(), &svc, &v4(pip("pip-v4")));
    let base = &svc.base_name;
    assert_eq!(frontends_of(&lb), vec![base.clone()]);
    assert_eq!(rules_of(&lb), vec![format!("{base}-TCP-80")]);
    assert_eq!(probes_of(&lb), vec![format!("{base}-TCP-80")]);
}

#[test]
fn changed_pip_replaces_the_frontend() {
    let svc = service("web", UID_A, vec![tcp(80, 30080)]);
    let lb = ensure(None, &target(), &svc, &v4(pip("old")));
    let lb = ensure(Some(&lb), &target(), &svc, &v4(pip("new")));
    let fip = &lb
        .properties
        .as_ref()
        .and_then(|p| p.frontend_ip_configurations.as_ref())
        .expect("fips")[0];
    let pip_ref = fip
        .properties
        .as_ref()
        .and_then(|p| p.public_ip_address.as_ref());
    assert_eq!(pip_ref.and_then(|r| r.id.clone()), Some(pip_id("new")));
}

#[test]
fn unpinning_an_internal_ip_makes_the_frontend_dynamic() {
    let mut svc = service("ilb", UID_A, vec![tcp(80, 30080)]);
    svc.internal = true;
    let lb = ensure(
        None,
        &internal_target(),
        &svc,
        &v4(internal(Some("10.0.0.7"))),
    );
    let lb = ensure(Some(&lb), &internal_target(), &svc, &v4(internal(None)));
    let fip = &lb
        .properties
        .as_ref()
        .and_then(|p| p.frontend_ip_configurations.as_ref())
        .expect("fips")[0];
    let props = fip.properties.as_ref().expect("props");
    assert_eq!(
        props.private_ip_allocation_method.as_deref(),
        Some("Dynamic")
    );
    assert_eq!(props.private_ip_address, None);
}

#[test]
fn subnet_annotation_change_moves_to_a_new_frontend() {
    let mut svc = service("ilb", UID_A, vec![tcp(80, 30080)]);
    svc.internal = true;
    let lb = ensure(None, &internal_target(), &svc, &v4(internal(None)));
    svc.internal_subnet = Some("snet".into());
    let lb = ensure(Some(&lb), &internal_target(), &svc, &v4(internal(None)));
    let base = &svc.base_name;
    assert_eq!(frontends_of(&lb), vec![format!("{base}-snet")]);
    assert_eq!(rules_of(&lb), vec![format!("{base}-snet-TCP-80")]);
}

#[test]
fn another_owners_rule_on_the_same_port_is_a_conflict() {
    let svc = service("web", UID_A, vec![tcp(80, 30080)]);
    let mut lb = ensure(None, &target(), &svc, &v4(pip("pip-a")));
    let props = lb.properties.as_mut().expect("props");
    let fip_id = props.frontend_ip_configurations.as_ref().expect("fips")[0]
        .id
        .clone();
    props.load_balancing_rules = Some(vec![LoadBalancingRule {
        name: Some("user-rule".into()),
        properties: Some(LoadBalancingRuleProperties {
            frontend_ip_configuration: Some(Reference {
                id: fip_id,
                ..Default::default()
            }),
            protocol: Some("Tcp".into()),
            frontend_port: Some(80),
            backend_port: Some(80),
            ..Default::default()
        }),
        ..Default::default()
    }]);
    let err = plan_ensure(Some(&lb), &target(), &svc, &v4(pip("pip-a"))).expect_err("conflict");
    assert_eq!(
        err,
        LbPlanError::RuleConflict {
            rule: format!("{}-TCP-80", svc.base_name),
            other: "user-rule".into(),
        }
    );
    assert!(err.to_string().contains("user-rule"));
}

#[test]
fn sctp_on_a_public_service_is_refused() {
    let mut port = tcp(5000, 30500);
    port.protocol = Protocol::Sctp;
    let svc = service("sctp", UID_A, vec![port]);
    let err = plan_ensure(None, &target(), &svc, &v4(pip("p"))).expect_err("refused");
    assert_eq!(err, LbPlanError::SctpOnPublic { port: 5000 });
}

#[test]
fn a_wanted_family_without_source_is_an_error() {
    let svc = service("web", UID_A, vec![tcp(80, 30080)]);
    let err = plan_ensure(None, &target(), &svc, &PerFamily::default()).expect_err("no source");
    assert_eq!(
        err,
        LbPlanError::MissingFrontendSource {
            family: IpFamily::V4
        }
    );
}

#[test]
fn floating_ip_off_without_node_port_is_an_error() {
    let mut port = tcp(80, 30080);
    port.node_port = None;
    let mut svc = service("web", UID_A, vec![port]);
    svc.rules.floating_ip = false;
    let err = plan_ensure(None, &target(), &svc, &v4(pip("p"))).expect_err("no node port");
    assert_eq!(err, LbPlanError::MissingNodePort { port: 80 });
}

#[test]
fn configured_tags_are_added_to_an_existing_lb_once() {
    let svc = service("web", UID_A, vec![tcp(80, 30080)]);
    let lb = ensure(None, &target(), &svc, &v4(pip("pip-a")));
    let mut tagged = target();
    tagged.tags.insert("team".into(), "net".into());
    let lb = ensure(Some(&lb), &tagged, &svc, &v4(pip("pip-a")));
    assert_eq!(
        lb.tags
            .as_ref()
            .and_then(|t| t.get("team"))
            .map(String::as_str),
        Some("net")
    );
}

#[test]
fn system_tags_keep_their_prefixes_and_drop_other_unconfigured_tags() {
    let svc = service("web", UID_A, vec![tcp(80, 30080)]);
    let mut lb = ensure(None, &target(), &svc, &v4(pip("pip-a")));
    lb.tags = Some(
        [("aks-managed-x", "1"), ("stray", "2")]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    );
    let mut tagged = target();
    tagged.tags.insert("team".into(), "net".into());
    tagged.system_tags = vec!["aks-managed".into()];
    let lb = ensure(Some(&lb), &tagged, &svc, &v4(pip("pip-a")));
    let keys: Vec<&str> = lb.tags.iter().flatten().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, vec!["aks-managed-x", "team"]);
}

#[test]
fn internal_services_share_a_frontend_by_pinned_ip() {
    let mut first = service("first", UID_A, vec![tcp(80, 30080)]);
    first.internal = true;
    first.requested_ips.v4 = Some("10.0.0.5".parse().expect("ip"));
    let mut second = service("second", UID_B, vec![tcp(443, 30443)]);
    second.internal = true;
    second.requested_ips.v4 = first.requested_ips.v4;
    let sources = v4(internal(Some("10.0.0.5")));
    let lb = ensure(None, &internal_target(), &first, &sources);
    let lb = ensure(Some(&lb), &internal_target(), &second, &sources);
    assert_eq!(frontends_of(&lb), vec![first.base_name.clone()]);
    let shared = super::super::service_frontends(&lb, &second);
    assert_eq!(shared.len(), 1);
    assert_eq!(shared[0].name.as_deref(), Some(first.base_name.as_str()));
    assert_eq!(
        rules_of(&lb),
        vec![
            format!("{}-TCP-80", first.base_name),
            format!("{}-TCP-443", second.base_name)
        ]
    );
}

#[test]
fn a_service_switching_away_from_a_shared_frontend_releases_it() {
    let first = service("first", UID_A, vec![tcp(80, 30080)]);
    let second = service("second", UID_B, vec![tcp(443, 30443)]);
    let lb = ensure(None, &target(), &first, &v4(pip("shared")));
    let lb = ensure(Some(&lb), &target(), &second, &v4(pip("shared")));
    // The second Service gets its own PIP: its rules move to its own frontend, the first
    // Service's frontend stays (the first Service still uses it).
    let lb = ensure(Some(&lb), &target(), &second, &v4(pip("own")));
    assert_eq!(
        frontends_of(&lb),
        vec![first.base_name.clone(), second.base_name.clone()]
    );
}

#[test]
fn pinning_another_services_pip_moves_to_its_frontend() {
    let first = service("first", UID_A, vec![tcp(80, 30080)]);
    let second = service("second", UID_B, vec![tcp(443, 30443)]);
    let lb = ensure(None, &target(), &first, &v4(pip("shared")));
    let lb = ensure(Some(&lb), &target(), &second, &v4(pip("own")));
    // The second Service now pins the first one's PIP: its own frontend goes, no two
    // frontends hold the same PIP.
    let lb = ensure(Some(&lb), &target(), &second, &v4(pip("shared")));
    assert_eq!(frontends_of(&lb), vec![first.base_name.clone()]);
    assert_eq!(
        rules_of(&lb),
        vec![
            format!("{}-TCP-80", first.base_name),
            format!("{}-TCP-443", second.base_name)
        ]
    );
}
