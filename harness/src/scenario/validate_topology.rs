//! The topology a scenario names, loaded with the fake's own loader (so a bad topology is reported
//! before anything starts), and the node churn's references checked against it: scale sets,
//! availability sets, subnets and node names must exist.

use super::problems::Problems;
use super::spec::{ChurnSpec, ScenarioSpec, TopologyRef};
use azure_fakes::topology::{self, OrchestrationMode, Plan, instance_computer_name};
use serde_saphyr::Spanned;
use std::collections::BTreeSet;
use std::path::Path;

/// Loads the topology (file under `root`, or inline) and checks the churn references against it.
/// Files that do not resolve were already reported by the path rules.
pub(crate) fn check(p: &mut Problems, spec: &ScenarioSpec, root: Option<&Path>) {
    let loaded = match &spec.topology.value {
        TopologyRef::File(rel) => {
            let rel_path = Path::new(rel);
            let escapes = rel_path.is_absolute()
                || rel_path
                    .components()
                    .any(|c| c == std::path::Component::ParentDir);
            if escapes {
                return;
            }
            let Some(path) = root.map(|r| r.join(rel)).filter(|f| f.is_file()) else {
                return;
            };
            topology::load(&path)
        }
        TopologyRef::Inline(value) if value.is_object() => {
            topology::load_str(&value.to_string(), "topology.inline")
        }
        TopologyRef::Inline(_) => return,
    };
    match loaded {
        Ok(plan) => churn_refs(p, &spec.workload.node_churn, &plan),
        Err(e) => p.at(
            &spec.topology,
            "topology",
            format!("the fake refuses this topology: {e}"),
        ),
    }
}

/// What churn steps may name.
struct Names {
    nodes: BTreeSet<String>,
    scale_sets: BTreeSet<String>,
    /// Computer-name prefixes of scale sets (instances added by scaling have them).
    prefixes: Vec<String>,
    availability_sets: BTreeSet<String>,
    subnets: BTreeSet<String>,
}

impl Names {
    fn of(plan: &Plan) -> Self {
        let mut nodes: BTreeSet<String> =
            plan.vms.iter().map(|v| v.computer_name.clone()).collect();
        for s in plan
            .scale_sets
            .iter()
            .filter(|s| s.mode == OrchestrationMode::Uniform)
        {
            nodes.extend(
                (0..u64::from(s.instances))
                    .map(|i| instance_computer_name(&s.computer_name_prefix, i)),
            );
        }
        Self {
            nodes,
            scale_sets: plan
                .scale_sets
                .iter()
                .map(|s| s.name.to_ascii_lowercase())
                .collect(),
            prefixes: plan
                .scale_sets
                .iter()
                .map(|s| s.computer_name_prefix.clone())
                .collect(),
            availability_sets: plan
                .availability_sets
                .iter()
                .map(|a| a.name.to_ascii_lowercase())
                .collect(),
            subnets: plan.vnet.subnets.iter().map(|s| s.name.clone()).collect(),
        }
    }

    fn is_node(&self, name: &str) -> bool {
        self.nodes.contains(name) || self.prefixes.iter().any(|p| name.starts_with(p.as_str()))
    }
}

/// At most ten names, for an "accepted" list.
fn some(names: &BTreeSet<String>) -> String {
    let mut list: Vec<&str> = names.iter().map(String::as_str).take(10).collect();
    if names.len() > 10 {
        list.push("...");
    }
    if list.is_empty() {
        "none in this topology".into()
    } else {
        list.join(", ")
    }
}

fn churn_refs(p: &mut Problems, steps: &[Spanned<ChurnSpec>], plan: &Plan) {
    let mut names = Names::of(plan);
    for (i, step) in steps.iter().enumerate() {
        let at = format!("workload.nodeChurn[{i}]");
        let v = &step.value;
        if let Some(s) = &v.scale_set
            && !names.scale_sets.contains(&s.name.to_ascii_lowercase())
        {
            p.at(
                step,
                format!("{at}.scaleSet.name"),
                format!(
                    "'{}' is not a scale set of the topology (accepted: {})",
                    s.name,
                    some(&names.scale_sets)
                ),
            );
        }
        if let Some(add) = &v.add_vm {
            if names.is_node(&add.name) {
                p.at(
                    step,
                    format!("{at}.addVm.name"),
                    format!("'{}' is already a node of the topology", add.name),
                );
            }
            if let Some(set) = &add.availability_set
                && !names.availability_sets.contains(&set.to_ascii_lowercase())
            {
                p.at(
                    step,
                    format!("{at}.addVm.availabilitySet"),
                    format!(
                        "'{set}' is not an availability set of the topology (accepted: {})",
                        some(&names.availability_sets)
                    ),
                );
            }
            if let Some(subnet) = &add.subnet
                && !names.subnets.contains(subnet)
            {
                p.at(
                    step,
                    format!("{at}.addVm.subnet"),
                    format!(
                        "'{subnet}' is not a subnet of the topology (accepted: {})",
                        some(&names.subnets)
                    ),
                );
            }
            names.nodes.insert(add.name.clone());
        }
        let node_refs = [
            (v.delete_vm.as_ref().map(|n| &n.node), "deleteVm.node"),
            (v.power_state.as_ref().map(|n| &n.node), "powerState.node"),
            (v.stop_kubelet.as_ref().map(|n| &n.node), "stopKubelet.node"),
            (
                v.start_kubelet.as_ref().map(|n| &n.node),
                "startKubelet.node",
            ),
        ];
        for (node, field) in node_refs {
            if let Some(node) = node
                && !names.is_node(node)
            {
                p.at(step, format!("{at}.{field}"), format!("'{node}' is not a node of the topology or added before this step (accepted: {})", some(&names.nodes)));
            }
        }
    }
}
