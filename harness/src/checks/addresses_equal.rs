//! `addresses-equal` (P7): each Node's `status.addresses` (type, value and order) is the same in
//! every later snapshot, except `ExternalIP`s appended that are public IPs which did not exist at
//! the baseline: a load balancer frontend the workload created since then shows up in the node's
//! IMDS load-balancer view, which in-tree kubelets and cloud-node-managers alike report (the
//! same change happens without any switch).

use super::{CheckInputs, Intent, require, verdict};
use crate::outcome::CheckResult;
use crate::scenario::CheckName;
use crate::snapshot::AddressState;

const CHECK: CheckName = CheckName::AddressesEqual;

fn show(list: &[AddressState]) -> String {
    let parts: Vec<String> = list
        .iter()
        .map(|a| format!("{}={}", a.type_, a.address))
        .collect();
    format!("[{}]", parts.join(", "))
}

pub(super) fn check(inputs: &CheckInputs<'_>, _intent: &Intent) -> CheckResult {
    let base = match require(
        CHECK,
        &[("baseline", inputs.baseline), ("final", inputs.final_)],
    ) {
        Ok(s) => s[0],
        Err(e) => return e,
    };
    let mut offenders = Vec::new();
    let old_pips: Vec<&str> = base
        .arm
        .public_ips
        .iter()
        .filter_map(|p| p.address.as_deref())
        .collect();
    for (label, snap) in inputs.later() {
        let new_pip = |address: &str| {
            !old_pips.contains(&address)
                && snap
                    .arm
                    .public_ips
                    .iter()
                    .any(|p| p.address.as_deref() == Some(address))
        };
        for node in &snap.nodes {
            let Some(before) = base.node(&node.name) else {
                continue;
            };
            let explained = node.addresses.starts_with(&before.addresses)
                && node.addresses[before.addresses.len()..]
                    .iter()
                    .all(|a| a.type_ == "ExternalIP" && new_pip(&a.address));
            if before.addresses != node.addresses && !explained {
                offenders.push(format!(
                    "node {}: addresses {} became {} at {label}",
                    node.name,
                    show(&before.addresses),
                    show(&node.addresses)
                ));
            }
        }
    }
    verdict(
        CHECK,
        offenders,
        format!("{} nodes kept their addresses in order", base.nodes.len()),
    )
}

#[cfg(test)]
mod tests {
    use super::super::builders::*;
    use super::*;
    use crate::outcome::Verdict;

    #[test]
    fn a_reordered_or_dropped_address_fails() {
        assert_eq!(Run::healthy().check(CHECK).verdict, Verdict::Pass);
        let run = Run::healthy().after(|s| s.nodes[0].addresses.reverse());
        insta::assert_snapshot!(shown(&run.check(CHECK)));
        let dropped = Run::healthy().after(|s| {
            s.nodes[1].addresses.pop();
        });
        assert_eq!(dropped.check(CHECK).verdict, Verdict::Fail);
    }

    #[test]
    fn an_external_ip_of_a_frontend_created_since_the_baseline_is_no_drift() {
        let run = Run::healthy().after(|s| {
            let pip = s.arm.public_ips[0].clone();
            let mut fresh = pip.clone();
            fresh.id = format!("{}-new", pip.id);
            fresh.address = Some("20.9.9.9".into());
            s.arm.public_ips.push(fresh);
            let mut external = s.nodes[0].addresses[0].clone();
            external.type_ = "ExternalIP".into();
            external.address = "20.9.9.9".into();
            s.nodes[0].addresses.push(external);
        });
        assert_eq!(run.check(CHECK).verdict, Verdict::Pass);
        // An ExternalIP that was already a public IP at the baseline is drift.
        let old = Run::healthy().after(|s| {
            let address = s.arm.public_ips[0].address.clone().unwrap_or_default();
            let mut external = s.nodes[0].addresses[0].clone();
            external.type_ = "ExternalIP".into();
            external.address = address;
            s.nodes[0].addresses.push(external);
        });
        assert_eq!(old.check(CHECK).verdict, Verdict::Fail);
    }
}
