//! `harness snapshot` and `harness compare`: an operator's switch of a real cluster judged like a
//! rehearsal. `snapshot` captures the same [`Snapshot`] shape as an embedded run (Kubernetes
//! objects, ARM through its REST API, no journal); `compare A B` runs the parity checks that need
//! only a before and an after snapshot and writes the results in the TestGrid layout with the HTML
//! report, so the switch shows up next to the rehearsals.
//!
//! The checks ([`CHECKS`]): provider IDs, node UIDs, labels, addresses, taints, pod CIDRs, no node
//! deleted, ingress IPs, PIP ids, no load balancer recreated, Service finalizers, no orphaned
//! PIPs, routes; the ARM diffs are judged by the same allow-list as the rehearsals. The checks that
//! need the sampler, the journal or the process roster (single writer, ARM call budget, downtime,
//! time to ingress, taint removal delay) cannot run on two snapshots and are left out.
//!
//! - [infer] `B` is taken once the switch settled; a Service created or a node added between the
//!   two snapshots is not intent the checks know about, so take both snapshots with no workload
//!   change in between.

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::checks::{CheckInputs, evaluate};
use crate::cluster::ClusterProvider;
use crate::outcome::ScenarioOutcome;
use crate::realcluster::{
    KubeconfigCluster, ReadBudget, RealAzure, RealClusterArgs, capture_real, load_config,
};
use crate::report::{RunMeta, write_results};
use crate::scenario::{self, CheckName, Expect, Procedure, ScenarioPlan};
use crate::snapshot::Snapshot;

/// The checks that judge two snapshots.
pub const CHECKS: &[CheckName] = &[
    CheckName::ProviderIdStable,
    CheckName::NodeUidStable,
    CheckName::LabelsEqual,
    CheckName::AddressesEqual,
    CheckName::TaintsCleared,
    CheckName::PodCidrStable,
    CheckName::NoNodeDeleted,
    CheckName::IngressIpStable,
    CheckName::PipIdStable,
    CheckName::NoLbRecreate,
    CheckName::FinalizerPresent,
    CheckName::NoOrphans,
    CheckName::RoutesStable,
];

/// TestGrid job name of real-cluster comparisons.
pub const JOB: &str = "azure-ccm-migration-real-cluster";

/// Flags of `harness snapshot`.
#[derive(Debug, Clone, clap::Args)]
pub struct SnapshotArgs {
    #[command(flatten)]
    pub cluster: RealClusterArgs,
    /// Where to write the snapshot (JSON).
    #[arg(long)]
    pub out: PathBuf,
    /// Label stored in the snapshot (`before`, `after`).
    #[arg(long, default_value = "snapshot")]
    pub label: String,
}

/// Flags of `harness compare`.
#[derive(Debug, Clone, clap::Args)]
pub struct CompareArgs {
    /// Snapshot taken before the switch.
    pub before: PathBuf,
    /// Snapshot taken after it.
    pub after: PathBuf,
    /// TestGrid build directory to write (`started.json`, `finished.json`,
    /// `artifacts/junit_01.xml`, `artifacts/report.html`).
    #[arg(long)]
    pub artifacts: Option<PathBuf>,
    /// Name of the row group in the report.
    #[arg(long, default_value = "real-cluster-switch")]
    pub name: String,
}

/// Runs `harness snapshot`.
pub fn snapshot_main(args: &SnapshotArgs) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let snapshot = runtime.block_on(async {
        let config = load_config(&args.cluster.cloud_config)?;
        let budget = ReadBudget::new(args.cluster.arm_reads_per_second);
        let azure = RealAzure::connect(config, &args.cluster.cloud_config, &budget).await?;
        let artifacts = args.out.parent().unwrap_or(Path::new("."));
        let cluster = KubeconfigCluster::open(&args.cluster.kubeconfig, &azure, artifacts).await?;
        let client = cluster.kube_client().await?;
        anyhow::Ok(capture_real(&client, &azure, &args.label).await?)
    })?;
    let text = serde_json::to_string_pretty(&snapshot)?;
    std::fs::write(&args.out, text).with_context(|| format!("writing {}", args.out.display()))?;
    println!(
        "snapshot {}: {} nodes, {} LoadBalancer Services, {} load balancers, {} public IPs -> {}",
        snapshot.label,
        snapshot.nodes.len(),
        snapshot.services.len(),
        snapshot.arm.load_balancers.len(),
        snapshot.arm.public_ips.len(),
        args.out.display()
    );
    Ok(())
}

fn read(path: &Path) -> anyhow::Result<Snapshot> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_str(&text)
        .with_context(|| format!("{}: not a harness snapshot", path.display()))
}

