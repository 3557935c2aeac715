//! `harness preflight`: before a real cluster's switch to the out-of-tree CCM, read the live
//! cluster and ARM, and say what the target manifests would break. Each [`Finding`] names the
//! object and the fix; any `BLOCK` finding makes the exit code 1.
//!
//! What is checked (migration.md §3; the rules live in [`rules`], pure and snapshot-tested):
//! - P1: the target CCM's `--cluster-name` against each LoadBalancer Service's public IP name,
//!   its `k8s-azure-cluster-name` / legacy `kubernetes-cluster-name` tag and its load balancer;
//!   and against the running in-tree kube-controller-manager's (its mirror Pod in kube-system);
//! - P4, P5: every Node resolved with the target config by the CCM's own `InstanceExists` and
//!   `InstanceMetadata` (a wrong `vmType`, resource group or credential shows up as a Node that
//!   would be deleted, or a providerID that would differ);
//! - P6: Deployments, StatefulSets, DaemonSets, CronJobs and PersistentVolumes that select nodes
//!   by beta topology labels;
//! - P10: the ARM writes the target CCM would send on its first reconcile, from the CCM's load
//!   balancer dry run (`LbReconciler::dry_run`); zero is the goal;
//! - P12: exactly one pod CIDR allocator among the target controller-managers;
//! - P17: leader-migration flags that would be ignored;
//! - lint: the target manifests against the cluster's Kubernetes version (ccm-manifests).
//!
//! The target config is the live `--cloud-config` with the target azure.json's cluster-shape keys
//! laid over it ([`target::overlay`]). Reads only; ARM through the [`ReadBudget`].
//!
//! - [infer] the cluster's minor version (`/version` of the API server) is the version the target
//!   manifests run at; `--kubernetes-version` overrides it for a switch combined with an upgrade.

pub mod finding;
pub mod rules;
pub mod target;

use std::path::{Path, PathBuf};

use anyhow::Context;
use ccm_cloud::InstancesV2;
use ccm_manifests::KubeVersion;
use k8s_openapi::api::apps::v1::{DaemonSet, Deployment, StatefulSet};
use k8s_openapi::api::batch::v1::CronJob;
use k8s_openapi::api::core::v1::{Node, PersistentVolume, Service};
use kube::Api;
use serde_json::Value;

pub use finding::{Finding, PlannedWrite, PreflightReport, Severity};
pub use rules::{DryRun, Facts, NodeResolution, Resolution, TargetSettings};
pub use target::Target;

use crate::cluster::ClusterProvider;
use crate::realcluster::{
    KubeconfigCluster, ReadBudget, RealAzure, RealClusterArgs, config_from_text, groups_of,
    read_arm,
};
use crate::snapshot::{NodeState, ServiceState};

/// Flags of `harness preflight`.
#[derive(Debug, Clone, clap::Args)]
pub struct PreflightArgs {
    #[command(flatten)]
    pub cluster: RealClusterArgs,
    /// Directory of the target manifests (`harness manifests generate --mode out-of-tree` output).
    #[arg(long)]
    pub manifests: PathBuf,
    /// Kubernetes version the target manifests run at (default: the cluster's).
    #[arg(long = "kubernetes-version")]
    pub kubernetes_version: Option<String>,
    /// Also write the report as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
}

/// Runs `harness preflight`; returns the exit code.
pub fn main(args: &PreflightArgs) -> anyhow::Result<i32> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let report = runtime.block_on(preflight(args))?;
    print!("{}", report.render());
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&report)?;
        std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(report.exit_code())
}

fn read_dir(dir: &Path) -> anyhow::Result<Vec<(PathBuf, String)>> {
    let mut files = Vec::new();
    let entries =
        std::fs::read_dir(dir).with_context(|| format!("--manifests {}", dir.display()))?;
    for entry in entries {
        let path = entry?.path();
        if path.is_file() {
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("reading {}", path.display()))?;
            files.push((path, text));
        }
    }
    files.sort();
    Ok(files)
}

