//! `harness`: the migration parity suite, its reports and the manifest generator.

use clap::{Parser, Subcommand};
use harness::{kube_controller_manager, scenario};

/// Command line of the harness binary.
#[derive(Debug, Parser)]
#[command(
    name = "harness",
    version,
    about = "Azure in-tree to out-of-tree migration parity suite"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run parity scenarios on embedded clusters; results in the layout TestGrid reads.
    Run(harness::run::RunArgs),
    /// Draw the results of one or many build directories as an offline HTML grid (`--merge`:
    /// the shards of one run first merged into one build, drawn as one column).
    Report(harness::report::ReportCommand),
    /// TestGrid tools: check a build directory, write configuration, publish.
    Testgrid(testgrid::cli::TestgridArgs),
    /// Generate and lint in-tree and out-of-tree manifests.
    Manifests(ccm_manifests::cli::ManifestsArgs),
    /// Stand-in in-tree kube-controller-manager: the cloud controllers over the Azure provider,
    /// under leader election and Leader Migration (component `kube-controller-manager`).
    KubeControllerManager(kube_controller_manager::KcmArgs),
    /// Start an embedded cluster (fake Azure + API server), print how to use it, run until Ctrl-C.
    Up(harness::run::up::UpArgs),
    /// Scenario files: validate them before a run.
    Scenarios(scenario::cli::ScenariosArgs),
    /// Before switching a real cluster: what the target manifests would break (exit 1 if anything blocks).
    Preflight(harness::preflight::PreflightArgs),
    /// Snapshot a real cluster (Kubernetes objects and ARM, read-only) to a JSON file.
    Snapshot(harness::compare::SnapshotArgs),
    /// Judge two snapshots of a real cluster with the parity checks; TestGrid layout + HTML report.
    Compare(harness::compare::CompareArgs),
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match &cli.command {
        Command::Run(args) => {
            let code = harness::run::suite::main(args)?;
            std::process::exit(code);
        }
        Command::Report(args) => harness::report::run_report(args),
        Command::Testgrid(args) => {
            testgrid::cli::run_testgrid(args).map_err(anyhow::Error::from_boxed)
        }
        Command::Manifests(args) => {
            ccm_manifests::cli::run(args).map_err(anyhow::Error::from_boxed)
        }
        Command::KubeControllerManager(args) => kube_controller_manager::main(args),
        Command::Up(args) => harness::run::up::main(args),
        Command::Scenarios(args) => Ok(scenario::cli::run(args)?),
        Command::Preflight(args) => std::process::exit(harness::preflight::main(args)?),
        Command::Snapshot(args) => harness::compare::snapshot_main(args),
        Command::Compare(args) => std::process::exit(harness::compare::compare_main(args)?),
    }
}
