//! Tests of the ARM diff: each allow-list class on a hand-made change, and (proptest) a snapshot
//! diffed with a shuffled copy of itself is all identical.

use proptest::prelude::*;

use super::*;
use crate::checks::builders::*;

fn pair() -> (Snapshot, Snapshot) {
    let s = Run::healthy().baseline.expect("baseline");
    (s.clone(), s)
}

fn classes(d: &ArmDiff) -> Vec<(String, DiffClass)> {
    d.entries
        .iter()
        .filter(|e| e.class != DiffClass::Identical)
        .map(|e| (format!("{e}"), e.class))
        .collect()
}

#[test]
fn legacy_nsg_rules_replaced_by_a_covering_consolidated_rule_are_expected() {
    let (mut before, after) = pair();
    let nsg = &mut before.arm.security_groups[0];
    let mut legacy = nsg.rules[0].clone();
    legacy.name = format!("{}-TCP-80-Internet", before.services[0].base_name());
    legacy.id = format!(
        "{}/securityrules/{}",
        nsg.id,
        legacy.name.to_ascii_lowercase()
    );
    nsg.rules = vec![legacy];
    let d = diff(&before, &after, &allow_list(29));
    assert!(d.is_allowed(), "{:#?}", classes(&d));
    assert_eq!(
        d.of(DiffClass::ExpectedChange).count(),
        2,
        "{:#?}",
        classes(&d)
    );
    // Not covered (another port): forbidden.
    let (mut before, after) = pair();
    let nsg = &mut before.arm.security_groups[0];
    let mut legacy = nsg.rules[0].clone();
    legacy.name = format!("{}-TCP-443-Internet", before.services[0].base_name());
    legacy.id = format!("{}/securityrules/x", nsg.id);
    legacy.destination_ports = vec!["443".into()];
    nsg.rules.push(legacy);
    assert!(!diff(&before, &after, &allow_list(29)).is_allowed());
}