/// Reads everything and decides.
pub async fn preflight(args: &PreflightArgs) -> anyhow::Result<PreflightReport> {
    let cloud_config = &args.cluster.cloud_config;
    let live_text = std::fs::read_to_string(cloud_config)
        .with_context(|| format!("--cloud-config {}", cloud_config.display()))?;
    let live_config = config_from_text(cloud_config, &live_text)?;
    let live_json: Value = serde_json::from_str(&live_text)
        .with_context(|| format!("--cloud-config {}: not JSON", cloud_config.display()))?;
    let target = Target::from_files(&args.manifests, &read_dir(&args.manifests)?);
    let merged = match &target.azure_json {
        Some(t) => target::overlay(&live_json, t),
        None => live_json,
    };
    let merged_label = args.manifests.join("azure.json");
    let mut report = PreflightReport::default();
    let mut early = Vec::new();
    let config = match config_from_text(&merged_label, &merged.to_string()) {
        Ok(config) => config,
        Err(e) => {
            early.push(Finding::new(
                Severity::Block,
                "P4",
                format!("{} over --cloud-config", merged_label.display()),
                format!("the CCM would refuse this azure.json: {e}"),
                "fix the key named in the error",
            ));
            live_config.clone()
        }
    };
    let budget = ReadBudget::new(args.cluster.arm_reads_per_second);
    let azure = RealAzure::connect(config, &merged_label, &budget).await?;
    let cluster =
        KubeconfigCluster::open(&args.cluster.kubeconfig, &azure, &args.manifests).await?;
    let client = cluster.kube_client().await?;

    let nodes = Api::<Node>::all(client.clone())
        .list(&Default::default())
        .await
        .context("listing nodes")?
        .items;
    let services = Api::<Service>::all(client.clone())
        .list(&Default::default())
        .await
        .context("listing services")?
        .items;
    let lb_services: Vec<&Service> = services
        .iter()
        .filter(|s| ServiceState::from_api(s).is_some_and(|s| s.load_balancer_class.is_none()))
        .collect();
    let version = match &args.kubernetes_version {
        Some(v) => Some(KubeVersion::parse(v).map_err(|e| anyhow::anyhow!("{e}"))?),
        None => {
            let info = client
                .apiserver_version()
                .await
                .context("reading /version")?;
            let minor: String = info
                .minor
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            KubeVersion::parse(&format!("{}.{minor}", info.major)).ok()
        }
    };

    // ARM as it is, read over the live and the target groups.
    let mut groups = groups_of(&live_config, &nodes);
    groups.extend(groups_of(&azure.config, &nodes));
    let arm = read_arm(&azure, &groups).await?;

    let provider = azure.provider();
    let instances = provider.instances();
    let mut resolutions = Vec::new();
    for node in &nodes {
        let resolution = match instances.instance_exists(node).await {
            Ok(true) => Resolution::Exists {
                provider_id: instances
                    .instance_metadata(node)
                    .await
                    .ok()
                    .map(|m| m.provider_id),
            },
            Ok(false) => Resolution::Missing,
            Err(e) => Resolution::Failed(e.to_string()),
        };
        resolutions.push(NodeResolution {
            node: node.metadata.name.clone().unwrap_or_default(),
            provider_id: node.spec.as_ref().and_then(|s| s.provider_id.clone()),
            resolution,
        });
    }
    let cluster_name = target.ccm_cluster_name().to_owned();
    let reconciler = provider.load_balancers().reconciler();
    let mut dry_runs = Vec::new();
    for svc in &lb_services {
        let key = format!(
            "{}/{}",
            svc.metadata.namespace.as_deref().unwrap_or_default(),
            svc.metadata.name.as_deref().unwrap_or_default()
        );
        let run = match reconciler.dry_run(&cluster_name, svc, &nodes).await {
            Ok(plan) => DryRun {
                service: key,
                writes: Ok(plan
                    .writes
                    .iter()
                    .map(|w| rules::Planned {
                        method: w.method.to_owned(),
                        resource: w.resource.clone(),
                        body: w.body.clone(),
                    })
                    .collect()),
                notes: plan.notes,
            },
            Err(e) => DryRun {
                service: key,
                writes: Err(e.to_string()),
                notes: Vec::new(),
            },
        };
        dry_runs.push(run);
    }

    let beta_uses = beta_uses(&client).await?;
    let live_kcm = target::live_kcm(
        &listed(
            Api::<k8s_openapi::api::core::v1::Pod>::namespaced(client.clone(), "kube-system"),
            "kube-system pods",
        )
        .await?
        .iter()
        .filter_map(|p| {
            let name = format!("Pod kube-system/{}", p.metadata.name.as_deref()?);
            Some((name, serde_json::to_string(p).ok()?))
        })
        .collect::<Vec<_>>(),
    );
    let mut lint = Vec::new();
    match version {
        Some(v) => {
            for path in &target.manifest_files {
                let text = std::fs::read_to_string(path)?;
                if let Ok(found) = ccm_manifests::lint::lint_text(path, &text, v) {
                    lint.extend(found.iter().map(|f| {
                        (
                            format!("{}: {}", path.display(), f.location),
                            format!("{} {}: {}", f.kind.code(), f.subject, f.message),
                        )
                    }));
                }
            }
        }
        None => early.push(Finding::new(
            Severity::Info,
            "lint",
            "API server /version",
            "the cluster's version is outside 1.27-1.36: the manifests were not linted",
            "pass --kubernetes-version",
        )),
    }

    let node_states: Vec<NodeState> = nodes.iter().map(NodeState::from_api).collect();
    let service_states: Vec<ServiceState> = lb_services
        .iter()
        .filter_map(|s| ServiceState::from_api(s))
        .collect();
    let settings = TargetSettings {
        vm_type: merged["vmType"].as_str().unwrap_or("standard").to_owned(),
        resource_group: azure.config.cluster.resource_group.clone(),
        load_balancer_name: azure.config.load_balancer.name.clone(),
    };
    let facts = Facts {
        target: &target,
        settings: &settings,
        nodes: &node_states,
        services: &service_states,
        arm: &arm,
        resolutions: &resolutions,
        dry_runs: &dry_runs,
        beta_uses: &beta_uses,
        lint: &lint,
        live_kcm: &live_kcm,
        minor: version
            .map(|v| v.minor())
            .unwrap_or(crate::scenario::LAST_IN_TREE_MINOR),
    };
    let mut findings = rules::findings(&facts);
    findings.extend(early);
    finding::sort_findings(&mut findings);
    report.findings = findings;
    report.writes = rules::planned_writes(&facts);
    report.context = vec![
        format!(
            "cluster {} (Kubernetes {}), {} nodes, {} LoadBalancer Services",
            args.cluster.kubeconfig.display(),
            version
                .map(|v| format!("1.{}", v.minor()))
                .unwrap_or_else(|| "?".into()),
            nodes.len(),
            lb_services.len()
        ),
        format!(
            "target {}: --cluster-name={}, vmType {}, resourceGroup {}",
            args.manifests.display(),
            cluster_name,
            settings.vm_type,
            settings.resource_group
        ),
        format!(
            "ARM {} read at most {} requests/s",
            azure.endpoint,
            budget.rate()
        ),
    ];
    Ok(report)
}

