//! `harness run`: every scenario parsed first (one bad file stops the run before anything starts,
//! with every problem listed), then run `--jobs` at a time (each has its own cluster on its own
//! free ports, so any two run side by side), results written as one TestGrid build directory,
//! a summary table printed, exit code 0 only when every scenario met its expectation.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, bail};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use super::scenario::{RunOptions, run_scenario, scenario_dir};
use super::shard::{Shard, ShardRecord};
use crate::outcome::ScenarioOutcome;
use crate::report::{self, Progress, RunMeta};
use crate::scenario::{self, ScenarioPlan};
use crate::supervisor::ShutdownSignals;
use crate::switch::binaries::ManagerBinaries;
use crate::timeline;

/// Flags of `harness run`.
#[derive(Debug, Clone, clap::Args)]
pub struct RunArgs {
    /// Scenario files or directories of them (default: `scenarios/` in the current directory).
    #[arg(value_name = "SCENARIO")]
    pub scenarios: Vec<PathBuf>,
    /// TestGrid build directory for the results (started.json, finished.json, artifacts/).
    #[arg(long, value_name = "DIR", default_value = "_artifacts")]
    pub artifacts: PathBuf,
    /// Write only the JUnit files (no started.json, finished.json or HTML report).
    #[arg(long)]
    pub junit_only: bool,
    /// Scenarios run at the same time.
    #[arg(long, value_name = "N", default_value_t = default_jobs())]
    pub jobs: usize,
    /// Plain progress lines even on a terminal.
    #[arg(long)]
    pub plain: bool,
    /// After the run, print each scenario's switch timeline (one line per lane); meant for a
    /// run of one scenario.
    #[arg(long)]
    pub verbose: bool,
    /// Run only shard I of N (1-based) of the scenarios, chosen by a fixed hash of each name;
    /// merge the shards' build directories with `harness report OUT --merge DIR...`.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<Shard>,
    /// The cloud-controller-manager build to test instead of ours (e.g. the upstream Azure CCM):
    /// started with the same flags and azure.json, behind the fake's CONNECT proxy for Entra.
    #[arg(long, value_name = "PATH")]
    pub ccm_binary: Option<PathBuf>,
    /// The cloud-node-manager build to test instead of ours (as --ccm-binary).
    #[arg(long, value_name = "PATH")]
    pub cnm_binary: Option<PathBuf>,
    /// Per-build expectations to judge the scenarios by (default: the file of
    /// `scenarios/expectations/` whose `match` fits the --ccm-binary, if any).
    #[arg(long, value_name = "FILE")]
    pub expectations: Option<PathBuf>,
}

