//! P1 (`--cluster-name` against the existing public IPs, their cluster tags and load balancers)
//! and P10 (the ARM writes of the load balancer dry run).
//!
//! Sources: managed public IP name `<cluster>-<a+uid>` and load balancer name = cluster name
//! (`-internal` for internal ones) unless `loadBalancerName` is set: anchor-ccm.md §4.3; tags
//! `k8s-azure-cluster-name` / legacy `kubernetes-cluster-name`: anchor-ccm.md §4.8 (ccm-names
//! `resource_tags`); the pitfall and its detection: migration.md §3 P1, P10.

use ccm_names::resource_tags::{CLUSTER_NAME, LEGACY_CLUSTER_NAME};
use ccm_names::service_annotations::PIP_NAME;

use super::{Facts, Planned, S, last_segment};
use crate::preflight::finding::Finding;
use crate::snapshot::{DiffClass, DiffEntry};

fn regenerate(name: &str) -> String {
    format!(
        "run the CCM with --cluster-name={name} (the name kube-controller-manager uses today): \
         `harness manifests generate --mode out-of-tree --cluster-name {name} ...` or edit the \
         flag in cloud-controller-manager.manifest"
    )
}

/// P1: each LoadBalancer Service's public IP, its cluster tag and its load balancer against the
/// target `--cluster-name`.
pub fn cluster_name(facts: &Facts<'_>) -> Vec<Finding> {
    let target = facts.target.ccm_cluster_name();
    let mut out = Vec::new();
    for svc in facts.services {
        if svc.load_balancer_class.is_some() || svc.deletion_timestamp.is_some() {
            continue;
        }
        let object = format!("Service {}", svc.key());
        let base = svc.base_name();
        for ip in &svc.ingress {
            let Some(pip) = facts.arm.pip_by_address(ip) else {
                continue;
            };
            let user_named = svc.annotations.contains_key(PIP_NAME);
            let marker = format!("-{base}");
            let name_owner = pip
                .name
                .find(&marker)
                .map(|pos| &pip.name[..pos])
                .filter(|owner| !user_named && !owner.eq_ignore_ascii_case(target));
            let tag_owner = [CLUSTER_NAME, LEGACY_CLUSTER_NAME]
                .iter()
                .find_map(|k| pip.tags.get(*k))
                .filter(|owner| !owner.eq_ignore_ascii_case(target));
            if let Some(owner) = name_owner.or(tag_owner.map(String::as_str)) {
                out.push(Finding::new(
                    S::Block,
                    "P1",
                    object.clone(),
                    format!(
                        "public IP {} ({ip}) belongs to cluster name '{owner}' (name or \
                         {CLUSTER_NAME} tag); with --cluster-name={target} the CCM would create \
                         {target}{marker}, move the Service to a new IP and orphan {}: PIP that \
                         would be recreated: {}",
                        pip.name, pip.name, pip.name
                    ),
                    regenerate(owner),
                ));
                continue;
            }
            if facts.settings.load_balancer_name.is_some() {
                continue;
            }
            let lb = facts.arm.load_balancers.iter().find(|lb| {
                lb.frontends
                    .iter()
                    .any(|f| f.public_ip_id.as_deref() == Some(pip.id.as_str()))
            });
            if let Some(lb) = lb {
                let owner = lb.name.strip_suffix("-internal").unwrap_or(&lb.name);
                if !owner.eq_ignore_ascii_case(target) {
                    out.push(Finding::new(
                        S::Block,
                        "P1",
                        object.clone(),
                        format!(
                            "its frontend is on load balancer {}; with --cluster-name={target} the \
                             CCM would put it on load balancer {target} instead (a new frontend, \
                             rules and probes)",
                            lb.name
                        ),
                        regenerate(owner),
                    ));
                }
            }
        }
    }
    for live in facts.live_kcm {
        let live_name = live
            .cluster_name
            .as_deref()
            .unwrap_or(crate::preflight::target::DEFAULT_CLUSTER_NAME);
        if live.cloud_provider.as_deref() == Some("azure")
            && !live_name.eq_ignore_ascii_case(target)
        {
            out.push(Finding::new(
                S::Block,
                "P1",
                live.location.clone(),
                format!(
                    "the running in-tree kube-controller-manager uses --cluster-name={live_name}, \
                     the target CCM --cluster-name={target}: every load balancer and public IP \
                     would be recreated under the new name"
                ),
                regenerate(live_name),
            ));
        }
    }
    let kcm_names: Vec<&str> = facts
        .target
        .kcm
        .iter()
        .filter_map(|k| k.cluster_name.as_deref())
        .collect();
    for name in kcm_names {
        if !name.eq_ignore_ascii_case(target) {
            out.push(Finding::new(
                S::Warn,
                "P1",
                "kube-controller-manager (target manifests)",
                format!("--cluster-name={name} differs from the CCM's --cluster-name={target}"),
                "give both controller-managers the same --cluster-name",
            ));
        }
    }
    out
}

