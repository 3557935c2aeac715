//! `routes-stable` (P11, kubenet only): routes of nodes present throughout keep their name, prefix
//! and next hop; nodes added later get a route. Skipped on Azure CNI.

use super::{CheckInputs, Intent, require, verdict};
use crate::outcome::{CheckResult, Verdict};
use crate::scenario::{CheckName, NetworkMode};
use crate::snapshot::{Route, Snapshot};

const CHECK: CheckName = CheckName::RoutesStable;

fn route_node(name: &str) -> &str {
    name.split("____").next().unwrap_or(name)
}

fn routes(s: &Snapshot) -> impl Iterator<Item = (&str, &Route)> {
    s.arm
        .route_tables
        .iter()
        .flat_map(|t| t.routes.iter().map(move |r| (t.name.as_str(), r)))
}

fn show(r: &Route) -> String {
    format!(
        "{} {} via {} {}",
        r.name,
        r.prefix,
        r.next_hop_type,
        r.next_hop_ip.as_deref().unwrap_or("-")
    )
}

pub(super) fn check(inputs: &CheckInputs<'_>, _intent: &Intent) -> CheckResult {
    if inputs.plan.network.mode != NetworkMode::Kubenet {
        return CheckResult::new(CHECK, Verdict::Skipped, "no routes on Azure CNI");
    }
    let (base, last) = match require(
        CHECK,
        &[("baseline", inputs.baseline), ("final", inputs.final_)],
    ) {
        Ok(s) => (s[0], s[1]),
        Err(e) => return e,
    };
    let later = inputs.later();
    let throughout = |node: &str| later.iter().all(|(_, s)| s.node(node).is_some());
    let mut offenders = Vec::new();
    let mut kept = 0;
    for (table, route) in routes(base) {
        let node = route_node(&route.name);
        if base.node(node).is_none() || !throughout(node) {
            continue;
        }
        kept += 1;
        for (label, snap) in &later {
            let now: Vec<&Route> = routes(snap)
                .filter(|(t, r)| *t == table && route_node(&r.name) == node)
                .map(|(_, r)| r)
                .collect();
            let same = |r: &&Route| {
                r.name == route.name
                    && r.prefix == route.prefix
                    && r.next_hop_type == route.next_hop_type
                    && r.next_hop_ip == route.next_hop_ip
            };
            if !now.iter().any(same) {
                let became: Vec<String> = now.iter().map(|r| show(r)).collect();
                offenders.push(format!(
                    "node {node}: route {} became [{}] at {label}",
                    show(route),
                    became.join("; ")
                ));
            }
        }
    }
    for node in last.nodes.iter().filter(|n| base.node(&n.name).is_none()) {
        if !routes(last).any(|(_, r)| route_node(&r.name) == node.name) {
            offenders.push(format!("new node {}: no route at final", node.name));
        }
    }
    verdict(
        CHECK,
        offenders,
        format!("{kept} routes unchanged; new nodes have routes"),
    )
}

#[cfg(test)]
mod tests {
    use super::super::builders::*;
    use super::*;
    use crate::snapshot::RouteTable;

    fn table(routes: &[(&str, &str)]) -> RouteTable {
        RouteTable {
            id: format!("{SUB}/microsoft.network/routetables/k8s-rt"),
            name: "k8s-rt".into(),
            routes: routes
                .iter()
                .map(|(name, prefix)| Route {
                    id: format!("{SUB}/microsoft.network/routetables/k8s-rt/routes/{name}"),
                    name: (*name).into(),
                    prefix: (*prefix).into(),
                    next_hop_type: "VirtualAppliance".into(),
                    next_hop_ip: Some("10.0.0.4".into()),
                })
                .collect(),
        }
    }

    #[test]
    fn skipped_on_cni_and_a_renamed_route_fails_on_kubenet() {
        assert_eq!(Run::healthy().check(CHECK).verdict, Verdict::Skipped);
        let mut run = Run::healthy();
        run.plan = plan("network:\n  mode: kubenet\n  clusterCIDR: 10.244.0.0/16\n");
        for s in [
            run.baseline.as_mut(),
            run.switched.as_mut(),
            run.final_.as_mut(),
        ]
        .into_iter()
        .flatten()
        {
            s.arm.route_tables = vec![table(&[("node-0", "10.244.0.0/24")])];
        }
        assert_eq!(run.check(CHECK).verdict, Verdict::Pass);
        let run = run.after(|s| {
            s.arm.route_tables = vec![table(&[("node-0____102440024", "10.244.0.0/24")])];
            s.nodes.push(node("node-2", "10.0.0.6"));
        });
        insta::assert_snapshot!(shown(&run.check(CHECK)));
    }
}
