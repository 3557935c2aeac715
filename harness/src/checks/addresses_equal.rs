//! `addresses-equal` (P7): each Node's `status.addresses` (type, value and order) is the same in
//! every later snapshot.

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
    for (label, snap) in inputs.later() {
        for node in &snap.nodes {
            let Some(before) = base.node(&node.name) else {
                continue;
            };
            if before.addresses != node.addresses {
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
}
