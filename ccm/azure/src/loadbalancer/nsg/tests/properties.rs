//! Property: any sequence of ensures and removes over a few Services ends where ensuring the
//! remaining Services on an empty NSG ends, and removed Services leave no destination behind.

use std::collections::BTreeSet;

use proptest::prelude::*;
use serde_json::json;

use super::fixtures::{ips, nets, nsg, port, rule_destinations, rules, service};
use crate::arm::resources::security_group::NetworkSecurityGroup;
use crate::loadbalancer::nsg::{Destinations, plan_ensure_shared, plan_remove_shared};
use crate::loadbalancer::service::{LbService, Protocol};

/// How a generated Service restricts its sources.
#[derive(Debug, Clone, Copy)]
enum Sources {
    Open,
    Ranges,
    TagsDenyAll,
    Invalid,
}

fn sources() -> impl Strategy<Value = Sources> {
    prop_oneof![
        Just(Sources::Open),
        Just(Sources::Ranges),
        Just(Sources::TagsDenyAll),
        Just(Sources::Invalid),
    ]
}

/// One generated Service and its destinations.
fn service_case(index: usize) -> impl Strategy<Value = (LbService, Destinations)> {
    (
        sources(),
        any::<bool>(),
        any::<bool>(),
        proptest::sample::subsequence(vec![0usize, 1, 2], 1..=3),
        any::<bool>(),
    )
        .prop_map(move |(sources, floating, internal, port_picks, share_ip)| {
            let mut svc = service(
                &format!("s{index}"),
                &format!("{index:08x}-0000-0000-0000-000000000000"),
            );
            let all = [
                (Protocol::Tcp, 80),
                (Protocol::Tcp, 443),
                (Protocol::Udp, 53),
            ];
            svc.ports = port_picks
                .iter()
                .map(|&i| {
                    let (protocol, number) = all[i];
                    // NodePorts differ per Service, like the API server allocates them.
                    let node_port = 30000 + (index as u16) * 100 + number % 100;
                    port(protocol, number, node_port)
                })
                .collect();
            svc.rules.floating_ip = floating;
            svc.internal = internal;
            match sources {
                Sources::Open => {}
                Sources::Ranges => {
                    svc.security.source_ranges = nets(&["10.1.0.0/16", "10.2.0.0/16"])
                }
                Sources::TagsDenyAll => {
                    svc.security.service_tags = vec!["AzureFrontDoor.Backend".into()];
                    svc.security.source_ranges = nets(&["203.0.113.0/24"]);
                    svc.security.deny_all_except_source_ranges = true;
                }
                Sources::Invalid => svc.security.invalid_ranges = vec!["not-a-cidr".into()],
            }
            // Services 0 and 1 may share one frontend IP.
            let frontend = if share_ip && index == 1 {
                "20.0.0.0".to_string()
            } else {
                format!("20.0.0.{index}")
            };
            let dst = Destinations {
                frontend_ips: ips(&[&frontend]),
                backend_ips: ips(&["10.240.0.4", "10.240.0.5"]),
                stale: vec![],
            };
            (svc, dst)
        })
}

/// A rule compared without its priority.
fn comparable(nsg: &NetworkSecurityGroup) -> BTreeSet<String> {
    rules(nsg)
        .into_iter()
        .map(|mut r| {
            if let Some(p) = r.properties.as_mut() {
                p.priority = None;
            }
            serde_json::to_string(&r).unwrap_or_default()
        })
        .collect()
}

fn others<'a>(
    cases: &'a [(LbService, Destinations)],
    present: &BTreeSet<usize>,
    except: usize,
) -> Vec<(&'a LbService, &'a Destinations)> {
    present
        .iter()
        .filter(|&&i| i != except)
        .map(|&i| (&cases[i].0, &cases[i].1))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn any_sequence_converges_to_the_fresh_build(
        cases in (service_case(0), service_case(1), service_case(2), service_case(3))
            .prop_map(|(a, b, c, d)| vec![a, b, c, d]),
        ops in proptest::collection::vec((0usize..4, any::<bool>()), 0..14),
    ) {
        let mut current = nsg(json!([]));
        let mut present = BTreeSet::new();
        for (index, ensure) in ops {
            let (svc, dst) = &cases[index];
            let others = others(&cases, &present, index);
            let planned = if ensure {
                present.insert(index);
                plan_ensure_shared(&current, svc, dst, &others).expect("ensure")
            } else {
                present.remove(&index);
                plan_remove_shared(&current, svc, dst, &others)
            };
            if let Some(next) = planned {
                current = next;
            }
        }

        let mut fresh = nsg(json!([]));
        for &index in &present {
            let (svc, dst) = &cases[index];
            let others = others(&cases, &present, index);
            if let Some(next) = plan_ensure_shared(&fresh, svc, dst, &others).expect("ensure") {
                fresh = next;
            }
        }
        prop_assert_eq!(comparable(&current), comparable(&fresh));

        // Ensuring a present Service again writes nothing.
        for &index in &present {
            let (svc, dst) = &cases[index];
            let others = others(&cases, &present, index);
            prop_assert!(plan_ensure_shared(&current, svc, dst, &others).expect("ensure").is_none());
        }

        // No destination only a removed Service used remains.
        let in_use: BTreeSet<String> = present
            .iter()
            .flat_map(|&i| {
                let (svc, dst) = &cases[i];
                let base = if svc.rules.floating_ip { &dst.frontend_ips } else { &dst.backend_ips };
                base.iter().map(ToString::to_string).collect::<Vec<_>>()
            })
            .collect();
        for rule in rules(&current) {
            for d in rule_destinations(&rule) {
                prop_assert!(in_use.contains(&d), "{} left in {:?}", d, rule.name);
            }
        }
    }
}