#[test]
fn probe_to_http_on_root_and_tag_additions_are_allowed_a_new_address_is_not() {
    let (before, mut after) = pair();
    let probe = &mut after.arm.load_balancers[0].probes[0];
    probe.protocol = "Http".into();
    probe.path = Some("/".into());
    after.arm.public_ips[0]
        .tags
        .insert("k8s-azure-dns-label-service".into(), "default/web".into());
    let d = diff(&before, &after, &allow_list(29));
    insta::assert_snapshot!(
        classes(&d)
            .iter()
            .map(|(e, c)| format!("{c:?}: {e}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    after.arm.public_ips[0].address = Some("20.1.2.9".into());
    let d = diff(&before, &after, &allow_list(29));
    let forbidden: Vec<String> = d.of(DiffClass::Forbidden).map(|e| e.to_string()).collect();
    assert_eq!(
        forbidden,
        ["public IP k8s-a1a2b3c4d00000000000000000000000 address: 20.1.2.3 -> 20.1.2.9"]
    );
}

#[test]
fn a_new_service_adds_and_a_deleted_one_removes_within_the_allow_list() {
    let (before, _) = pair();
    let nodes = before.nodes.clone();
    let mut services = before.services.clone();
    services.push(service(
        "api",
        "2b2b3c4d-0000-0000-0000-000000000002",
        "20.1.2.4",
    ));
    let mut after = snapshot("final", nodes.clone(), services);
    let d = diff(&before, &after, &allow_list(29));
    assert!(d.is_allowed(), "{:#?}", classes(&d));
    assert!(
        d.of(DiffClass::AllowedAddition).count() >= 5,
        "{:#?}",
        classes(&d)
    );
    after = snapshot("final", nodes, vec![]);
    let d = diff(&before, &after, &allow_list(29));
    assert!(d.is_allowed(), "{:#?}", classes(&d));
    // Without the Service gone from Kubernetes, the same removal is forbidden.
    after.services = before.services.clone();
    assert!(!diff(&before, &after, &allow_list(29)).is_allowed());
}

#[test]
fn the_first_service_brings_the_cluster_load_balancer_and_pool_a_second_lb_is_forbidden() {
    let nodes = Run::healthy().baseline.expect("baseline").nodes;
    // No Service and no load balancer before (the in-tree provider never needed one).
    let mut before = snapshot("baseline", nodes.clone(), vec![]);
    before.arm.load_balancers.clear();
    let web = service("web", "1a2b3c4d-0000-0000-0000-000000000001", "20.1.2.3");
    let after = snapshot("switched", nodes.clone(), vec![web.clone()]);
    let d = diff(&before, &after, &allow_list(29));
    assert!(d.is_allowed(), "{:#?}", classes(&d));
    let added: Vec<String> = d
        .of(DiffClass::AllowedAddition)
        .map(|e| e.to_string())
        .filter(|e| e.starts_with("load balancer") || e.starts_with("backend pool"))
        .collect();
    assert_eq!(added.len(), 2, "{added:#?}");
    // An outbound-only load balancer of the topology (no load-balancing rule) does not count.
    let mut outbound = snapshot("baseline", nodes.clone(), vec![]);
    let lb = &mut outbound.arm.load_balancers[0];
    lb.name = "kubernetes".into();
    lb.id = lb.id.replace("/k8s", "/kubernetes");
    lb.pools.clear();
    let d = diff(&outbound, &after, &allow_list(29));
    assert!(
        d.of(DiffClass::Forbidden)
            .all(|e| e.label == "load balancer kubernetes"),
        "{:#?}",
        classes(&d)
    );
    // A load balancer of the same kind served a Service before: the new one is a recreate or a
    // rename (here the old one is gone with its Service, so nothing else would flag it).
    let gone = service("gone", "4a2b3c4d-0000-0000-0000-000000000004", "20.1.2.6");
    let mut before = snapshot("baseline", nodes.clone(), vec![gone]);
    let lb = &mut before.arm.load_balancers[0];
    lb.name = "kubernetes".into();
    lb.id = lb.id.replace("/k8s", "/kubernetes");
    lb.pools.clear();
    let d = diff(&before, &after, &allow_list(29));
    let forbidden: Vec<String> = d.of(DiffClass::Forbidden).map(|e| e.to_string()).collect();
    assert!(
        forbidden.contains(&"load balancer k8s added".to_owned()),
        "{forbidden:#?}"
    );
    // A frontend of a Service that existed before: not the first Service's load balancer.
    let old = service("old", "3a2b3c4d-0000-0000-0000-000000000003", "20.1.2.5");
    let mut before = snapshot("baseline", nodes.clone(), vec![old.clone()]);
    before.arm.load_balancers.clear();
    let after = snapshot("switched", nodes, vec![old, web]);
    let d = diff(&before, &after, &allow_list(29));
    let forbidden: Vec<String> = d.of(DiffClass::Forbidden).map(|e| e.to_string()).collect();
    assert!(
        forbidden.contains(&"backend pool k8s/k8s added".to_owned()),
        "{forbidden:#?}"
    );
}

#[test]
fn local_per_rule_probes_replaced_by_one_shared_probe_and_healthz_to_root_are_expected() {
    let (mut before, mut after) = pair();
    // In tree: the rule has its own HTTP /healthz probe on the health-check port, named after it.
    let lb = &mut before.arm.load_balancers[0];
    let rule_name = lb.rules[0].name.clone();
    let probe = &mut lb.probes[0];
    probe.protocol = "Http".into();
    probe.port = 31999;
    probe.path = Some("/healthz".into());
    probe.name = rule_name.clone();
    probe.id = format!("{}/probes/{}", lb.id, rule_name.to_ascii_lowercase());
    lb.rules[0].probe_id = Some(probe.id.clone());
    // Out of tree: one shared probe on the same port and path.
    let lb = &mut after.arm.load_balancers[0];
    let shared = format!("{}-TCP-31999", before.services[0].base_name());
    let probe = &mut lb.probes[0];
    probe.protocol = "Http".into();
    probe.port = 31999;
    probe.path = Some("/healthz".into());
    probe.name = shared.clone();
    probe.id = format!("{}/probes/{}", lb.id, shared.to_ascii_lowercase());
    lb.rules[0].probe_id = Some(probe.id.clone());
    let d = diff(&before, &after, &allow_list(29));
    assert!(d.is_allowed(), "{:#?}", classes(&d));
    assert_eq!(
        d.of(DiffClass::ExpectedChange).count(),
        3,
        "{:#?}",
        classes(&d)
    );
    // A shared probe on another port is not the same health check: forbidden.
    after.arm.load_balancers[0].probes[0].port = 32000;
    assert!(!diff(&before, &after, &allow_list(29)).is_allowed());

    // An annotated HTTP probe without a path: /healthz in tree, / out of tree.
    let (mut before, mut after) = pair();
    for (snap, path) in [(&mut before, "/healthz"), (&mut after, "/")] {
        let probe = &mut snap.arm.load_balancers[0].probes[0];
        probe.protocol = "Http".into();
        probe.path = Some(path.into());
    }
    let d = diff(&before, &after, &allow_list(29));
    assert!(d.is_allowed(), "{:#?}", classes(&d));
}

#[test]
fn an_allow_rule_moved_to_another_managed_priority_is_expected_a_deny_band_move_is_not() {
    let (before, mut after) = pair();
    let rule = &mut after.arm.security_groups[0].rules[0];
    assert!(rule.name.starts_with("k8s-azure-lb_allow"), "{}", rule.name);
    rule.priority = 503;
    let d = diff(&before, &after, &allow_list(29));
    assert!(d.is_allowed(), "{:#?}", classes(&d));
    after.arm.security_groups[0].rules[0].priority = 4096;
    assert!(!diff(&before, &after, &allow_list(29)).is_allowed());
}

fn shuffle<T>(list: &mut [T], seed: &mut u64) {
    for i in (1..list.len()).rev() {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        list.swap(i, (*seed % (i as u64 + 1)) as usize);
    }
}

fn shuffled(s: &Snapshot, mut seed: u64) -> Snapshot {
    let mut s = s.clone();
    let seed = &mut seed;
    shuffle(&mut s.nodes, seed);
    shuffle(&mut s.services, seed);
    let arm = &mut s.arm;
    shuffle(&mut arm.public_ips, seed);
    shuffle(&mut arm.ip_configurations, seed);
    for lb in &mut arm.load_balancers {
        shuffle(&mut lb.frontends, seed);
        shuffle(&mut lb.rules, seed);
        shuffle(&mut lb.probes, seed);
        for pool in &mut lb.pools {
            shuffle(&mut pool.members, seed);
        }
    }
    for nsg in &mut arm.security_groups {
        shuffle(&mut nsg.rules, seed);
        for rule in &mut nsg.rules {
            shuffle(&mut rule.destinations, seed);
        }
    }
    shuffle(&mut arm.load_balancers, seed);
    s
}

proptest! {
    #[test]
    fn a_snapshot_diffed_with_its_shuffled_self_is_identical(services in 0usize..5, nodes in 1usize..5, seed in 1u64..) {
        let nodes: Vec<_> = (0..nodes).map(|i| node(&format!("node-{i}"), &format!("10.0.0.{}", i + 4))).collect();
        let services: Vec<_> = (0..services)
            .map(|i| service(&format!("s{i}"), &format!("{i}a2b3c4d-0000-0000-0000-00000000000{i}"), &format!("20.1.2.{}", i + 3)))
            .collect();
        let s = snapshot("baseline", nodes, services);
        let other = shuffled(&s, seed);
        let d = diff(&s, &other, &allow_list(29));
        prop_assert!(d.entries.iter().all(|e| e.class == DiffClass::Identical), "{:#?}", classes(&d));
        prop_assert!(!d.entries.is_empty());
    }
}
