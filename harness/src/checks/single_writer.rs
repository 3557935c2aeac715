//! `single-writer` (P2): never two managers running the same cloud loop.
//!
//! From the samples: a live process runs a loop when the loop needs no Lease, or when it holds the
//! loop's Lease (holder = `<its host name>_<uuid>`; with the host unknown, a held Lease counts as one
//! writer among the processes it governs). The cloud-node-managers together count as one writer.
//! Which Lease governs a process's loops is the run's final roster's answer where it differs from
//! the sample's: a given CCM build seen ignoring the migration Lease runs them under its own.
//! From the journal: after the CCM's first ARM write, the in-tree client never writes
//! (PUT/PATCH/DELETE/POST under Microsoft.Network or Microsoft.Compute) a resource the CCM also
//! writes, except in a rollback window.

use std::collections::{BTreeMap, BTreeSet};

use super::arm_call_budget::entry_ms;
use super::{CheckInputs, Intent, verdict};
use crate::cluster::Component;
use crate::outcome::{CheckResult, Verdict};
use crate::roster::{ManagedProcess, ManagerKind};
use crate::scenario::CheckName;
use crate::snapshot::{JournalEntry, Sample};

const CHECK: CheckName = CheckName::SingleWriter;

/// The writers of each loop at one sample: loop → writer labels. A process's loops are the
/// final `roster`'s for the run of it alive at the sample, else the sample's copy.
fn writers<'a>(
    sample: &'a Sample,
    roster: &'a [ManagedProcess],
) -> BTreeMap<&'a str, BTreeSet<String>> {
    let mut out: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    let mut by_lease: BTreeMap<(&str, &str), Vec<&crate::snapshot::ProcessSample>> =
        BTreeMap::new();
    for p in &sample.processes {
        let loops = roster
            .iter()
            .find(|r| r.name == p.name && r.alive_at(sample.at_ms))
            .map_or(&p.cloud_loops, |r| &r.cloud_loops);
        for (cloud_loop, lease) in loops {
            if lease.is_empty() {
                let who = if p.kind == ManagerKind::CloudNodeManager {
                    "the cloud-node-managers".to_owned()
                } else {
                    p.name.clone()
                };
                out.entry(cloud_loop).or_default().insert(who);
            } else {
                by_lease.entry((cloud_loop, lease)).or_default().push(p);
            }
        }
    }
    for ((cloud_loop, lease), procs) in by_lease {
        let Some(held) = sample.lease(lease).filter(|l| !l.holder.is_empty()) else {
            continue;
        };
        let known = procs
            .iter()
            .find(|p| crate::roster::identity_of(&held.holder, &p.hostname));
        let who = match known {
            Some(p) => Some(p.name.clone()),
            None => {
                let unknown: Vec<&str> = procs
                    .iter()
                    .filter(|p| p.hostname.is_empty())
                    .map(|p| p.name.as_str())
                    .collect();
                match unknown.as_slice() {
                    [] => None,
                    [one] => Some((*one).to_owned()),
                    many => Some(format!("one of {} (lease {lease})", many.join("/"))),
                }
            }
        };
        if let Some(who) = who {
            out.entry(cloud_loop).or_default().insert(who);
        }
    }
    out
}

fn is_write(e: &JournalEntry) -> bool {
    let path = e.path.to_ascii_lowercase();
    e.surface == azure_fakes::journal::Surface::Arm
        && matches!(e.method.as_str(), "PUT" | "PATCH" | "DELETE" | "POST")
        && (path.contains("/providers/microsoft.network/")
            || path.contains("/providers/microsoft.compute/"))
}

/// The top-level resource of an ARM path (`.../providers/<ns>/<type>/<name>`), lower-cased.
fn resource(path: &str) -> String {
    let lower = path.to_ascii_lowercase();
    let parts: Vec<&str> = lower.split('/').collect();
    match parts.iter().position(|p| *p == "providers") {
        Some(i) => parts[..(i + 4).min(parts.len())].join("/"),
        None => lower,
    }
}

fn short(resource: &str) -> String {
    resource
        .split("/providers/")
        .nth(1)
        .unwrap_or(resource)
        .to_owned()
}

