//! `harness up`: an embedded cluster for a person at a terminal, from a scenario (its topology, the
//! in-tree kube-controller-manager and the in-tree kubelets of its Kubernetes version, so the nodes
//! are Ready and initialised the in-tree way) or from a bare topology file (the fake and the API
//! server only). Prints the kubeconfig, the fake's URLs and commands to try, then waits for Ctrl-C
//! (or SIGTERM) and tears everything down.

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, bail};

use super::scenario::cluster_options;
use crate::cluster::up::describe;
use crate::cluster::{ClusterProvider, EmbeddedCluster, EmbeddedOptions, TopologySource};
use crate::record::RunRecord;
use crate::roster::Roster;
use crate::scenario::{self, ScenarioPlan};
use crate::supervisor::ShutdownSignals;
use crate::switch::Deployment;

/// Flags of `harness up`.
#[derive(Debug, Clone, clap::Args)]
pub struct UpArgs {
    /// A scenario file: its topology, with its in-tree control plane and kubelets running.
    #[arg(value_name = "SCENARIO", conflicts_with = "topology")]
    pub scenario: Option<PathBuf>,
    /// A topology file instead (e.g. fakes/examples/small.yaml): the fake and the API server only.
    #[arg(long)]
    pub topology: Option<PathBuf>,
    /// Directory for the cluster's files and process logs (default: a new directory under the
    /// system temp dir, kept after exit).
    #[arg(long)]
    pub artifacts: Option<PathBuf>,
    /// Extra `azure-fakes serve` flag (repeatable), e.g. `--fake-arg=--retry-after=0`.
    #[arg(long = "fake-arg", allow_hyphen_values = true)]
    pub fake_args: Vec<OsString>,
}

/// Runs `harness up` to completion on its own runtime.
pub fn main(args: &UpArgs) -> anyhow::Result<()> {
    let artifacts = args
        .artifacts
        .clone()
        .unwrap_or_else(|| std::env::temp_dir().join(format!("harness-up-{}", std::process::id())));
    let (plan, options) = match (&args.scenario, &args.topology) {
        (Some(path), _) => {
            let plan = scenario::plan(&scenario::load(path).map_err(|e| anyhow::anyhow!("{e}"))?);
            let options = cluster_options(&plan, &artifacts);
            (Some(plan), options)
        }
        (None, Some(path)) => (
            None,
            EmbeddedOptions::new(TopologySource::File(path.clone()), artifacts),
        ),
        (None, None) => bail!(
            "give a scenario file (`harness up scenarios/01-cold-switch-azure-cni.yaml`) or \
             --topology FILE (e.g. fakes/examples/small.yaml)"
        ),
    };
    let options = options.fake_flags(args.fake_args.iter().cloned());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(up(options, plan))
}

/// Starts the cluster (and, for a scenario, its in-tree control plane), prints how to use it,
/// and serves until SIGINT or SIGTERM. A signal during start-up stops what started and fails.
pub async fn up(options: EmbeddedOptions, plan: Option<ScenarioPlan>) -> anyhow::Result<()> {
    // Before any child exists: a Ctrl-C from now on is ours to handle.
    let mut signals = ShutdownSignals::install();
    let started = tokio::select! {
        biased;
        signal = signals.wait() => Err(signal),
        cluster = EmbeddedCluster::start(options) => Ok(cluster),
    };
    let mut cluster = match started {
        Ok(cluster) => cluster.context("starting the embedded cluster")?,
        Err(signal) => bail!("{signal:?} while the cluster was starting; stopped it"),
    };
    let mut deployment = None;
    if let Some(plan) = &plan {
        let started = tokio::select! {
            biased;
            signal = signals.wait() => Err(signal),
            started = Deployment::start_in_tree(&cluster, plan, Roster::new(), RunRecord::new()) => Ok(started),
        };
        match started {
            Ok(Ok(d)) => deployment = Some(d),
            Ok(Err(e)) => {
                let _ = cluster.teardown().await;
                return Err(e).context("starting the in-tree control plane and kubelets");
            }
            Err(signal) => {
                let _ = cluster.teardown().await;
                bail!("{signal:?} while the in-tree control plane was starting; stopped it");
            }
        }
    }
    let mut text = describe(&cluster);
    if let Some(plan) = &plan {
        text = format!(
            "harness up: scenario {} (Kubernetes {}): in-tree kube-controller-manager x{} and one \
             kubelet per node running\n{text}",
            plan.name, plan.kubernetes_version, plan.switch.kcm_replicas
        );
    }
    let mut out = std::io::stdout().lock();
    // stdout may be a closed pipe: the cluster must still run and stop cleanly.
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
    drop(out);
    let signal = signals.wait().await;
    eprintln!("harness up: {signal:?}: stopping the cluster");
    if let Some(deployment) = deployment {
        deployment.shutdown().await;
    }
    cluster
        .teardown()
        .await
        .context("tearing the cluster down")?;
    println!("harness up: stopped");
    Ok(())
}
