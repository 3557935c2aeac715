//! `ingress-ip-stable` (P1, P9): every Service existing at baseline and not deleted by the scenario
//! keeps its `status.loadBalancer.ingress` in every later snapshot and never shows another (or no)
//! ingress in a sample; Services created later have an ingress at the end.

use std::collections::BTreeSet;

use super::{CheckInputs, Intent, require, verdict};
use crate::outcome::CheckResult;
use crate::scenario::CheckName;
use crate::snapshot::Snapshot;

const CHECK: CheckName = CheckName::IngressIpStable;

/// "PIP k8s-a… was recreated as kubernetes-a…" when the ARM side explains the change.
fn pip_story(before: &Snapshot, after: &Snapshot, old: &[String], new: &[String]) -> String {
    let old_pip = old.iter().find_map(|ip| before.arm.pip_by_address(ip));
    let new_pip = new.iter().find_map(|ip| after.arm.pip_by_address(ip));
    match (old_pip, new_pip) {
        (Some(o), Some(n)) if o.id != n.id => {
            let fate = if after.arm.public_ips.iter().any(|p| p.id == o.id) {
                "is left behind"
            } else {
                "is gone"
            };
            format!(
                "; PIP {} was recreated as {} (the old one {fate})",
                o.name, n.name
            )
        }
        (Some(o), None) if !after.arm.public_ips.iter().any(|p| p.id == o.id) => {
            format!("; PIP {} is gone", o.name)
        }
        _ => String::new(),
    }
}

fn show(list: &[String]) -> String {
    if list.is_empty() {
        "(none)".to_owned()
    } else {
        list.join(",")
    }
}

pub(super) fn check(inputs: &CheckInputs<'_>, intent: &Intent) -> CheckResult {
    let (base, last) = match require(
        CHECK,
        &[("baseline", inputs.baseline), ("final", inputs.final_)],
    ) {
        Ok(s) => (s[0], s[1]),
        Err(e) => return e,
    };
    let mut offenders = Vec::new();
    let kept: Vec<_> = base
        .services
        .iter()
        .filter(|s| !intent.service_deleted(&s.key()))
        .collect();
    for service in &kept {
        let key = service.key();
        for (label, snap) in inputs.later() {
            match snap.service(&key) {
                None => offenders.push(format!(
                    "service {key}: gone at {label} although the scenario did not delete it"
                )),
                Some(now) if now.ingress != service.ingress => offenders.push(format!(
                    "service {key}: ingress {} became {} at {label}{}",
                    show(&service.ingress),
                    show(&now.ingress),
                    pip_story(base, snap, &service.ingress, &now.ingress)
                )),
                Some(_) => {}
            }
        }
    }
    let mut flapped = BTreeSet::new();
    // Before the baseline a Service may still be waiting for its first ingress.
    for sample in inputs.samples.iter().filter(|s| s.at_ms >= base.taken_ms) {
        for s in sample.services.iter().flatten() {
            let Some(before) = kept.iter().find(|k| k.key() == s.service) else {
                continue;
            };
            if s.ingress != before.ingress && flapped.insert(s.service.clone()) {
                offenders.push(format!(
                    "service {}: ingress {} showed {} {}",
                    s.service,
                    show(&before.ingress),
                    show(&s.ingress),
                    intent.when(sample.at_ms)
                ));
            }
        }
    }
    for service in last
        .services
        .iter()
        .filter(|s| base.service(&s.key()).is_none())
    {
        if service.ingress.is_empty() && service.deletion_timestamp.is_none() {
            offenders.push(format!(
                "service {}: created during the run and still has no ingress at final",
                service.key()
            ));
        }
    }
    verdict(
        CHECK,
        offenders,
        format!(
            "{} Services kept their ingress; {} created later have one",
            kept.len(),
            last.services
                .iter()
                .filter(|s| base.service(&s.key()).is_none())
                .count()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::super::builders::*;
    use super::*;
    use crate::outcome::Verdict;
    use crate::record::MarkKind;

    #[test]
    fn a_recreated_pip_is_named_in_the_reason() {
        assert_eq!(Run::healthy().check(CHECK).verdict, Verdict::Pass);
        let run = Run::healthy().after(|s| {
            s.services[0].ingress = vec!["20.1.2.9".into()];
            let pip = &mut s.arm.public_ips[0];
            pip.address = Some("20.1.2.9".into());
            pip.name = pip.name.replacen("k8s-", "kubernetes-", 1);
            pip.id = pip.id.replacen("/k8s-", "/kubernetes-", 1);
        });
        insta::assert_snapshot!(shown(&run.check(CHECK)));
    }

    #[test]
    fn a_deleted_service_is_excused_and_a_sample_flap_fails() {
        let mut run = Run::healthy().after(|s| s.services.clear());
        assert_eq!(run.check(CHECK).verdict, Verdict::Fail);
        run.marks
            .push(mark(1, MarkKind::ServiceDeleted(obj("web"))));
        assert_eq!(run.check(CHECK).verdict, Verdict::Pass);

        // Before the baseline the Service was still waiting for its first ingress: not a flap.
        let mut early = Run::healthy();
        early.samples.push(crate::snapshot::Sample {
            at_ms: -5,
            leases: None,
            processes: vec![],
            nodes: None,
            services: Some(vec![crate::snapshot::ServiceSample {
                service: "default/web".into(),
                ingress: vec![],
                finalizer: false,
            }]),
            lb: None,
        });
        assert_eq!(early.check(CHECK).verdict, Verdict::Pass);

        let mut flap = Run::healthy();
        flap.samples.push(crate::snapshot::Sample {
            at_ms: 7,
            leases: None,
            processes: vec![],
            nodes: None,
            services: Some(vec![crate::snapshot::ServiceSample {
                service: "default/web".into(),
                ingress: vec![],
                finalizer: true,
            }]),
            lb: None,
        });
        let r = flap.check(CHECK);
        assert_eq!(
            r.reason,
            "service default/web: ingress 20.1.2.3 showed (none) at 7 ms"
        );
    }
}
