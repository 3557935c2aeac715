//! What ARM would look like after the dry run's writes, judged by the rehearsals' own ARM diff and
//! its versioned allow-list (`snapshot::diff`, `snapshot::allow_list`): a write whose every change
//! is allow-listed (a `k8s-azure-*` tag added, the consolidated NSG rule replacing the in-tree
//! per-Service rules, ...) is the expected first-reconcile drift; any other change is not.
//!
//! - [infer] a PUT body holds the whole resource as the CCM would leave it (the reconcile
//!   reads, modifies and writes whole documents), so reducing it like an ARM GET answer gives the
//!   resource after the write; fields ARM fills in (a new PIP's address) are absent.

use serde_json::{Value, json};

use super::{Facts, Planned};
use crate::snapshot::{ArmResources, DiffClass, DiffEntry, Snapshot, allow_list, diff};

/// The admin-export kind of an ARM id, for the resources a Service reconcile writes.
fn kind_of(resource: &str) -> Option<&'static str> {
    let lower = resource.to_ascii_lowercase();
    [
        ("/publicipaddresses/", "PublicIp"),
        ("/loadbalancers/", "LoadBalancer"),
        ("/networksecuritygroups/", "Nsg"),
        ("/routetables/", "RouteTable"),
    ]
    .into_iter()
    .find(|(segment, _)| lower.contains(segment))
    .map(|(_, kind)| kind)
}

fn remove(arm: &mut ArmResources, id: &str) {
    arm.public_ips.retain(|r| r.id != id);
    arm.load_balancers.retain(|r| r.id != id);
    arm.security_groups.retain(|r| r.id != id);
    arm.route_tables.retain(|r| r.id != id);
}

/// `arm` after `writes`, in order.
pub fn simulate(arm: &ArmResources, writes: &[&Planned]) -> ArmResources {
    let mut out = arm.clone();
    for w in writes {
        let id = w.resource.to_ascii_lowercase();
        remove(&mut out, &id);
        if w.method != "PUT" {
            continue;
        }
        let (Some(kind), Some(body)) = (kind_of(&w.resource), &w.body) else {
            continue;
        };
        let mut doc = body.clone();
        if let Some(map) = doc.as_object_mut() {
            map.entry("id")
                .or_insert_with(|| Value::String(w.resource.clone()));
            let name = w.resource.rsplit('/').next().unwrap_or_default();
            map.entry("name")
                .or_insert_with(|| Value::String(name.to_owned()));
        }
        let one = ArmResources::from_admin_state(
            &json!({"arm": {"entries": [{"kind": kind, "doc": doc}]}}),
        );
        out.public_ips.extend(one.public_ips);
        out.load_balancers.extend(one.load_balancers);
        out.security_groups.extend(one.security_groups);
        out.route_tables.extend(one.route_tables);
    }
    out.sort();
    out
}

/// Each write's changes (non-identical diff entries under its resource), judged by the allow-list
/// of `facts.minor`.
pub fn judge(facts: &Facts<'_>) -> Vec<(Planned, Vec<DiffEntry>)> {
    let writes: Vec<&Planned> = facts
        .dry_runs
        .iter()
        .filter_map(|d| d.writes.as_ref().ok())
        .flatten()
        .collect();
    let snapshot = |label: &str, arm: ArmResources| Snapshot {
        label: label.to_owned(),
        taken_ms: 0,
        nodes: facts.nodes.to_vec(),
        services: facts.services.to_vec(),
        events: Vec::new(),
        leases: Vec::new(),
        arm,
        journal: Vec::new(),
    };
    let before = snapshot("baseline", facts.arm.clone());
    let after = snapshot("switched", simulate(facts.arm, &writes));
    let changes = diff(&before, &after, &allow_list(facts.minor));
    writes
        .into_iter()
        .map(|w| {
            let id = w.resource.to_ascii_lowercase();
            let entries = changes
                .entries
                .iter()
                .filter(|e| e.class != DiffClass::Identical && e.resource.starts_with(&id))
                .cloned()
                .collect();
            (w.clone(), entries)
        })
        .collect()
}