pub(super) fn check(inputs: &CheckInputs<'_>, intent: &Intent) -> CheckResult {
    if inputs.samples.is_empty() {
        return CheckResult::new(
            CHECK,
            Verdict::Error,
            "no samples: the sampler recorded nothing",
        );
    }
    let mut offenders = Vec::new();
    let mut seen: BTreeMap<(String, Vec<String>), (i64, usize)> = BTreeMap::new();
    for sample in inputs.samples {
        for (cloud_loop, who) in writers(sample, inputs.roster) {
            if who.len() > 1 {
                let key = (cloud_loop.to_owned(), who.into_iter().collect::<Vec<_>>());
                let e = seen.entry(key).or_insert((sample.at_ms, 0));
                e.1 += 1;
            }
        }
    }
    for ((cloud_loop, who), (first, count)) in seen {
        offenders.push(format!(
            "loop {cloud_loop}: run by {} at once, first seen {} ({count} samples)",
            who.join(" and "),
            intent.when(first)
        ));
    }
    let in_tree = Component::InTree.app().client_id;
    let ccm = Component::CloudControllerManager.app().client_id;
    let journal = inputs
        .rollback
        .or(inputs.final_)
        .or(inputs.switched)
        .map(|s| s.journal.as_slice())
        .unwrap_or_default();
    let first_rollback = intent.rollbacks.first().map(|r| r.0);
    let writes: Vec<&JournalEntry> = journal
        .iter()
        .filter(|e| is_write(e))
        .filter(|e| {
            let t = entry_ms(e).unwrap_or(i64::MIN);
            first_rollback.is_none_or(|r| t < r) && !intent.in_rollback(t)
        })
        .collect();
    let ccm_first = writes
        .iter()
        .find(|e| e.client_id.as_deref() == Some(ccm.as_str()))
        .map(|e| e.seq);
    if let Some(ccm_first) = ccm_first {
        let ccm_resources: BTreeSet<String> = writes
            .iter()
            .filter(|e| e.client_id.as_deref() == Some(ccm.as_str()))
            .map(|e| resource(&e.path))
            .collect();
        let mut reported = BTreeSet::new();
        for e in writes.iter().filter(|e| e.seq > ccm_first) {
            let r = resource(&e.path);
            if e.client_id.as_deref() == Some(in_tree.as_str())
                && ccm_resources.contains(&r)
                && reported.insert(r.clone())
            {
                offenders.push(format!(
                    "{}: in-tree {} (journal seq {}) after the CCM's first ARM write (seq {ccm_first})",
                    short(&r),
                    e.method,
                    e.seq
                ));
            }
        }
    }
    verdict(
        CHECK,
        offenders,
        format!(
            "one writer per cloud loop in {} samples; no interleaved in-tree/CCM ARM writes",
            inputs.samples.len()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::super::builders::*;
    use super::*;
    use crate::snapshot::{LeaseSample, ProcessSample};

    fn process(
        name: &str,
        kind: ManagerKind,
        lease: &str,
        identity: Option<&str>,
    ) -> ProcessSample {
        ProcessSample {
            name: name.into(),
            kind,
            hostname: identity.unwrap_or_default().to_owned(),
            cloud_loops: BTreeMap::from([("service-lb-controller".into(), lease.into())]),
        }
    }

    fn sample(at_ms: i64, processes: Vec<ProcessSample>) -> Sample {
        Sample {
            at_ms,
            leases: Some(vec![
                LeaseSample {
                    name: "kube-controller-manager".into(),
                    holder: "kcm-a".into(),
                    renew_ms: None,
                    duration_seconds: None,
                    transitions: None,
                },
                LeaseSample {
                    name: "cloud-controller-manager".into(),
                    holder: "ccm-a".into(),
                    renew_ms: None,
                    duration_seconds: None,
                    transitions: None,
                },
            ]),
            processes,
            nodes: None,
            services: None,
            lb: None,
        }
    }

    #[test]
    fn two_lease_holders_of_one_loop_fail_one_lease_passes() {
        let mut run = Run::healthy();
        let kcm = |n: &str, id| {
            process(
                n,
                ManagerKind::KubeControllerManager,
                "kube-controller-manager",
                id,
            )
        };
        run.samples = vec![sample(
            0,
            vec![
                kcm("kube-controller-manager-0", None),
                kcm("kube-controller-manager-1", None),
            ],
        )];
        assert_eq!(
            run.check(CHECK).verdict,
            Verdict::Pass,
            "{:?}",
            run.check(CHECK)
        );
        let ccm = process(
            "cloud-controller-manager-0",
            ManagerKind::CloudControllerManager,
            "cloud-controller-manager",
            Some("ccm-a"),
        );
        run.samples.push(sample(
            250,
            vec![kcm("kube-controller-manager-0", Some("kcm-a")), ccm.clone()],
        ));
        run.samples.push(sample(
            500,
            vec![kcm("kube-controller-manager-0", Some("kcm-a")), ccm],
        ));
        insta::assert_snapshot!(shown(&run.check(CHECK)));
    }

    #[test]
    fn a_ccm_the_roster_says_ignores_the_migration_lease_is_a_second_writer() {
        let mut run = Run::healthy();
        let migration = "cloud-provider-extraction-migration";
        let mut held = sample(
            0,
            vec![
                process(
                    "kube-controller-manager-0",
                    ManagerKind::KubeControllerManager,
                    migration,
                    Some("kcm-a"),
                ),
                process(
                    "cloud-controller-manager-0",
                    ManagerKind::CloudControllerManager,
                    migration,
                    Some("ccm-a"),
                ),
            ],
        );
        if let Some(leases) = held.leases.as_mut() {
            leases.push(LeaseSample {
                name: migration.into(),
                holder: "kcm-a".into(),
                renew_ms: None,
                duration_seconds: None,
                transitions: None,
            });
        }
        run.samples = vec![held];
        assert_eq!(run.check(CHECK).verdict, Verdict::Pass);
        let roster = crate::roster::Roster::new();
        roster.started(ManagedProcess {
            name: "cloud-controller-manager-0".into(),
            kind: ManagerKind::CloudControllerManager,
            cloud_loops: BTreeMap::from([("service-lb-controller".into(), migration.into())]),
            started_ms: 0,
            stopped_ms: None,
            hostname: "ccm-a".into(),
            pid: None,
            usage: None,
        });
        roster.reassign_lease(
            "cloud-controller-manager-0",
            migration,
            "cloud-controller-manager",
        );
        run.roster = roster.processes();
        let r = run.check(CHECK);
        assert_eq!(r.verdict, Verdict::Fail, "{r:?}");
        assert!(
            r.reason
                .contains("cloud-controller-manager-0 and kube-controller-manager-0"),
            "{}",
            r.reason
        );
    }

    #[test]
    fn in_tree_writes_after_the_ccm_on_the_same_lb_fail() {
        let write = |seq: u64, client: &str| -> JournalEntry {
            serde_json::from_value(serde_json::json!({
                "seq": seq, "time": "2026-01-01T00:00:00Z", "surface": "arm",
                "operation": "PUT Microsoft.Network/loadBalancers", "method": "PUT",
                "path": "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/loadBalancers/k8s/frontendIPConfigurations/x",
                "status": 200, "durationMs": 1.0, "throttled": false, "clientId": client
            }))
            .unwrap()
        };
        let mut run = Run::healthy();
        run.samples = vec![sample(0, vec![])];
        let (in_tree, ccm) = (
            Component::InTree.app().client_id,
            Component::CloudControllerManager.app().client_id,
        );
        run.final_.as_mut().unwrap().journal = vec![write(1, &in_tree), write(2, &ccm)];
        assert_eq!(run.check(CHECK).verdict, Verdict::Pass);
        run.final_
            .as_mut()
            .unwrap()
            .journal
            .push(write(3, &in_tree));
        let r = run.check(CHECK);
        assert_eq!(
            r.reason,
            "microsoft.network/loadbalancers/k8s: in-tree PUT (journal seq 3) after the CCM's first ARM write (seq 2)"
        );
    }
}