/// P10: the dry run's writes, classified against the ARM resources read and the allow-list
/// (`judged`: each write with its diff entries, in dry-run order).
pub fn dry_runs(facts: &Facts<'_>, judged: &[(Planned, Vec<DiffEntry>)]) -> Vec<Finding> {
    let mut out = Vec::new();
    let pip_ids: Vec<&str> = facts.arm.public_ips.iter().map(|p| p.id.as_str()).collect();
    let lb_ids: Vec<&str> = facts
        .arm
        .load_balancers
        .iter()
        .map(|l| l.id.as_str())
        .collect();
    for run in facts.dry_runs {
        let object = format!("Service {}", run.service);
        let writes = match &run.writes {
            Ok(writes) => writes,
            Err(error) => {
                out.push(Finding::new(
                    S::Block,
                    "P10",
                    object,
                    format!("the CCM cannot plan this Service with the target config: {error}"),
                    "fix the azure.json or the Service annotations named in the error",
                ));
                continue;
            }
        };
        for w in writes {
            let (method, resource) = (&w.method, &w.resource);
            let changes: Vec<&DiffEntry> = judged
                .iter()
                .filter(|(p, _)| p == w)
                .flat_map(|(_, c)| c)
                .collect();
            let forbidden: Vec<String> = changes
                .iter()
                .filter(|c| c.class == DiffClass::Forbidden)
                .map(ToString::to_string)
                .collect();
            let lower = resource.to_ascii_lowercase();
            let name = last_segment(resource);
            let finding = if method == "DELETE" {
                Finding::new(
                    S::Block,
                    "P10",
                    object.clone(),
                    format!("the first reconcile would DELETE {resource}"),
                    "find out why the target config does not own this resource (cluster name, \
                     resource group, SKU) before switching",
                )
            } else if lower.contains("/publicipaddresses/") && !pip_ids.contains(&lower.as_str()) {
                Finding::new(
                    S::Block,
                    "P1",
                    object.clone(),
                    format!(
                        "the first reconcile would create public IP {name}: the Service's \
                         external IP would change"
                    ),
                    "use the --cluster-name (and PIP resource group) that names the existing \
                     public IP",
                )
            } else if lower.contains("/loadbalancers/") && !lb_ids.contains(&lower.as_str()) {
                Finding::new(
                    S::Block,
                    "P1",
                    object.clone(),
                    format!("the first reconcile would create load balancer {name}"),
                    "use the --cluster-name / loadBalancerName that names the existing load \
                     balancer",
                )
            } else if forbidden.is_empty() {
                Finding::new(
                    S::Info,
                    "P10",
                    object.clone(),
                    format!(
                        "the first reconcile would update {name}, with allow-listed changes only: {}",
                        changes
                            .iter()
                            .map(ToString::to_string)
                            .collect::<Vec<_>>()
                            .join("; ")
                    ),
                    "",
                )
            } else {
                Finding::new(
                    S::Block,
                    "P10",
                    object.clone(),
                    format!(
                        "the first reconcile would change {name} outside the migration allow-list: {}",
                        forbidden.join("; ")
                    ),
                    "make the target azure.json and Service annotations match what the in-tree \
                     provider deployed (SKU, probes, NSG settings), or accept the change knowingly \
                     (docs/migrating-a-real-cluster.md, P10)",
                )
            };
            out.push(finding);
        }
        for note in &run.notes {
            out.push(Finding::new(
                S::Info,
                "P10",
                object.clone(),
                note.clone(),
                "",
            ));
        }
    }
    out
}
