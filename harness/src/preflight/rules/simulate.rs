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

/// Gives the new sub-resources of a PUT body (NSG rules, frontends, pools, rules, probes, routes,
/// which a body carries without ids) the ids ARM will give them, `<resource>/<collection>/<name>`,
/// so the diff matches them by id like the ones read from ARM.
fn fill_child_ids(doc: &mut Value, resource: &str) {
    let Some(properties) = doc.get_mut("properties").and_then(Value::as_object_mut) else {
        return;
    };
    for (collection, items) in properties.iter_mut() {
        let Some(items) = items.as_array_mut() else {
            continue;
        };
        for item in items {
            let Some(map) = item.as_object_mut() else {
                continue;
            };
            let has_id = map
                .get("id")
                .and_then(Value::as_str)
                .is_some_and(|id| !id.is_empty());
            if has_id {
                continue;
            }
            if let Some(name) = map.get("name").and_then(Value::as_str).map(str::to_owned) {
                map.insert(
                    "id".into(),
                    Value::String(format!("{resource}/{collection}/{name}")),
                );
            }
        }
    }
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
        fill_child_ids(&mut doc, &w.resource);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_sub_resources_of_a_put_body_get_their_arm_ids() {
        let nsg = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/networkSecurityGroups/nsg";
        let write = Planned {
            method: "PUT".into(),
            resource: nsg.into(),
            body: Some(json!({"properties": {"securityRules": [
                {"name": "k8s-azure-lb_allow_IPv4_x", "properties": {"priority": 500,
                 "access": "Allow", "direction": "Inbound", "protocol": "Tcp",
                 "destinationPortRange": "80", "sourceAddressPrefix": "Internet",
                 "destinationAddressPrefix": "20.1.2.3"}}]}})),
        };
        let after = simulate(&ArmResources::default(), &[&write]);
        let rules = &after.security_groups[0].rules;
        assert_eq!(
            rules[0].id,
            format!("{nsg}/securityRules/k8s-azure-lb_allow_IPv4_x").to_ascii_lowercase()
        );
        assert_eq!(after.security_groups[0].name, "nsg");
    }
}
