//! Cross-field rules of the workload (Services, node churn) and of the faults block. Fault rules are
//! compiled with the fake's own rule compiler, so a scenario accepts exactly what `azure-fakes` does.

use super::problems::{DNS_LABEL, Problems, is_dns_label};
use super::spec::*;
use azure_fakes::faults::CompiledRule;
use ipnet::IpNet;
use serde_saphyr::Spanned;
use std::collections::HashSet;
use std::net::IpAddr;

/// Services: unique names, ports, addresses and a create → update → delete order.
pub(crate) fn services(p: &mut Problems, services: &[Spanned<ServiceSpec>]) {
    let mut seen = HashSet::new();
    for (i, s) in services.iter().enumerate() {
        let at = format!("workload.services[{i}]");
        let v = &s.value;
        for (value, field) in [(&v.name, "name"), (&v.namespace, "namespace")] {
            if !is_dns_label(value) {
                p.at(
                    s,
                    format!("{at}.{field}"),
                    format!("'{value}' is not a valid {field} ({DNS_LABEL})"),
                );
            }
        }
        if !seen.insert((v.namespace.clone(), v.name.clone())) {
            p.at(
                s,
                format!("{at}.name"),
                format!(
                    "duplicate service '{}/{}' (service names are unique per namespace)",
                    v.namespace, v.name
                ),
            );
        }
        ports(p, s, &v.ports, &format!("{at}.ports"));
        if let Some(ip) = &v.load_balancer_ip
            && ip.parse::<IpAddr>().is_err()
        {
            p.at(
                s,
                format!("{at}.loadBalancerIP"),
                format!("'{ip}' is not an IP address (e.g. 20.1.2.3)"),
            );
        }
        for (j, r) in v.load_balancer_source_ranges.iter().enumerate() {
            if r.parse::<IpNet>().is_err() {
                p.at(
                    s,
                    format!("{at}.loadBalancerSourceRanges[{j}]"),
                    format!("'{r}' is not a CIDR (e.g. 203.0.113.0/24)"),
                );
            }
        }
        for (j, u) in v.updates.iter().enumerate() {
            let field = format!("{at}.updates[{j}].phase");
            if u.phase < v.create {
                p.at(
                    s,
                    &field,
                    format!(
                        "'{}' is before the service is created ('{}'; accepted: {} or later)",
                        phase(u.phase),
                        phase(v.create),
                        phase(v.create)
                    ),
                );
            }
            if let Some(d) = v.delete
                && u.phase > d
            {
                p.at(
                    s,
                    &field,
                    format!(
                        "'{}' is after the service is deleted ('{}')",
                        phase(u.phase),
                        phase(d)
                    ),
                );
            }
            if let Some(ports_after) = &u.ports {
                ports(p, s, ports_after, &format!("{at}.updates[{j}].ports"));
            }
            let empty = u.annotations.is_empty()
                && u.remove_annotations.is_empty()
                && u.ports.is_none()
                && u.external_traffic_policy.is_none();
            if empty {
                p.at(s, format!("{at}.updates[{j}]"), "changes nothing (accepted: annotations, removeAnnotations, ports, externalTrafficPolicy)");
            }
        }
        if let Some(d) = v.delete
            && d < v.create
        {
            p.at(
                s,
                format!("{at}.delete"),
                format!(
                    "'{}' is before the service is created ('{}'; accepted: {} or later)",
                    phase(d),
                    phase(v.create),
                    phase(v.create)
                ),
            );
        }
    }
}

fn ports(p: &mut Problems, s: &Spanned<ServiceSpec>, ports: &[PortSpec], at: &str) {
    if ports.is_empty() {
        p.at(s, at, "a LoadBalancer Service needs at least one port");
    }
    let mut names = HashSet::new();
    let mut numbers = HashSet::new();
    for (i, port) in ports.iter().enumerate() {
        if port.port == 0 {
            p.at(
                s,
                format!("{at}[{i}].port"),
                "0 is not a port (accepted: 1-65535)",
            );
        }
        if !numbers.insert((port.port, port.protocol)) {
            p.at(
                s,
                format!("{at}[{i}].port"),
                format!("port {} is listed twice for one protocol", port.port),
            );
        }
        match &port.name {
            Some(n) if !names.insert(n.clone()) => p.at(
                s,
                format!("{at}[{i}].name"),
                format!("duplicate port name '{n}'"),
            ),
            None if ports.len() > 1 => p.at(
                s,
                format!("{at}[{i}].name"),
                "required when a Service has several ports",
            ),
            _ => {}
        }
    }
}

/// Node churn: exactly one action per step.
pub(crate) fn churn(p: &mut Problems, steps: &[Spanned<ChurnSpec>]) {
    for (i, step) in steps.iter().enumerate() {
        let v = &step.value;
        let count = [
            v.scale_set.is_some(),
            v.add_vm.is_some(),
            v.delete_vm.is_some(),
            v.power_state.is_some(),
            v.stop_kubelet.is_some(),
            v.start_kubelet.is_some(),
        ]
        .into_iter()
        .filter(|set| *set)
        .count();
        if count != 1 {
            p.at(step, format!("workload.nodeChurn[{i}]"), format!("has {count} actions (accepted: exactly one of scaleSet, addVm, deleteVm, powerState, stopKubelet, startKubelet)"));
        }
    }
}

/// Faults: the rules compile with the fake's compiler; process disruptions hit a process that runs then.
pub(crate) fn faults(p: &mut Problems, faults: &Spanned<FaultsSpec>, node_init: NodeInit) {
    let f = &faults.value;
    if f.rules.is_empty() && f.processes.is_empty() {
        p.at(
            faults,
            "faults",
            "has neither rules nor processes (drop the block or add one)",
        );
    }
    for (i, rule) in f.rules.iter().enumerate() {
        let at = format!("faults.rules[{i}]");
        if let Err(e) = CompiledRule::compile(rule.value.clone(), &at, format!("scenario-{i}")) {
            let text = e.to_string();
            let (field, message) = text
                .split_once(": ")
                .unwrap_or((at.as_str(), text.as_str()));
            p.at(rule, field, message);
        }
    }
    for (i, proc_fault) in f.processes.iter().enumerate() {
        let at = format!("faults.processes[{i}]");
        match proc_fault.action {
            ProcessAction::KillCloudControllerManager | ProcessAction::KillCloudNodeManager
                if proc_fault.phase == Phase::Before =>
            {
                p.at(faults, format!("{at}.phase"), "the out-of-tree managers do not run before the switch (accepted: during, after)");
            }
            ProcessAction::KillCloudNodeManager if node_init != NodeInit::CloudNodeManager => {
                p.at(faults, format!("{at}.action"), "no cloud-node-manager runs with switch.nodeInit cloud-controller-manager (accepted: kill-cloud-controller-manager, kill-kube-controller-manager, restart-kube-apiserver)");
            }
            ProcessAction::KillKubeControllerManager if proc_fault.phase == Phase::During => {
                p.at(faults, format!("{at}.phase"), "the switch procedure itself stops and restarts the kube-controller-manager during the switch (accepted: before, after)");
            }
            _ => {}
        }
    }
}

/// Phase name as written.
pub(crate) fn phase(p: Phase) -> &'static str {
    match p {
        Phase::Before => "before",
        Phase::During => "during",
        Phase::After => "after",
    }
}
