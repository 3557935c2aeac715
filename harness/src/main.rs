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
    }
}
