//! `finalizer-present` (P9): every LoadBalancer Service carries
//! `service.kubernetes.io/load-balancer-cleanup` after the switch (switched, final, rollback).

use super::{CheckInputs, Intent, require, verdict};
use crate::outcome::CheckResult;
use crate::scenario::CheckName;

const CHECK: CheckName = CheckName::FinalizerPresent;

pub(super) fn check(inputs: &CheckInputs<'_>, _intent: &Intent) -> CheckResult {
    if let Err(e) = require(
        CHECK,
        &[("switched", inputs.switched), ("final", inputs.final_)],
    ) {
        return e;
    }
    let finalizer = ccm_names::finalizers::LOAD_BALANCER_CLEANUP;
    let mut offenders = Vec::new();
    let mut count = 0;
    for (label, snap) in inputs.later() {
        for service in snap
            .services
            .iter()
            .filter(|s| s.deletion_timestamp.is_none())
        {
            count += 1;
            if !service.finalizers.iter().any(|f| f == finalizer) {
                offenders.push(format!(
                    "service {}: no {finalizer} finalizer at {label} (finalizers: [{}])",
                    service.key(),
                    service.finalizers.join(", ")
                ));
            }
        }
    }
    verdict(
        CHECK,
        offenders,
        format!("{finalizer} on every LoadBalancer Service ({count} checked)"),
    )
}

#[cfg(test)]
mod tests {
    use super::super::builders::*;
    use super::*;
    use crate::outcome::Verdict;

    #[test]
    fn a_missing_finalizer_fails() {
        assert_eq!(Run::healthy().check(CHECK).verdict, Verdict::Pass);
        let run = Run::healthy().after(|s| s.services[0].finalizers.clear());
        insta::assert_snapshot!(shown(&run.check(CHECK)));
    }
}