/// The plan the comparison is judged by: [`CHECKS`], expecting every one to pass.
pub fn plan(name: &str) -> anyhow::Result<ScenarioPlan> {
    let checks: Vec<&str> = CHECKS.iter().map(|c| c.as_str()).collect();
    let text = format!(
        "name: {name}\ndescription: before/after snapshots of a real cluster's switch\n\
         topology: {{file: fakes/examples/small.yaml}}\nkubernetesVersion: \"1.29\"\n\
         clusterName: k8s\nnetwork:\n  mode: kubenet\n  clusterCIDR: 10.244.0.0/16\nswitch:\n  procedure: cold\nchecks: [{}]\n",
        checks.join(", ")
    );
    let scenario =
        scenario::load_str(&text, "compare.yaml", None).map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut plan = scenario::plan(&scenario);
    // kubenet only so that routes are judged; the real cluster's CIDR and masks are unknown here,
    // so pod CIDRs are judged for stability and overlap only.
    plan.network.cluster_cidr = None;
    plan.network.node_cidr_mask_size_ipv4 = None;
    plan.network.node_cidr_mask_size_ipv6 = None;
    Ok(plan)
}

/// Judges `after` against `before` with [`CHECKS`].
pub fn compare(
    name: &str,
    before: &Snapshot,
    after: &Snapshot,
    artifacts: &Path,
) -> anyhow::Result<ScenarioOutcome> {
    let plan = plan(name)?;
    let mut baseline = before.clone();
    baseline.label = "baseline".into();
    let mut final_ = after.clone();
    final_.label = "final".into();
    let inputs = CheckInputs {
        plan: &plan,
        baseline: Some(&baseline),
        // Some checks need a `switched` snapshot: B serves as both.
        switched: Some(&final_),
        final_: Some(&final_),
        rollback: None,
        samples: &[],
        marks: &[],
        roster: &[],
    };
    let checks = evaluate(&inputs);
    Ok(ScenarioOutcome {
        name: name.to_owned(),
        description: format!(
            "real cluster: snapshot '{}' against '{}'",
            after.label, before.label
        ),
        kubernetes_version: String::new(),
        procedure: Procedure::Cold,
        expect: Expect::Pass,
        started_ms: before.taken_ms,
        duration_ms: u64::try_from(after.taken_ms - before.taken_ms).unwrap_or(0),
        phases: Vec::new(),
        checks,
        failure: None,
        artifacts: artifacts.to_path_buf(),
        expected_for_build: None,
        may_fail: Vec::new(),
        figures: None,
    })
}

/// Runs `harness compare`; returns the exit code (0 when every check passed).
pub fn compare_main(args: &CompareArgs) -> anyhow::Result<i32> {
    let before = read(&args.before)?;
    let after = read(&args.after)?;
    let dir = args.artifacts.clone().unwrap_or_else(|| PathBuf::from("."));
    let outcome = compare(&args.name, &before, &after, &dir)?;
    for c in &outcome.checks {
        println!(
            "{:<8} {}: {}",
            format!("{:?}", c.verdict).to_lowercase(),
            c.check,
            c.reason
        );
        for d in &c.details {
            println!("         {d}");
        }
    }
    let passed = outcome.met_expectation();
    if let Some(dir) = &args.artifacts {
        let mut meta = RunMeta::new(before.taken_ms);
        meta.job = JOB.to_owned();
        meta.provider = "kubeconfig".to_owned();
        meta.finished_ms = Some(after.taken_ms.max(before.taken_ms));
        let written = write_results(dir, &meta, std::slice::from_ref(&outcome), false)?;
        println!("results: {}", written.dir.display());
    }
    println!("compare: {}", if passed { "PASS" } else { "FAIL" });
    Ok(i32::from(!passed))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::builders::{node, service, snapshot};
    use crate::outcome::Verdict;

    fn cluster(label: &str) -> Snapshot {
        snapshot(
            label,
            vec![node("node-0", "10.0.0.4"), node("node-1", "10.0.0.5")],
            vec![service(
                "web",
                "1a2b3c4d-0000-0000-0000-000000000001",
                "20.1.2.3",
            )],
        )
    }

    #[test]
    fn the_same_cluster_twice_passes_every_check() {
        let outcome =
            compare("t", &cluster("before"), &cluster("after"), Path::new("/x")).expect("compare");
        assert!(outcome.met_expectation(), "{}", outcome.explanation());
    }

    #[test]
    fn a_deleted_node_and_a_new_ingress_ip_fail_their_checks() {
        let before = cluster("before");
        let mut after = cluster("after");
        after.nodes.retain(|n| n.name != "node-1");
        after.services[0].ingress = vec!["20.9.9.9".into()];
        let outcome = compare("t", &before, &after, Path::new("/x")).expect("compare");
        assert!(!outcome.met_expectation());
        let failed: Vec<CheckName> = outcome
            .checks
            .iter()
            .filter(|c| c.verdict == Verdict::Fail)
            .map(|c| c.check)
            .collect();
        assert!(failed.contains(&CheckName::NoNodeDeleted), "{failed:?}");
        assert!(failed.contains(&CheckName::IngressIpStable), "{failed:?}");
    }

    #[test]
    fn the_compare_plan_runs_exactly_the_two_snapshot_checks() {
        let plan = plan("t").expect("plan");
        let names: Vec<CheckName> = plan.checks.iter().map(|c| c.check).collect();
        assert_eq!(names, CHECKS);
    }
}
