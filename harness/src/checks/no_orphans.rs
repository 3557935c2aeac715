//! `no-orphans`: at `final`, nothing of a deleted Service or a gone Node is left in ARM: no PIP
//! tagged (`k8s-azure-service` or legacy `service`) for a Service that no longer exists, no
//! frontend, rule or probe named after a deleted Service's `a<uid>`, no NSG rule destination
//! holding a released ingress IP, no route of a Node that is gone.

use std::collections::BTreeSet;

use super::{CheckInputs, Intent, require, verdict};
use crate::outcome::CheckResult;
use crate::scenario::CheckName;

const CHECK: CheckName = CheckName::NoOrphans;

pub(super) fn check(inputs: &CheckInputs<'_>, _intent: &Intent) -> CheckResult {
    let last = match require(CHECK, &[("final", inputs.final_)]) {
        Ok(s) => s[0],
        Err(e) => return e,
    };
    let end = inputs.rollback.unwrap_or(last);
    let earlier: Vec<_> = [
        inputs.baseline,
        inputs.switched,
        inputs.final_,
        inputs.rollback,
    ]
    .into_iter()
    .flatten()
    .collect();
    let live: BTreeSet<String> = end.services.iter().map(|s| s.key()).collect();
    let deleted: Vec<(String, String, Vec<String>)> = {
        let mut seen = BTreeSet::new();
        earlier
            .iter()
            .flat_map(|s| s.services.iter())
            .filter(|s| !end.services.iter().any(|l| l.uid == s.uid))
            .filter(|s| seen.insert(s.uid.clone()))
            .map(|s| (s.key(), s.base_name(), s.ingress.clone()))
            .collect()
    };
    let live_ips: BTreeSet<&str> = end
        .services
        .iter()
        .flat_map(|s| s.ingress.iter().map(String::as_str))
        .collect();
    let released: BTreeSet<&str> = deleted
        .iter()
        .flat_map(|(_, _, ips)| ips.iter().map(String::as_str))
        .filter(|ip| !live_ips.contains(ip))
        .collect();
    let mut offenders = Vec::new();
    for pip in &end.arm.public_ips {
        for tag in [
            ccm_names::resource_tags::SERVICE,
            ccm_names::resource_tags::LEGACY_SERVICE,
        ] {
            let Some(value) = pip.tags.get(tag) else {
                continue;
            };
            let gone: Vec<&str> = value
                .split(',')
                .map(str::trim)
                .filter(|k| !k.is_empty() && !live.contains(*k))
                .collect();
            if !gone.is_empty()
                && gone.len() == value.split(',').filter(|k| !k.trim().is_empty()).count()
            {
                offenders.push(format!(
                    "PIP {} ({}) is still tagged {tag}={value} for deleted Service {}",
                    pip.name,
                    pip.address.as_deref().unwrap_or("no address"),
                    gone.join(",")
                ));
            }
        }
    }
    for (key, base, _) in &deleted {
        for lb in &end.arm.load_balancers {
            let parts = lb
                .frontends
                .iter()
                .map(|f| ("frontend", &f.name))
                .chain(lb.rules.iter().map(|r| ("rule", &r.name)))
                .chain(lb.probes.iter().map(|p| ("probe", &p.name)));
            for (kind, name) in parts.filter(|(_, n)| n.starts_with(base.as_str())) {
                offenders.push(format!(
                    "load balancer {}: {kind} {name} of deleted Service {key} is left",
                    lb.name
                ));
            }
        }
    }
    for nsg in &end.arm.security_groups {
        for rule in &nsg.rules {
            for ip in rule
                .destinations
                .iter()
                .filter(|d| released.contains(d.as_str()))
            {
                offenders.push(format!(
                    "NSG {}: rule {} still allows released IP {ip}",
                    nsg.name, rule.name
                ));
            }
        }
    }
    let known_nodes: BTreeSet<&str> = earlier
        .iter()
        .flat_map(|s| s.nodes.iter().map(|n| n.name.as_str()))
        .collect();
    for table in &end.arm.route_tables {
        for route in &table.routes {
            let node = route.name.split("____").next().unwrap_or(&route.name);
            if known_nodes.contains(node) && end.node(node).is_none() {
                offenders.push(format!(
                    "route table {}: route {} ({}) of gone node {node} is left",
                    table.name, route.name, route.prefix
                ));
            }
        }
    }
    verdict(
        CHECK,
        offenders,
        format!(
            "nothing left of {} deleted Services or gone nodes",
            deleted.len()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::super::builders::*;
    use super::*;
    use crate::outcome::Verdict;

    #[test]
    fn a_deleted_service_leaves_nothing_or_fails() {
        let arm_without = {
            let s = Run::healthy();
            let n = s.baseline.as_ref().unwrap().nodes.clone();
            arm_for(&n, &[])
        };
        let clean = Run::healthy().after(|s| {
            s.services.clear();
            s.arm = arm_without.clone();
        });
        assert_eq!(
            clean.check(CHECK).verdict,
            Verdict::Pass,
            "{:?}",
            clean.check(CHECK)
        );
        let leaky = Run::healthy().after(|s| s.services.clear());
        insta::assert_snapshot!(shown(&leaky.check(CHECK)));
    }
}