/// Two scenarios per core: a scenario's processes mostly wait (leases, polls, settle periods),
/// so on 2 cores 4 at a time keep the CPU about half busy (measured: the suite's CPU time is
/// about its wall time at --jobs 4 on 2 cores).
fn default_jobs() -> usize {
    2 * std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Runs `harness run` on its own runtime; the process exit code.
pub fn main(args: &RunArgs) -> anyhow::Result<i32> {
    azure_ccm::logging::init(azure_ccm::logging::LogFormat::Text, 0);
    let plans = load(&args.scenarios)?;
    if args.jobs == 0 {
        bail!("--jobs 0: accepted values are 1 or more");
    }
    let suite: Vec<String> = plans.iter().map(|p| p.name.clone()).collect();
    let plans: Vec<ScenarioPlan> = match args.shard {
        Some(shard) => plans
            .into_iter()
            .filter(|p| shard.contains(&p.name))
            .collect(),
        None => plans,
    };
    let binaries =
        ManagerBinaries::validated(args.ccm_binary.as_deref(), args.cnm_binary.as_deref())?;
    let mut plans = plans;
    if let Some((build, mut known)) = build_expectations(args, &binaries)? {
        known.extend(suite.iter().cloned());
        build.apply(&mut plans, &known)?;
        println!(
            "judging by the expectations of {} ({}): {} scenario(s) differ for this build",
            build.build,
            build.path.display(),
            build.scenarios.len()
        );
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let code = runtime.block_on(run(args, plans, binaries))?;
    if let Some(shard) = args.shard {
        let record = ShardRecord { shard, suite };
        record
            .write(&args.artifacts)
            .with_context(|| format!("writing the shard record in {}", args.artifacts.display()))?;
    }
    Ok(code)
}

/// The expectations file of the run (`--expectations`, else the one of `expectations/` next to
/// the scenarios matching a given CCM binary) and the names of every scenario in the scenario
/// directory (a file naming a scenario that does not exist there is refused).
fn build_expectations(
    args: &RunArgs,
    binaries: &ManagerBinaries,
) -> anyhow::Result<Option<(crate::expectations::BuildExpectations, Vec<String>)>> {
    use crate::expectations::{BuildExpectations, find};
    let root = match args.scenarios.first() {
        Some(p) if p.is_dir() => p.clone(),
        Some(p) => p.parent().map(Path::to_path_buf).unwrap_or_default(),
        None => PathBuf::from("scenarios"),
    };
    let doc = match (&args.expectations, &binaries.ccm) {
        (Some(file), _) => Some(BuildExpectations::load(file)?),
        (None, Some(ccm)) => {
            let version = crate::switch::binaries::version_line(ccm);
            find(&root.join("expectations"), ccm, version.as_deref())?
        }
        (None, None) => None,
    };
    let Some(doc) = doc else { return Ok(None) };
    let known = if root.is_dir() {
        load(std::slice::from_ref(&root))?
            .into_iter()
            .map(|p| p.name)
            .collect()
    } else {
        Vec::new()
    };
    Ok(Some((doc, known)))
}

/// Every scenario of `paths` (files, or directories whose `*.yaml` are scenarios), as plans; every
/// problem of every file reported at once (the loader also refuses two files with one name).
pub fn load(paths: &[PathBuf]) -> anyhow::Result<Vec<ScenarioPlan>> {
    let paths = if paths.is_empty() {
        let default = PathBuf::from("scenarios");
        if !default.is_dir() {
            bail!(
                "no scenario given and ./scenarios is not a directory: pass scenario files or \
                 directories (e.g. `harness run scenarios/01-cold-switch-azure-cni.yaml`)"
            );
        }
        vec![default]
    } else {
        paths.to_vec()
    };
    let scenarios = scenario::load_paths(&paths).map_err(|errors| anyhow::anyhow!("{errors}"))?;
    if scenarios.is_empty() {
        let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        bail!("no scenario files (*.yaml, *.yml) in {}", shown.join(", "));
    }
    Ok(scenarios.iter().map(scenario::plan).collect())
}

async fn run(
    args: &RunArgs,
    plans: Vec<ScenarioPlan>,
    binaries: ManagerBinaries,
) -> anyhow::Result<i32> {
    let (tested, ccm_version) = record_binaries(&args.artifacts, &binaries)?;
    // Before any child exists: a Ctrl-C from now on stops every cluster.
    let mut signals = ShutdownSignals::install();
    let progress = if args.plain {
        Progress::plain(plans.len())
    } else {
        Progress::new(plans.len())
    };
    let mut meta = RunMeta::new(crate::record::now_ms());
    meta.commit = git_commit();
    if let Some(version) = ccm_version {
        meta.ccm_version = version;
    }
    let gate = Arc::new(Semaphore::new(args.jobs));
    let mut tasks = JoinSet::new();
    for (index, plan) in plans.iter().cloned().enumerate() {
        let dir = scenario_dir(&args.artifacts, &plan.name);
        prepare_dir(&dir)?;
        let gate = gate.clone();
        let progress = progress.clone();
        let options = RunOptions {
            binaries: binaries.clone(),
            ..RunOptions::default()
        };
        tasks.spawn(async move {
            let _permit = gate.acquire_owned().await;
            let outcome = run_scenario(&plan, &dir, options, &progress).await;
            (index, outcome)
        });
    }
    let mut outcomes: Vec<Option<ScenarioOutcome>> = vec![None; plans.len()];
    loop {
        tokio::select! {
            joined = tasks.join_next() => match joined {
                Some(Ok((index, outcome))) => outcomes[index] = Some(outcome),
                Some(Err(e)) => bail!("a scenario task failed: {e}"),
                None => break,
            },
            signal = signals.wait() => {
                eprintln!("harness run: {signal:?}: stopping every scenario");
                // Dropping a scenario's future kills its processes.
                tasks.shutdown().await;
                return Ok(signal.exit_code());
            }
        }
    }
    progress.finish();
    let outcomes: Vec<ScenarioOutcome> = outcomes.into_iter().flatten().collect();
    meta.finished_ms = Some(crate::record::now_ms());
    report::write_results(&args.artifacts, &meta, &outcomes, args.junit_only)
        .with_context(|| format!("writing results to {}", args.artifacts.display()))?;
    println!("{}", report::summary_table(&outcomes));
    if args.verbose {
        print_timelines(&outcomes);
    }
    println!("{tested}");
    let met = outcomes.iter().filter(|o| o.met_expectation()).count();
    println!("results in {}", args.artifacts.display());
    Ok(if met == outcomes.len() { 0 } else { 1 })
}

/// Each scenario's timeline in terminal lines, read back from its artifacts.
fn print_timelines(outcomes: &[ScenarioOutcome]) {
    for o in outcomes {
        match timeline::load_dir(&o.artifacts) {
            Ok(loaded) => println!(
                "\n{}",
                timeline::render_text(&timeline::build(&loaded.recorded()), TEXT_CELLS)
            ),
            Err(e) => eprintln!("{}: no timeline: {e}", o.name),
        }
    }
}

/// Cells of the terminal timeline (with the lane labels, about 110 columns).
const TEXT_CELLS: usize = 72;

/// Writes [`report::BINARIES_FILE`] (so the report says what was tested) and returns the line printed
/// with the summary and the version a given CCM reports (the run's `ccm-version`).
fn record_binaries(
    artifacts: &Path,
    binaries: &ManagerBinaries,
) -> anyhow::Result<(String, Option<String>)> {
    let record = binaries.record()?;
    let dir = artifacts.join("artifacts");
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let path = dir.join(report::BINARIES_FILE);
    std::fs::write(&path, serde_json::to_string_pretty(&record)?)
        .with_context(|| format!("writing {}", path.display()))?;
    let origin = |given: bool| if given { "given" } else { "ours" };
    let ccm = &record.cloud_controller_manager;
    let version = if ccm.given {
        Some(ccm.version.clone().unwrap_or_else(|| "unknown".to_owned()))
    } else {
        None
    };
    let line = format!(
        "tested cloud-controller-manager {} ({}), cloud-node-manager {} ({})",
        record.cloud_controller_manager.path.display(),
        origin(record.cloud_controller_manager.given),
        record.cloud_node_manager.path.display(),
        origin(record.cloud_node_manager.given),
    );
    Ok((line, version))
}

/// The commit checked out in the current directory, when it is a git work tree.
fn git_commit() -> Option<String> {
    let out = std::process::Command::new("git")
        .args(["rev-parse", "HEAD"])
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_owned())
}

/// A scenario's directory starts empty (results of an earlier run there are removed).
fn prepare_dir(dir: &Path) -> anyhow::Result<()> {
    if dir.exists() {
        std::fs::remove_dir_all(dir).with_context(|| format!("removing {}", dir.display()))?;
    }
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))
}
