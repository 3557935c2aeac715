//! `addresses-equal` (P7): each Node's `status.addresses` (type, value and order) is the same in
//! every later snapshot, leaving out `ExternalIP`s that name public IPs the workload created or
//! deleted since the baseline. A node's `ExternalIP` is its IMDS load-balancer view (the frontend
//! in front of it), which in-tree kubelets and cloud-node-managers alike report, so it follows the
//! frontends the workload changes; the same change happens without any switch:
//! - a new frontend shows up as a new address;
//! - when the only frontend in front of a node goes, IMDS names no public IP for it until another
//!   one exists (the fake answers `/metadata/loadbalancer` with 404; [infer] that real IMDS does
//!   the same for a VM left in a pool without rules), and upstream's `getMetadata` then reports
//!   the node without a public IP (cloud-provider-azure pkg/provider/azure_instance_metadata.go:
//!   a failed load-balancer lookup is logged and ignored), so a node refreshed in that gap has no
//!   `ExternalIP`, one refreshed later has the new frontend's, and one not refreshed yet still
//!   shows the deleted one (the cloud-node-manager refreshes on start, then every
//!   `--node-status-update-frequency`, 5 min; anchor-ccm.md §1.4). Which one a snapshot sees
//!   depends only on when the refresh ran (fault-5xx-lro-failed: `gone`'s frontend is the
//!   control-plane node's only one, and `web`'s comes tens of seconds later).
//!
//! Every other address, and an `ExternalIP` of a public IP that exists at both ends, must stay.

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

/// True for an `ExternalIP` naming a public IP that exists at only one end (`old`: the baseline's
/// public IP addresses, `now`: the later snapshot's): one the workload created or deleted since.
fn follows_workload(address: &AddressState, old: &[&str], now: &[&str]) -> bool {
    let value = address.address.as_str();
    address.type_ == "ExternalIP" && (old.contains(&value) != now.contains(&value))
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
        let now_pips: Vec<&str> = snap
            .arm
            .public_ips
            .iter()
            .filter_map(|p| p.address.as_deref())
            .collect();
        let stable = |list: &[AddressState]| -> Vec<AddressState> {
            list.iter()
                .filter(|a| !follows_workload(a, &old_pips, &now_pips))
                .cloned()
                .collect()
        };
        for node in &snap.nodes {
            let Some(before) = base.node(&node.name) else {
                continue;
            };
            if before.addresses != node.addresses
                && stable(&before.addresses) != stable(&node.addresses)
            {
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

    fn external(address: &str) -> AddressState {
        AddressState {
            type_: "ExternalIP".into(),
            address: address.into(),
        }
    }

    /// Node `node-0` behind Service `web`'s frontend (20.1.2.3) at the baseline; later the
    /// workload deleted that public IP and created 20.9.9.9, and `node-0` shows `later`.
    fn frontend_replaced(later: &'static [&'static str]) -> Run {
        let mut base = Run::healthy().baseline.expect("baseline");
        base.nodes[0].addresses.push(external("20.1.2.3"));
        Run::same(base).after(move |s| {
            let pip = &mut s.arm.public_ips[0];
            pip.id = format!("{}-new", pip.id);
            pip.address = Some("20.9.9.9".into());
            s.nodes[0].addresses.truncate(2);
            s.nodes[0]
                .addresses
                .extend(later.iter().map(|a| external(a)));
        })
    }

    #[test]
    fn an_external_ip_of_a_frontend_deleted_since_the_baseline_may_go_or_stay() {
        // Refreshed while no frontend was in front of the node (fault-5xx-lro-failed, `gone`
        // deleted before `web`'s frontend existed), after the new frontend, or not yet.
        for later in [&[][..], &["20.9.9.9"][..], &["20.1.2.3"][..]] {
            let run = frontend_replaced(later);
            assert_eq!(run.check(CHECK).verdict, Verdict::Pass, "{later:?}");
        }
        // The other addresses still count.
        let reordered = frontend_replaced(&[]).after(|s| s.nodes[0].addresses.reverse());
        assert_eq!(reordered.check(CHECK).verdict, Verdict::Fail);
        // An ExternalIP whose public IP still exists may not go.
        let mut base = Run::healthy().baseline.expect("baseline");
        base.nodes[0].addresses.push(external("20.1.2.3"));
        let dropped = Run::same(base).after(|s| s.nodes[0].addresses.truncate(2));
        assert_eq!(dropped.check(CHECK).verdict, Verdict::Fail);
    }
}