/// Every object of a kind; a kind the API server does not serve (404) has none.
async fn listed<K>(api: Api<K>, kind: &str) -> anyhow::Result<Vec<K>>
where
    K: kube::Resource + Clone + serde::de::DeserializeOwned + std::fmt::Debug,
{
    match api.list(&Default::default()).await {
        Ok(list) => Ok(list.items),
        Err(kube::Error::Api(status)) if status.code == 404 => Ok(Vec::new()),
        Err(e) => Err(anyhow::Error::new(e).context(format!("listing {kind}"))),
    }
}

/// Workloads and PVs selecting nodes by beta topology labels.
async fn beta_uses(client: &kube::Client) -> anyhow::Result<Vec<rules::BetaLabelUse>> {
    fn scheduling(spec: Option<&k8s_openapi::api::core::v1::PodSpec>) -> Value {
        spec.map(|s| {
            serde_json::json!({
                "nodeSelector": s.node_selector,
                "affinity": s.affinity,
                "topologySpreadConstraints": s.topology_spread_constraints,
            })
        })
        .unwrap_or(Value::Null)
    }
    fn name(meta: &kube::api::ObjectMeta) -> String {
        format!(
            "{}/{}",
            meta.namespace.as_deref().unwrap_or_default(),
            meta.name.as_deref().unwrap_or_default()
        )
    }
    let mut uses = Vec::new();
    for d in listed(Api::<Deployment>::all(client.clone()), "deployments").await? {
        let spec = d.spec.as_ref().and_then(|s| s.template.spec.as_ref());
        uses.extend(rules::beta_label_uses(
            &format!("Deployment {}", name(&d.metadata)),
            &scheduling(spec),
        ));
    }
    for d in listed(Api::<StatefulSet>::all(client.clone()), "statefulsets").await? {
        let spec = d.spec.as_ref().and_then(|s| s.template.spec.as_ref());
        uses.extend(rules::beta_label_uses(
            &format!("StatefulSet {}", name(&d.metadata)),
            &scheduling(spec),
        ));
    }
    for d in listed(Api::<DaemonSet>::all(client.clone()), "daemonsets").await? {
        let spec = d.spec.as_ref().and_then(|s| s.template.spec.as_ref());
        uses.extend(rules::beta_label_uses(
            &format!("DaemonSet {}", name(&d.metadata)),
            &scheduling(spec),
        ));
    }
    for d in listed(Api::<CronJob>::all(client.clone()), "cronjobs").await? {
        let spec = d
            .spec
            .as_ref()
            .and_then(|s| s.job_template.spec.as_ref())
            .and_then(|j| j.template.spec.as_ref());
        uses.extend(rules::beta_label_uses(
            &format!("CronJob {}", name(&d.metadata)),
            &scheduling(spec),
        ));
    }
    for pv in listed(
        Api::<PersistentVolume>::all(client.clone()),
        "persistentvolumes",
    )
    .await?
    {
        let affinity = pv
            .spec
            .as_ref()
            .map(|s| serde_json::json!(s.node_affinity))
            .unwrap_or(Value::Null);
        uses.extend(rules::beta_label_uses(
            &format!(
                "PersistentVolume {}",
                pv.metadata.name.as_deref().unwrap_or_default()
            ),
            &affinity,
        ));
    }
    Ok(uses)
}
