//! `harness up`: an embedded cluster for a person at a terminal. Starts it, prints the kubeconfig,
//! the fake's URLs, the CA and commands to try, then waits for Ctrl-C (or SIGTERM) and tears
//! everything down. Where the cluster comes from is [`UpArgs::options`]: a scenario argument
//! plugs in there, turning the scenario's topology and fault flags into the same options.

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;

use super::{ClusterProvider, Component, EmbeddedCluster, EmbeddedOptions, TopologySource};
use crate::supervisor::ShutdownSignals;

/// Flags of `harness up`.
#[derive(Debug, Clone, clap::Args)]
pub struct UpArgs {
    /// Topology of the fake Azure cloud (e.g. fakes/examples/small.yaml).
    #[arg(long)]
    pub topology: PathBuf,
    /// Directory for the cluster's files and process logs (default: a new directory under the
    /// system temp dir, kept after exit).
    #[arg(long)]
    pub artifacts: Option<PathBuf>,
    /// Extra `azure-fakes serve` flag (repeatable), e.g. `--fake-arg=--retry-after=0`.
    #[arg(long = "fake-arg", allow_hyphen_values = true)]
    pub fake_args: Vec<OsString>,
}

impl UpArgs {
    /// The embedded cluster these flags describe.
    pub fn options(&self) -> EmbeddedOptions {
        let artifacts = self.artifacts.clone().unwrap_or_else(|| {
            std::env::temp_dir().join(format!("harness-up-{}", std::process::id()))
        });
        EmbeddedOptions::new(TopologySource::File(self.topology.clone()), artifacts)
            .fake_flags(self.fake_args.iter().cloned())
    }
}

/// Runs `harness up` to completion on its own runtime.
pub fn main(args: &UpArgs) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(up(args.options()))
}

/// Starts the cluster, prints how to use it, and serves until SIGINT or SIGTERM. A signal during
/// start-up drops the half-started cluster (its processes are killed) and fails.
pub async fn up(options: EmbeddedOptions) -> anyhow::Result<()> {
    // Before any child exists: a Ctrl-C from now on is ours to handle.
    let mut signals = ShutdownSignals::install();
    let started = tokio::select! {
        biased;
        signal = signals.wait() => Err(signal),
        cluster = EmbeddedCluster::start(options) => Ok(cluster),
    };
    let mut cluster = match started {
        Ok(cluster) => cluster.context("starting the embedded cluster")?,
        Err(signal) => anyhow::bail!("{signal:?} while the cluster was starting; stopped it"),
    };
    let mut out = std::io::stdout().lock();
    // stdout may be a closed pipe: the cluster must still run and stop cleanly.
    let _ = out.write_all(describe(&cluster).as_bytes());
    let _ = out.flush();
    drop(out);
    let signal = signals.wait().await;
    eprintln!("harness up: {signal:?}: stopping the cluster");
    cluster
        .teardown()
        .await
        .context("tearing the cluster down")?;
    println!("harness up: stopped");
    Ok(())
}

/// What `harness up` prints once the cluster is ready.
fn describe(cluster: &EmbeddedCluster) -> String {
    let azure = cluster.azure();
    let printed = cluster.printed();
    let kubeconfig = cluster.kubeconfig().display();
    let ca = printed.ca.display();
    let mut text = format!(
        "harness up: embedded cluster ready (artifacts {})\n",
        cluster.artifacts().display()
    );
    text += &format!("kubeconfig: {kubeconfig}\n");
    text += &format!("arm: {}\n", azure.arm);
    text += &format!("admin: {}\n", printed.admin);
    text += &format!("tenant: {}\n", azure.tenant);
    text += &format!("subscription: {}\n", azure.subscription);
    text += &format!("ca: {ca}\n");
    for node in cluster.nodes() {
        if let Some(imds) = &node.imds {
            text += &format!("imds {}: {imds}\n", node.name);
        }
    }
    for component in Component::ALL {
        if let Some(path) = cluster.azure_json(component) {
            text += &format!("azure.json {component}: {}\n", path.display());
        }
    }
    for process in cluster.supervisor().handles() {
        text += &format!(
            "process {}: pid {}, log {}\n",
            process.name,
            process.pid,
            process.log.display()
        );
    }
    let app = Component::InTree.app();
    let token_url = format!("{}{}/oauth2/v2.0/token", printed.authority, azure.tenant);
    text += &format!(
        "\nTry:\n  kubectl --kubeconfig {kubeconfig} get nodes\n  curl --cacert {ca} {admin}info\n  \
         TOKEN=$(curl -s --cacert {ca} -d grant_type=client_credentials -d client_id={id} \
         -d client_secret={secret} -d scope=https://management.azure.com/.default {token_url} \
         | sed 's/.*\"access_token\":\"\\([^\"]*\\)\".*/\\1/')\n  \
         curl --cacert {ca} -H \"Authorization: Bearer $TOKEN\" \
         '{arm}subscriptions/{sub}/resourceGroups/{rg}?api-version=2021-04-01'\n\
         Press Ctrl-C to stop.\n",
        admin = printed.admin,
        id = app.client_id,
        secret = app.secret,
        arm = azure.arm,
        sub = azure.subscription,
        rg = cluster.settings().resource_group,
    );
    text
}
