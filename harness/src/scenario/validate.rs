//! Cross-field rules of a parsed scenario: identity, version, topology, network, switch, checks, budgets
//! and expectation here; workload and faults in `validate_workload`. Produces a [`Scenario`] only when
//! no problem was found, so nothing starts on a bad file.

use super::check::CheckName;
use super::model::Scenario;
use super::problems::{DNS_LABEL, Problems, is_dns_label, line};
use super::spec::*;
use super::{validate_topology, validate_workload};
use ccm_manifests::KubeVersion;
use ipnet::IpNet;
use serde_saphyr::Spanned;
use std::collections::BTreeMap;
use std::path::Path;

/// Oldest Kubernetes minor a scenario may run.
pub const MIN_MINOR: u32 = 28;
/// Newest Kubernetes minor a scenario may run.
pub const MAX_MINOR: u32 = 33;
/// Newest minor with an in-tree Azure provider to go back to (deleted in 1.30, kubernetes#122857).
pub const LAST_IN_TREE_MINOR: u32 = 29;

/// What validation knows about where the text came from.
pub(crate) struct Origin<'a> {
    /// File name for messages.
    pub file: &'a str,
    /// The file stem the scenario name must equal (files only).
    pub stem: Option<&'a str>,
    /// Repository root topology files resolve against (existence is checked when known).
    pub repo_root: Option<&'a Path>,
}

/// Validates `spec`; every problem is reported, not only the first.
pub(crate) fn validate(
    spec: ScenarioSpec,
    origin: &Origin,
) -> Result<Scenario, Vec<super::error::Problem>> {
    let mut p = Problems::default();
    identity(&mut p, &spec, origin);
    let version = version(&mut p, &spec.kubernetes_version);
    topology(&mut p, &spec.topology, origin);
    let mode = spec
        .network
        .mode
        .as_ref()
        .map(|m| m.value)
        .unwrap_or_default();
    network(&mut p, &spec.network, mode);
    switch(&mut p, &spec.switch, &spec.cluster_name, version);
    validate_workload::services(&mut p, &spec.workload.services);
    validate_workload::churn(&mut p, &spec.workload.node_churn);
    validate_topology::check(&mut p, &spec, origin.repo_root);
    if let Some(faults) = &spec.faults {
        validate_workload::faults(&mut p, faults, spec.switch.node_init);
    }
    let checks = checks(&mut p, &spec, mode);
    budgets(&mut p, &spec.budgets, &checks);
    let expect = spec.expect.as_ref().map(|e| e.value).unwrap_or_default();
    if let (Expect::Fail(check), Some(at)) = (expect, &spec.expect)
        && !checks.contains(&check)
    {
        p.at(
            at,
            "expect.fail",
            format!(
                "'{check}' does not run in this scenario, so it cannot fail (running: {})",
                names(&checks)
            ),
        );
    }
    match (p.list.is_empty(), version) {
        (true, Some(version)) => Ok(Scenario {
            file: origin.file.to_string(),
            repo_root: origin.repo_root.map(Path::to_path_buf),
            version,
            checks,
            expect,
            spec,
        }),
        _ => {
            // File order reads best; problems without a line go last.
            p.list
                .sort_by_key(|problem| problem.line.unwrap_or(u64::MAX));
            Err(p.list)
        }
    }
}

