//! The nodes ARM holds right now (standalone and flexible VMs, uniform scale-set instances), read
//! from the store on every call so VMs added, scaled or deleted through the admin API or ARM
//! itself, and a state restored from a snapshot, are listed as they are.

use fake_arm::{ArmError, ArmState};
use serde_json::Value;

use crate::topology::SeededNode;
use crate::topology::lookup::{describe, load};

/// Every node of `subscription`, sorted by node name.
pub fn current_nodes(arm: &ArmState, subscription: &str) -> Result<Vec<SeededNode>, ArmError> {
    let compute = format!("/subscriptions/{subscription}/providers/Microsoft.Compute");
    let mut ids: Vec<String> = arm
        .list(&format!("{compute}/virtualMachines"))?
        .iter()
        .filter_map(|vm| vm["id"].as_str().map(str::to_string))
        .collect();
    for set in arm.list(&format!("{compute}/virtualMachineScaleSets"))? {
        let uniform = set
            .pointer("/properties/orchestrationMode")
            .and_then(Value::as_str)
            .is_none_or(|mode| mode.eq_ignore_ascii_case("Uniform"));
        let Some(set_id) = set["id"].as_str().filter(|_| uniform) else {
            continue;
        };
        ids.extend(
            arm.list(&format!("{set_id}/virtualMachines"))?
                .iter()
                .filter_map(|vm| vm["id"].as_str().map(str::to_string)),
        );
    }
    let mut nodes = Vec::with_capacity(ids.len());
    for id in ids {
        if let Some(vm) = load(arm, &id)? {
            nodes.push(describe(arm, &vm));
        }
    }
    nodes.sort_by(|a, b| a.node_name.cmp(&b.node_name));
    Ok(nodes)
}
