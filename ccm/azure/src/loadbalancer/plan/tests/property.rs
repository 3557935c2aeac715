//! Any sequence of ensure / remove over a few Services ends where ensuring the final set on an
//! empty LB ends (child order aside), with nothing left of removed Services.

use proptest::prelude::*;

use crate::arm::resources::load_balancer::LoadBalancer;
use crate::loadbalancer::service::{IpFamily, LbService, PerFamily};

use super::super::ownership::owns_name;
use super::*;

const UIDS: [&str; 3] = [UID_A, UID_B, UID_C];

/// Service `index` in one of two shapes (so repeated ensures also update).
fn shaped(index: usize, variant: bool) -> (LbService, PerFamily<Option<FrontendSource>>) {
    let ports = match (index, variant) {
        (0, false) => vec![tcp(80, 30080)],
        (0, true) => vec![tcp(80, 30081), tcp(443, 30443)],
        (1, false) => vec![udp(53, 30053), tcp(53, 30054)],
        (1, true) => vec![tcp(8080, 30808)],
        (_, false) => vec![tcp(9000, 30900)],
        (_, true) => vec![tcp(9000, 30900), tcp(9001, 30901)],
    };
    let mut svc = service(&format!("svc{index}"), UIDS[index], ports);
    if index == 1 && variant {
        svc.local_health_check_node_port = Some(32100);
    }
    let mut sources = v4(pip(&format!("pip-{index}")));
    if index == 2 {
        svc.families = vec![IpFamily::V4, IpFamily::V6];
        sources.v6 = Some(pip(&format!("pip-{index}-v6")));
    }
    (svc, sources)
}

#[derive(Debug, Clone)]
enum Op {
    Ensure(usize, bool),
    Remove(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0..3usize, any::<bool>()).prop_map(|(i, v)| Op::Ensure(i, v)),
        (0..3usize).prop_map(Op::Remove),
    ]
}

fn apply(state: Option<LoadBalancer>, change: LbChange) -> Option<LoadBalancer> {
    match change {
        LbChange::Unchanged => state,
        LbChange::Put(lb) => Some(lb),
        LbChange::Delete => None,
    }
}

/// The LB with child lists sorted by name and backend pools left out (the plan adds pools but
/// never removes them: their lifecycle belongs to the pool reconcile).
fn normalized(lb: Option<LoadBalancer>) -> Option<serde_json::Value> {
    let mut lb = lb?;
    if let Some(props) = lb.properties.as_mut() {
        props.backend_address_pools = None;
        for list in [
            props
                .frontend_ip_configurations
                .as_mut()
                .map(|l| l as &mut dyn SortByName),
            props
                .load_balancing_rules
                .as_mut()
                .map(|l| l as &mut dyn SortByName),
            props.probes.as_mut().map(|l| l as &mut dyn SortByName),
        ]
        .into_iter()
        .flatten()
        {
            list.sort_by_name();
        }
    }
    Some(serde_json::to_value(lb).expect("json"))
}

trait SortByName {
    fn sort_by_name(&mut self);
}

impl<P> SortByName for Vec<crate::arm::resources::Child<P>> {
    fn sort_by_name(&mut self) {
        self.sort_by(|a, b| a.name.cmp(&b.name));
    }
}

proptest! {
    #[test]
    fn any_history_ends_like_a_fresh_ensure_of_the_final_set(
        ops in prop::collection::vec(op(), 1..12),
        shared_probe in any::<bool>(),
    ) {
        let mut target = target();
        if shared_probe {
            target.probe_mode = crate::config::ProbeMode::Shared;
        }
        let mut state: Option<LoadBalancer> = None;
        let mut last: [Option<bool>; 3] = [None; 3];
        for op in &ops {
            match *op {
                Op::Ensure(i, variant) => {
                    let (svc, sources) = shaped(i, variant);
                    let change = plan_ensure(state.as_ref(), &target, &svc, &sources).expect("ensure");
                    state = apply(state, change);
                    last[i] = Some(variant);
                }
                Op::Remove(i) => {
                    let (svc, _) = shaped(i, false);
                    if let Some(lb) = state.as_ref() {
                        let change = plan_remove(lb, &target, &svc);
                        state = apply(state, change);
                    }
                    last[i] = None;
                }
            }
        }
        let mut fresh: Option<LoadBalancer> = None;
        for (i, variant) in last.iter().enumerate() {
            if let Some(variant) = variant {
                let (svc, sources) = shaped(i, *variant);
                let change = plan_ensure(fresh.as_ref(), &target, &svc, &sources).expect("fresh");
                fresh = apply(fresh, change);
            }
        }
        for (i, variant) in last.iter().enumerate() {
            if variant.is_none() {
                let (svc, _) = shaped(i, false);
                let props = state.as_ref().and_then(|lb| lb.properties.as_ref());
                let leftovers: Vec<String> = props
                    .map(|p| {
                        names(p.frontend_ip_configurations.as_ref())
                            .into_iter()
                            .chain(names(p.load_balancing_rules.as_ref()))
                            .chain(names(p.probes.as_ref()))
                            .filter(|n| owns_name(&svc, n))
                            .collect()
                    })
                    .unwrap_or_default();
                prop_assert!(leftovers.is_empty(), "left of svc{}: {:?}", i, leftovers);
            }
        }
        prop_assert_eq!(normalized(state), normalized(fresh));
    }
}
