//! `provider-id-stable` (P5): every Node keeps a byte-identical `spec.providerID`; nodes that
//! appear later get one in the `azure:///subscriptions/.../providers/Microsoft.Compute/...` form.

use super::{CheckInputs, Intent, require, verdict};
use crate::outcome::CheckResult;
use crate::scenario::CheckName;

const CHECK: CheckName = CheckName::ProviderIdStable;

/// True for `azure:///subscriptions/<s>/resourceGroups/<rg>/providers/Microsoft.Compute/<rest>`.
pub(crate) fn well_formed(id: &str) -> bool {
    let Some(rest) = id.strip_prefix("azure:///subscriptions/") else {
        return false;
    };
    let parts: Vec<&str> = rest.splitn(5, '/').collect();
    parts.len() == 5
        && !parts[0].is_empty()
        && parts[1].eq_ignore_ascii_case("resourceGroups")
        && !parts[2].is_empty()
        && parts[3] == "providers"
        && parts[4].starts_with("Microsoft.Compute/")
        && parts[4].len() > "Microsoft.Compute/".len()
}

pub(super) fn check(inputs: &CheckInputs<'_>, _intent: &Intent) -> CheckResult {
    let base = match require(
        CHECK,
        &[("baseline", inputs.baseline), ("final", inputs.final_)],
    ) {
        Ok(s) => s[0],
        Err(e) => return e,
    };
    let show = |p: &Option<String>| p.clone().unwrap_or_else(|| "(none)".into());
    let mut offenders = Vec::new();
    for (label, snap) in inputs.later() {
        for node in &snap.nodes {
            match base.node(&node.name) {
                Some(before)
                    if before.provider_id.is_some() && before.provider_id != node.provider_id =>
                {
                    offenders.push(format!(
                        "node {}: providerID {} became {} at {label}",
                        node.name,
                        show(&before.provider_id),
                        show(&node.provider_id)
                    ));
                }
                _ if label == "final" && !node.provider_id.as_deref().is_some_and(well_formed) => {
                    offenders.push(format!(
                            "node {}: providerID {} at final is not azure:///subscriptions/<sub>/resourceGroups/<rg>/providers/Microsoft.Compute/...",
                            node.name,
                            show(&node.provider_id)
                        ));
                }
                _ => {}
            }
        }
    }
    verdict(
        CHECK,
        offenders,
        format!("{} nodes kept their providerID", base.nodes.len()),
    )
}

#[cfg(test)]
mod tests {
    use super::super::builders::*;
    use super::*;
    use crate::outcome::Verdict;

    #[test]
    fn passes_when_unchanged_and_fails_on_a_case_change() {
        assert_eq!(Run::healthy().check(CHECK).verdict, Verdict::Pass);
        let run = Run::healthy().after(|s| {
            s.nodes[0].provider_id = Some(
                "azure:///subscriptions/s/resourceGroups/RG/providers/Microsoft.Compute/virtualMachines/node-0".into(),
            )
        });
        insta::assert_snapshot!(shown(&run.check(CHECK)));
    }

    #[test]
    fn a_new_node_needs_a_well_formed_id_and_missing_snapshots_are_errors() {
        let run = Run::healthy().after(|s| {
            let mut n = node("node-2", "10.0.0.6");
            n.provider_id = Some("azure://node-2".into());
            s.nodes.push(n);
        });
        assert_eq!(run.check(CHECK).verdict, Verdict::Fail);
        let mut run = Run::healthy();
        run.final_ = None;
        let r = run.check(CHECK);
        assert_eq!(r.verdict, Verdict::Error);
        assert_eq!(
            r.reason,
            "no final snapshot: the run broke off before it was taken"
        );
        assert!(!well_formed(
            "azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/"
        ));
    }
}