fn names(checks: &[CheckName]) -> String {
    checks
        .iter()
        .map(|c| c.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn identity(p: &mut Problems, spec: &ScenarioSpec, origin: &Origin) {
    let name = &spec.name.value;
    if !is_dns_label(name) {
        p.at(
            &spec.name,
            "name",
            format!("'{name}' is not a scenario name ({DNS_LABEL})"),
        );
    }
    if let Some(stem) = origin.stem
        && stem != name
    {
        p.at(
            &spec.name,
            "name",
            format!("'{name}' differs from the file name '{stem}' (accepted: the file name without .yaml)"),
        );
    }
    cluster_name(p, &spec.cluster_name, "clusterName");
}

fn cluster_name(p: &mut Problems, value: &Spanned<String>, field: &str) {
    let v = &value.value;
    let ok = !v.is_empty()
        && v.len() <= 63
        && v.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if !ok {
        p.at(
            value,
            field,
            format!("'{v}' is not a cluster name (accepted: 1-63 letters, digits, '-' and '_'; it prefixes Azure resource names)"),
        );
    }
}

fn version(p: &mut Problems, value: &Spanned<String>) -> Option<KubeVersion> {
    let accepted = format!("accepted: 1.{MIN_MINOR} to 1.{MAX_MINOR}, quoted, e.g. \"1.29\"");
    match KubeVersion::parse(&value.value) {
        Ok(v) if (MIN_MINOR..=MAX_MINOR).contains(&v.minor()) => Some(v),
        _ => {
            p.at(
                value,
                "kubernetesVersion",
                format!(
                    "'{}' is not a supported Kubernetes version ({accepted})",
                    value.value
                ),
            );
            None
        }
    }
}

fn topology(p: &mut Problems, topology: &Spanned<TopologyRef>, origin: &Origin) {
    let root = origin.repo_root;
    match &topology.value {
        TopologyRef::File(rel) => {
            let path = Path::new(rel);
            let yaml = rel.ends_with(".yaml") || rel.ends_with(".yml");
            let parent = path
                .components()
                .any(|c| c == std::path::Component::ParentDir);
            if path.is_absolute() || parent || !yaml {
                p.at(
                    topology,
                    "topology.file",
                    format!("'{rel}' must be a .yaml path relative to the repository root without '..' (e.g. fakes/examples/small.yaml)"),
                );
            } else if root.is_none() && origin.stem.is_some() {
                p.at(
                    topology,
                    "topology.file",
                    format!("cannot resolve '{rel}': no directory above {} holds fakes/examples (keep scenarios inside the repository, or use topology.inline)", origin.file),
                );
            } else if let Some(root) = root
                && !root.join(path).is_file()
            {
                let known = examples(root);
                p.at(
                    topology,
                    "topology.file",
                    format!(
                        "'{rel}' does not exist under {} (accepted: {known})",
                        root.display()
                    ),
                );
            }
        }
        TopologyRef::Inline(value) => {
            if !value.is_object() {
                p.at(
                    topology,
                    "topology.inline",
                    "must be a topology document (a mapping with tenantId, subscriptionId, location, resourceGroups, network, ...)",
                );
            }
        }
    }
}

/// The topology files shipped in `fakes/examples`, for error messages.
fn examples(root: &Path) -> String {
    let mut files: Vec<String> = std::fs::read_dir(root.join("fakes/examples"))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.ends_with(".yaml"))
        .map(|n| format!("fakes/examples/{n}"))
        .collect();
    files.sort();
    if files.is_empty() {
        "a topology file under the repository, or topology.inline".into()
    } else {
        files.join(", ")
    }
}

fn network(p: &mut Problems, net: &NetworkSpec, mode: NetworkMode) {
    if mode == NetworkMode::AzureCni {
        let kubenet_only: [(&str, Option<u64>); 4] = [
            (
                "network.clusterCIDR",
                net.cluster_cidr.as_ref().and_then(line),
            ),
            (
                "network.nodeCIDRMaskSizeIPv4",
                net.node_cidr_mask_size_ipv4.as_ref().and_then(line),
            ),
            (
                "network.nodeCIDRMaskSizeIPv6",
                net.node_cidr_mask_size_ipv6.as_ref().and_then(line),
            ),
            (
                "network.cidrAllocator",
                net.cidr_allocator.as_ref().and_then(line),
            ),
        ];
        let given = [
            net.cluster_cidr.is_some(),
            net.node_cidr_mask_size_ipv4.is_some(),
            net.node_cidr_mask_size_ipv6.is_some(),
            net.cidr_allocator.is_some(),
        ];
        for ((field, at), set) in kubenet_only.into_iter().zip(given) {
            if set {
                p.err(
                    at,
                    field,
                    "only for network.mode kubenet (azure-cni has no routes and no node IPAM)",
                );
            }
        }
        return;
    }
    let Some(cidr) = &net.cluster_cidr else {
        let at = net.mode.as_ref().and_then(line);
        p.err(at, "network.clusterCIDR", "required with network.mode kubenet (accepted: an IPv4 CIDR, or IPv4 and IPv6 CIDRs separated by a comma, e.g. 10.244.0.0/16)");
        return;
    };
    let mut v4 = None;
    let mut v6 = None;
    for part in cidr.value.split(',').map(str::trim) {
        match part.parse::<IpNet>() {
            Ok(IpNet::V4(n)) if v4.is_none() => v4 = Some(n.prefix_len()),
            Ok(IpNet::V6(n)) if v6.is_none() => v6 = Some(n.prefix_len()),
            Ok(_) => p.at(
                cidr,
                "network.clusterCIDR",
                format!(
                    "'{}' has two CIDRs of one family (accepted: at most one IPv4 and one IPv6)",
                    cidr.value
                ),
            ),
            Err(_) => p.at(
                cidr,
                "network.clusterCIDR",
                format!("'{part}' is not a CIDR (e.g. 10.244.0.0/16 or fd00:10:244::/56)"),
            ),
        }
    }
    mask(
        p,
        net.node_cidr_mask_size_ipv4.as_ref(),
        v4,
        32,
        "network.nodeCIDRMaskSizeIPv4",
        "IPv4",
    );
    mask(
        p,
        net.node_cidr_mask_size_ipv6.as_ref(),
        v6,
        128,
        "network.nodeCIDRMaskSizeIPv6",
        "IPv6",
    );
}

fn mask(
    p: &mut Problems,
    size: Option<&Spanned<u8>>,
    prefix: Option<u8>,
    max: u8,
    field: &str,
    family: &str,
) {
    let Some(size) = size else { return };
    match prefix {
        None => p.at(
            size,
            field,
            format!("network.clusterCIDR has no {family} CIDR to split"),
        ),
        Some(prefix) if size.value < prefix || size.value > max => p.at(
            size,
            field,
            format!(
                "{} does not split a /{prefix} cluster CIDR (accepted: {prefix} to {max})",
                size.value
            ),
        ),
        Some(_) => {}
    }
}

fn switch(
    p: &mut Problems,
    s: &SwitchSpec,
    cluster: &Spanned<String>,
    version: Option<KubeVersion>,
) {
    let procedure = s.procedure.value;
    let minor = version.map(KubeVersion::minor);
    let in_tree_needed = matches!(procedure, Procedure::Rollback | Procedure::LeaderMigration);
    if in_tree_needed && minor.is_some_and(|m| m > LAST_IN_TREE_MINOR) {
        let name = if procedure == Procedure::Rollback {
            "rollback"
        } else {
            "leader-migration"
        };
        p.at(
            &s.procedure,
            "switch.procedure",
            format!("'{name}' needs an in-tree kube-controller-manager of this version, which exists only up to 1.{LAST_IN_TREE_MINOR} (the in-tree provider was deleted in 1.30, kubernetes#122857); accepted with this version: cold, quiesce"),
        );
    }
    if let Some(r) = &s.kcm_replicas {
        if !matches!(procedure, Procedure::Quiesce | Procedure::LeaderMigration) {
            p.at(r, "switch.kcmReplicas", "only for procedure quiesce or leader-migration (cold and rollback run one kube-controller-manager)");
        } else if r.value < 1 {
            p.at(r, "switch.kcmReplicas", "must be at least 1");
        }
    }
    if let Some(r) = &s.ccm_replicas
        && r.value < 1
    {
        p.at(
            r,
            "switch.ccmReplicas",
            "must be at least 1 (a switch needs a cloud-controller-manager)",
        );
    }
    if let Some(lm) = &s.leader_migration
        && procedure != Procedure::LeaderMigration
    {
        p.at(
            lm,
            "switch.leaderMigration",
            "only for procedure leader-migration",
        );
    }
    if let Some(lm) = &s.leader_migration
        && lm.value.config.is_some()
        && lm.value.wildcard
    {
        p.at(
            lm,
            "switch.leaderMigration.wildcard",
            "has no effect when config is given verbatim; drop one of them",
        );
    }
    if let Some(skip) = &s.skip_quiesce
        && procedure != Procedure::Quiesce
    {
        p.at(skip, "switch.skipQuiesce", "only for procedure quiesce");
    }
    if let Some(name) = &s.ccm_cluster_name {
        cluster_name(p, name, "switch.ccmClusterName");
        if name.value == cluster.value {
            p.at(
                name,
                "switch.ccmClusterName",
                "equals clusterName; drop it (it only exists to give the CCM a different name)",
            );
        }
    }
    flags(p, s.ccm_flags.as_ref(), "switch.ccmFlags");
    flags(p, s.cnm_flags.as_ref(), "switch.cnmFlags");
    flags(p, s.kcm_flags.as_ref(), "switch.kcmFlags");
    flags(p, s.kubelet_flags.as_ref(), "switch.kubeletFlags");
}

fn flags(p: &mut Problems, flags: Option<&Spanned<BTreeMap<String, String>>>, field: &str) {
    let Some(flags) = flags else { return };
    for key in flags.value.keys() {
        let ok = key.len() > 2
            && key.starts_with("--")
            && key[2..]
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-');
        if !ok {
            p.at(flags, format!("{field}.{key}"), "is not a flag name (accepted: --name, the value goes after ':', e.g. '--cluster-name: kubernetes')");
        }
    }
}

fn checks(p: &mut Problems, spec: &ScenarioSpec, mode: NetworkMode) -> Vec<CheckName> {
    let mut list = Vec::new();
    for (given, field) in [(&spec.checks, "checks"), (&spec.skip_checks, "skipChecks")] {
        if let Some(given) = given {
            for (i, c) in given.value.iter().enumerate() {
                if given.value[..i].contains(c) {
                    p.at(
                        given,
                        format!("{field}[{i}]"),
                        format!("'{c}' is listed twice"),
                    );
                }
            }
        }
    }
    if let (Some(_), Some(skip)) = (&spec.checks, &spec.skip_checks) {
        p.at(skip, "skipChecks", "exclusive with checks: list the checks to run, or the ones to skip from the default set");
    }
    if let Some(only) = &spec.checks {
        if only.value.is_empty() {
            p.at(
                only,
                "checks",
                "is empty (accepted: one or more check names; omit it to run the default set)",
            );
        }
        if mode == NetworkMode::AzureCni && only.value.contains(&CheckName::RoutesStable) {
            p.at(
                only,
                "checks",
                "'routes-stable' needs network.mode kubenet (azure-cni has no routes)",
            );
        }
        list.extend(only.value.iter().copied());
    } else {
        let skip = spec
            .skip_checks
            .as_ref()
            .map(|s| s.value.as_slice())
            .unwrap_or_default();
        list.extend(CheckName::ALL.into_iter().filter(|c| {
            let no_routes = mode == NetworkMode::AzureCni && *c == CheckName::RoutesStable;
            !skip.contains(c) && !no_routes
        }));
    }
    list.sort();
    list.dedup();
    list
}

fn budgets(p: &mut Problems, b: &Budgets, checks: &[CheckName]) {
    let given: [(Option<Option<u64>>, &str, CheckName); 5] = [
        (
            b.downtime.as_ref().map(line),
            "budgets.downtime",
            CheckName::Downtime,
        ),
        (
            b.time_to_ingress.as_ref().map(line),
            "budgets.timeToIngress",
            CheckName::TimeToIngress,
        ),
        (
            b.taint_removal_delay.as_ref().map(line),
            "budgets.taintRemovalDelay",
            CheckName::TaintRemovalDelay,
        ),
        (
            b.arm_calls_per_node.as_ref().map(line),
            "budgets.armCallsPerNode",
            CheckName::ArmCallBudget,
        ),
        (
            b.arm_calls_per_service.as_ref().map(line),
            "budgets.armCallsPerService",
            CheckName::ArmCallBudget,
        ),
    ];
    for (at, field, check) in given {
        if let Some(at) = at
            && !checks.contains(&check)
        {
            p.err(at, field, format!("check '{check}' does not run in this scenario, so its budget is unused (add it to checks or drop the budget)"));
        }
    }
}
