//! `pip-id-stable` (P1): the public IP resource behind each Service's ingress keeps its ARM id,
//! and no new PIP appears for a Service that already had one.

use super::{CheckInputs, Intent, require, verdict};
use crate::outcome::CheckResult;
use crate::scenario::CheckName;
use crate::snapshot::{PublicIp, ServiceState};

const CHECK: CheckName = CheckName::PipIdStable;

fn names_service(pip: &PublicIp, service: &ServiceState) -> bool {
    let key = service.key();
    pip.name.contains(&service.base_name())
        || [
            ccm_names::resource_tags::SERVICE,
            ccm_names::resource_tags::LEGACY_SERVICE,
        ]
        .iter()
        .filter_map(|t| pip.tags.get(*t))
        .any(|v| v.split(',').any(|s| s.trim() == key))
}

pub(super) fn check(inputs: &CheckInputs<'_>, intent: &Intent) -> CheckResult {
    let base = match require(
        CHECK,
        &[("baseline", inputs.baseline), ("final", inputs.final_)],
    ) {
        Ok(s) => s[0],
        Err(e) => return e,
    };
    let mut offenders = Vec::new();
    let mut pips = 0;
    for service in base
        .services
        .iter()
        .filter(|s| !intent.service_deleted(&s.key()))
    {
        let key = service.key();
        let owned: Vec<&PublicIp> = service
            .ingress
            .iter()
            .filter_map(|ip| base.arm.pip_by_address(ip))
            .collect();
        pips += owned.len();
        for (label, snap) in inputs.later() {
            for old in &owned {
                let address = old.address.as_deref().unwrap_or_default();
                match snap.arm.pip_by_address(address) {
                    Some(now) if now.id == old.id => {}
                    Some(now) => offenders.push(format!(
                        "service {key}: PIP of {address} was {} and is {} at {label}",
                        old.name, now.name
                    )),
                    None => offenders.push(format!(
                        "service {key}: PIP {} ({address}) {} at {label}",
                        old.name,
                        if snap.arm.public_ips.iter().any(|p| p.id == old.id) {
                            "lost its address"
                        } else {
                            "is gone"
                        }
                    )),
                }
            }
            for new in snap
                .arm
                .public_ips
                .iter()
                .filter(|p| !base.arm.public_ips.iter().any(|b| b.id == p.id))
                .filter(|p| names_service(p, service))
            {
                offenders.push(format!(
                    "service {key}: new PIP {} at {label} (baseline had {})",
                    new.name,
                    owned
                        .iter()
                        .map(|p| p.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
        }
    }
    verdict(
        CHECK,
        offenders,
        format!("{pips} Service PIPs kept their ids; no new PIP for an existing Service"),
    )
}

#[cfg(test)]
mod tests {
    use super::super::builders::*;
    use super::*;
    use crate::outcome::Verdict;

    #[test]
    fn a_second_pip_for_the_service_fails() {
        assert_eq!(Run::healthy().check(CHECK).verdict, Verdict::Pass);
        let run = Run::healthy().after(|s| {
            let mut extra = s.arm.public_ips[0].clone();
            extra.name = extra.name.replacen("k8s-", "kubernetes-", 1);
            extra.id = extra.id.replacen("/k8s-", "/kubernetes-", 1);
            extra.address = Some("20.1.2.9".into());
            s.arm.public_ips.push(extra);
        });
        insta::assert_snapshot!(shown(&run.check(CHECK)));
    }
}
