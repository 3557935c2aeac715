//! `no-lb-recreate` (P10): the ARM diff baseline→switched and baseline→final (and →rollback) has
//! no forbidden entry under the allow-list of the scenario's Kubernetes minor; expected changes
//! and allowed additions are reported in the details.

use super::{CheckInputs, Intent, require};
use crate::outcome::{CheckResult, Verdict};
use crate::scenario::CheckName;
use crate::snapshot::{DiffClass, allow_list, diff, minor_of};

const CHECK: CheckName = CheckName::NoLbRecreate;

pub(super) fn check(inputs: &CheckInputs<'_>, _intent: &Intent) -> CheckResult {
    let base = match require(
        CHECK,
        &[
            ("baseline", inputs.baseline),
            ("switched", inputs.switched),
            ("final", inputs.final_),
        ],
    ) {
        Ok(s) => s[0],
        Err(e) => return e,
    };
    let Some(minor) = minor_of(&inputs.plan.kubernetes_version) else {
        return CheckResult::new(
            CHECK,
            Verdict::Error,
            format!(
                "Kubernetes version {} is not 1.N",
                inputs.plan.kubernetes_version
            ),
        );
    };
    let allow = allow_list(minor);
    let mut forbidden = Vec::new();
    let mut reported = Vec::new();
    let (mut expected, mut added) = (0, 0);
    for (label, snap) in inputs.later() {
        let d = diff(base, snap, &allow);
        for e in &d.entries {
            let line = format!("{label}: {e}");
            match e.class {
                DiffClass::Forbidden => forbidden.push(line),
                DiffClass::ExpectedChange => {
                    expected += 1;
                    reported.push(format!("expected at {line}"));
                }
                DiffClass::AllowedAddition => {
                    added += 1;
                    reported.push(format!("allowed at {line}"));
                }
                DiffClass::Identical => {}
            }
        }
    }
    let mut result = match forbidden.first() {
        None => CheckResult::new(
            CHECK,
            Verdict::Pass,
            format!(
                "no forbidden ARM change (allow-list 1.{minor}); {expected} expected changes, {added} allowed additions"
            ),
        ),
        Some(first) => {
            let more = if forbidden.len() > 1 {
                format!(" (and {} more)", forbidden.len() - 1)
            } else {
                String::new()
            };
            CheckResult::new(
                CHECK,
                Verdict::Fail,
                format!("forbidden ARM change at {first}{more}"),
            )
        }
    };
    forbidden.extend(reported);
    result.details = forbidden;
    result
}

#[cfg(test)]
mod tests {
    use super::super::builders::*;
    use super::*;

    #[test]
    fn tag_additions_pass_and_a_renamed_frontend_fails() {
        let run = Run::healthy().after(|s| {
            s.arm.public_ips[0]
                .tags
                .insert("k8s-azure-created-by".into(), "kubernetes-azure-dns".into());
        });
        let r = run.check(CHECK);
        assert_eq!(r.verdict, Verdict::Pass, "{r:?}");
        assert_eq!(r.details.len(), 2, "{r:?}");
        let renamed = Run::healthy().after(|s| {
            let f = &mut s.arm.load_balancers[0].frontends[0];
            f.id = f.id.replace("/a1a2b", "/x1a2b");
            f.name = f.name.replace("a1a2b", "x1a2b");
        });
        insta::assert_snapshot!(shown(&renamed.check(CHECK)));
    }
}
