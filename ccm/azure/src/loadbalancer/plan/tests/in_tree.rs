//! The in-tree profile's probes ([`crate::config::InTreeCompat`]): TCP for `appProtocol: http`
//! ports and `numberOfProbes` instead of `probeThreshold`; today's CCM rewrites both.

use serde_json::json;

use crate::config::InTreeCompat;

use super::*;

fn probes(lb: &LoadBalancer) -> serde_json::Value {
    let value = serde_json::to_value(lb).expect("json");
    let mut out = value["properties"]["probes"].clone();
    for probe in out.as_array_mut().into_iter().flatten() {
        probe.as_object_mut().expect("probe").remove("id");
    }
    out
}

fn app_http_service() -> LbService {
    let mut web = tcp(80, 30080);
    web.app_protocol = Some("http".into());
    service("web", UID_A, vec![web])
}

#[test]
fn the_in_tree_profile_probes_an_app_protocol_port_over_tcp_with_number_of_probes() {
    let in_tree = LbTarget {
        in_tree: InTreeCompat::ALL,
        ..target()
    };
    let svc = app_http_service();
    let lb = ensure(None, &in_tree, &svc, &v4(pip("a")));
    let name = format!("{}-TCP-80", svc.base_name);
    assert_eq!(
        probes(&lb),
        json!([{"name": name, "properties": {"protocol": "Tcp", "port": 30080,
            "intervalInSeconds": 5, "numberOfProbes": 2}}])
    );

    // Today's CCM on the same LB: an HTTP probe on `/` with `probeThreshold`.
    let ccm = put(plan_ensure(Some(&lb), &target(), &svc, &v4(pip("a"))).expect("plan"));
    assert_eq!(
        probes(&ccm),
        json!([{"name": name, "properties": {"protocol": "Http", "port": 30080,
            "requestPath": "/", "intervalInSeconds": 5, "probeThreshold": 2}}])
    );
}

#[test]
fn the_in_tree_profile_gives_each_local_rule_its_own_probe_and_the_ccm_shares_one() {
    let in_tree = LbTarget {
        in_tree: InTreeCompat::ALL,
        ..target()
    };
    let mut svc = service("web", UID_A, vec![tcp(80, 30080), udp(53, 30053)]);
    svc.local_health_check_node_port = Some(32000);
    let base = svc.base_name.clone();
    let lb = ensure(None, &in_tree, &svc, &v4(pip("a")));
    let local = |name: String| {
        json!({"name": name, "properties": {"protocol": "Http", "port": 32000,
            "requestPath": "/healthz", "intervalInSeconds": 5, "numberOfProbes": 2}})
    };
    assert_eq!(
        probes(&lb),
        json!([
            local(format!("{base}-TCP-80")),
            local(format!("{base}-UDP-53"))
        ])
    );

    // Today's CCM: one probe named after the health-check NodePort, used by both rules.
    let ccm = put(plan_ensure(Some(&lb), &target(), &svc, &v4(pip("a"))).expect("plan"));
    let shared = format!("{base}-TCP-32000");
    assert_eq!(
        names(ccm.properties.as_ref().and_then(|p| p.probes.as_ref())),
        vec![shared.clone()]
    );
    let rules = ccm
        .properties
        .as_ref()
        .and_then(|p| p.load_balancing_rules.clone())
        .unwrap_or_default();
    assert_eq!(rules.len(), 2);
    for rule in rules {
        let probe = rule.properties.and_then(|p| p.probe).and_then(|r| r.id);
        assert!(probe.is_some_and(|id| id.ends_with(&format!("/probes/{shared}"))));
    }
}

#[test]
fn an_annotated_http_probe_without_path_probes_healthz_in_the_in_tree_profile() {
    let in_tree = LbTarget {
        in_tree: InTreeCompat::ALL,
        ..target()
    };
    let mut svc = service("web", UID_A, vec![tcp(80, 30080)]);
    svc.probe.protocol = Some(crate::loadbalancer::service::ProbeProtocol::Http);
    let lb = ensure(None, &in_tree, &svc, &v4(pip("a")));
    assert_eq!(probes(&lb)[0]["properties"]["requestPath"], "/healthz");
    let ccm = put(plan_ensure(Some(&lb), &target(), &svc, &v4(pip("a"))).expect("plan"));
    assert_eq!(probes(&ccm)[0]["properties"]["requestPath"], "/");
}
