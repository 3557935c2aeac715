//! The `harness report` and `harness testgrid` commands, hosted by the harness binary.

use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::check::{check_build, check_builds};
use crate::config::{self, ConfigSpec};
use crate::grid::alerts::AlertSettings;
use crate::grid::load::{build_dirs, load};
use crate::grid::tab_status::{self, TabSettings, TabSummary};
use crate::grid::{DAYS_OF_RESULTS, Grid, ReadOptions};
use crate::publish::{Uploader, publish_to_dir, upload_commands};

type CliResult = Result<(), Box<dyn std::error::Error + Send + Sync>>;

/// `harness report DIR... --out FILE`.
#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// Build directories, or job directories containing build directories.
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Where to write the HTML page.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Page title.
    #[arg(long, default_value = "TestGrid report")]
    pub title: String,
    /// Test group and tab settings.
    #[command(flatten)]
    pub group: GroupArgs,
}

/// The test group and tab settings TestGrid applies when reading and summarising builds
/// (defaults: what `harness testgrid config` writes for our jobs).
#[derive(Debug, Clone, clap::Args)]
pub struct GroupArgs {
    /// Evaluate builds as of this time (epoch seconds) instead of now.
    #[arg(long, value_name = "EPOCH_SECONDS")]
    pub now: Option<i64>,
    /// The test group's days_of_results: older builds show as UNKNOWN (0 = TestGrid's default, 7).
    #[arg(long, default_value_t = DAYS_OF_RESULTS)]
    pub days_of_results: u32,
    /// Draw the <job>.Pod row from podinfo.json, as for a group without disable_prowjob_analysis.
    #[arg(long)]
    pub prowjob_analysis: bool,
    /// Consecutive failing builds that raise a row alert (0 = no alerts).
    #[arg(long, default_value_t = TabSettings::default().alerts.num_failures_to_alert)]
    pub num_failures_to_alert: u32,
    /// Newer passes that mean a failure streak is over.
    #[arg(long, default_value_t = TabSettings::default().alerts.num_passes_to_disable_alert)]
    pub num_passes_to_disable_alert: u32,
    /// Hours without a new build before the tab is STALE (0 = never).
    #[arg(long, default_value_t = TabSettings::default().alert_stale_results_hours)]
    pub alert_stale_results_hours: u32,
    /// Recent completed builds that decide the tab's FLAKY or PASS.
    #[arg(long, default_value_t = TabSettings::default().num_columns_recent)]
    pub num_columns_recent: u32,
    /// Failing-cell ratio of a recent build above which the tab is BROKEN (0 = never).
    #[arg(long, default_value_t = TabSettings::default().broken_column_threshold)]
    pub broken_column_threshold: f32,
    /// The test group's column headers, in order (repeatable; default: what `harness testgrid
    /// config` writes, Commit and ccm-version).
    #[arg(long = "column-header", value_name = "KEY")]
    pub column_headers: Vec<String>,
}

impl GroupArgs {
    /// The reading options.
    pub fn read_options(&self) -> ReadOptions {
        let defaults = ReadOptions::at(self.now.unwrap_or_else(now));
        ReadOptions {
            days_of_results: self.days_of_results,
            prowjob_analysis: self.prowjob_analysis,
            column_headers: if self.column_headers.is_empty() {
                defaults.column_headers.clone()
            } else {
                self.column_headers.clone()
            },
            ..defaults
        }
    }

    /// The tab summary settings.
    pub fn tab_settings(&self) -> TabSettings {
        TabSettings {
            alerts: AlertSettings {
                num_failures_to_alert: self.num_failures_to_alert,
                num_passes_to_disable_alert: self.num_passes_to_disable_alert,
            },
            alert_stale_results_hours: self.alert_stale_results_hours,
            num_columns_recent: self.num_columns_recent,
            broken_column_threshold: self.broken_column_threshold,
        }
    }

    /// The grid of `columns` and its tab summary as of `now`.
    fn summarize(&self, columns: Vec<crate::grid::Column>, now: i64) -> (Grid, TabSummary) {
        let grid = Grid::new(columns);
        let tab = tab_status::summarize(&grid, &self.tab_settings(), now);
        (grid, tab)
    }
}

/// `harness testgrid ...`.
#[derive(Debug, clap::Args)]
pub struct TestgridArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: TestgridCommand,
}

/// The `harness testgrid` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum TestgridCommand {
    /// Apply TestGrid's reading rules to build directories; exit non-zero if it would reject or misread them.
    Check(CheckArgs),
    /// Print or write the TestGrid configuration YAML for a job.
    Config(ConfigArgs),
    /// Copy a finished build to a directory, or print the commands that upload it to GCS.
    Publish(PublishArgs),
}

/// `harness testgrid check DIR...`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// Build directories, or job directories containing build directories.
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Test group and tab settings.
    #[command(flatten)]
    pub group: GroupArgs,
    /// Count a build still running (no finished.json, as TestGrid's RUNNING column) as an error.
    #[arg(long)]
    pub require_finished: bool,
}

/// `harness testgrid config`.
#[derive(Debug, clap::Args)]
pub struct ConfigArgs {
    /// Job name (the directory holding the build directories).
    #[arg(long)]
    pub job: String,
    /// Bucket and path above the job directory, without gs:// (e.g. k8s-conformance-azure/logs).
    #[arg(long)]
    pub bucket_prefix: String,
    /// Provider short name.
    #[arg(long, default_value = "azure")]
    pub provider: String,
    /// Kubernetes MAJOR.MINOR under test (e.g. 1.34).
    #[arg(long)]
    pub kubernetes_minor: String,
    /// Text after the version in the tab name (e.g. "ccm parity").
    #[arg(long, default_value = "")]
    pub variant: String,
    /// Dashboard name (default: conformance-<provider>).
    #[arg(long)]
    pub dashboard: Option<String>,
    /// Tab description.
    #[arg(long, default_value = "")]
    pub description: String,
    /// Alert e-mail recipient (repeatable).
    #[arg(long = "alert-email")]
    pub alert_emails: Vec<String>,
    /// Consecutive failing builds before an alert.
    #[arg(long, default_value_t = TabSettings::default().alerts.num_failures_to_alert)]
    pub num_failures_to_alert: u32,
    /// Hours without a new build before the tab is stale.
    #[arg(long, default_value_t = TabSettings::default().alert_stale_results_hours)]
    pub alert_stale_results_hours: u32,
    /// Days of builds kept.
    #[arg(long, default_value_t = DAYS_OF_RESULTS)]
    pub days_of_results: u32,
    /// Extra finished.json metadata keys to show as column headers (after Commit and ccm-version).
    #[arg(long = "column-header")]
    pub column_headers: Vec<String>,
    /// Write the YAML here instead of printing it.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// `harness testgrid publish BUILD_DIR --to PATH | --print-gsutil gs://... | --print-gcloud gs://...`.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("target").required(true).args(["to", "print_gsutil", "print_gcloud"])))]
pub struct PublishArgs {
    /// The build directory (`<job>/<build-id>`).
    #[arg(value_name = "BUILD_DIR")]
    pub build_dir: PathBuf,
    /// Copy into this directory as `<to>/<job>/<build-id>` and update `latest-build.txt`.
    #[arg(long, value_name = "PATH")]
    pub to: Option<PathBuf>,
    /// Print the gsutil commands that upload the build under this gs:// prefix.
    #[arg(long, value_name = "GS_URL")]
    pub print_gsutil: Option<String>,
    /// Print the gcloud storage commands that upload the build under this gs:// prefix.
    #[arg(long, value_name = "GS_URL")]
    pub print_gcloud: Option<String>,
    /// Publish even if the validator finds errors.
    #[arg(long)]
    pub allow_errors: bool,
}

/// Errors the commands report (beyond the libraries' own).
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The validator found errors.
    #[error(
        "TestGrid would reject or misread {errors} thing(s) in {dirs} build director(ies); see the findings above"
    )]
    CheckFailed {
        /// Number of error findings.
        errors: usize,
        /// Number of build directories checked.
        dirs: usize,
    },
    /// Writing an output file failed.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The file.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// The current time in epoch seconds (0 if the clock is before 1970).
fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

fn write_file(path: &std::path::Path, text: &str) -> Result<(), CliError> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|source| CliError::Write {
            path: path.display().to_string(),
            source,
        })?;
    }
    std::fs::write(path, text).map_err(|source| CliError::Write {
        path: path.display().to_string(),
        source,
    })
}

/// Runs `harness report`.
pub fn run_report(args: &ReportArgs) -> CliResult {
    let opts = args.group.read_options();
    let reads = load(&args.dirs, &opts)?;
    let (grid, tab) = args
        .group
        .summarize(reads.into_iter().map(|r| r.column).collect(), opts.now);
    write_file(&args.out, &crate::html::render(&grid, &tab, &args.title))?;
    print!("{}", crate::summary::render(&grid, &tab));
    println!("wrote {}", args.out.display());
    Ok(())
}

/// Runs `harness testgrid`.
pub fn run_testgrid(args: &TestgridArgs) -> CliResult {
    match &args.command {
        TestgridCommand::Check(a) => run_check(a),
        TestgridCommand::Config(a) => run_config(a),
        TestgridCommand::Publish(a) => run_publish(a),
    }
}

fn run_check(args: &CheckArgs) -> CliResult {
    let opts = args.group.read_options();
    let dirs = build_dirs(&args.dirs)?;
    let reports = check_builds(&dirs, &opts)?;
    let mut errors = 0;
    let mut columns = Vec::new();
    for (dir, report) in dirs.iter().zip(reports) {
        println!("== {}", dir.display());
        print!("{}", report.render());
        if report.is_running() {
            println!(
                "running: no finished.json yet; TestGrid shows a RUNNING column (an error only with --require-finished)"
            );
        }
        errors += report.error_count(args.require_finished);
        columns.push(report.read.column);
    }
    let (_, tab) = args.group.summarize(columns, opts.now);
    println!("== dashboard tab over these {} build(s)", dirs.len());
    print!("{}", crate::summary::tab_lines(&tab));
    if errors > 0 {
        return Err(CliError::CheckFailed {
            errors,
            dirs: dirs.len(),
        }
        .into());
    }
    Ok(())
}

fn run_config(args: &ConfigArgs) -> CliResult {
    let mut spec = ConfigSpec::new(
        &args.job,
        &args.bucket_prefix,
        &args.provider,
        &args.kubernetes_minor,
    );
    spec.variant = args.variant.clone();
    spec.dashboard = args.dashboard.clone();
    spec.description = args.description.clone();
    spec.alert_emails = args.alert_emails.clone();
    spec.num_failures_to_alert = args.num_failures_to_alert;
    spec.alert_stale_results_hours = args.alert_stale_results_hours;
    spec.days_of_results = args.days_of_results;
    spec.column_headers
        .extend(args.column_headers.iter().cloned());
    let yaml = config::to_yaml(&config::build(&spec)?)?;
    match &args.out {
        Some(path) => {
            write_file(path, &yaml)?;
            println!("wrote {}", path.display());
        }
        None => print!("{yaml}"),
    }
    Ok(())
}

fn run_publish(args: &PublishArgs) -> CliResult {
    let report = check_build(&args.build_dir, &ReadOptions::at(now()))?;
    if report.has_errors() && !args.allow_errors {
        eprint!("{}", report.render());
        let errors = report
            .read
            .findings
            .iter()
            .filter(|f| f.severity == crate::finding::Severity::Error)
            .count();
        return Err(CliError::CheckFailed { errors, dirs: 1 }.into());
    }
    // Say what TestGrid would show differently (e.g. a column header reading `missing`).
    for f in report
        .read
        .findings
        .iter()
        .filter(|f| f.severity == crate::finding::Severity::Warning)
    {
        eprintln!("{f}");
    }
    if let Some(to) = &args.to {
        let p = publish_to_dir(&args.build_dir, to)?;
        println!("published {}", p.dest.display());
        if !p.latest_updated {
            println!("latest-build.txt left pointing at a newer build");
        }
        if !p.newer_builds.is_empty() {
            eprintln!(
                "warning: {} newer build(s) already there (e.g. {}); TestGrid skips builds older than those it has read",
                p.newer_builds.len(),
                p.newer_builds[0]
            );
        }
    }
    for (url, uploader) in [
        (&args.print_gsutil, Uploader::Gsutil),
        (&args.print_gcloud, Uploader::Gcloud),
    ] {
        if let Some(url) = url {
            for line in upload_commands(&args.build_dir, url, uploader)? {
                println!("{line}");
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser as _;

    #[derive(Debug, clap::Parser)]
    struct Cli {
        #[command(subcommand)]
        command: Command,
    }

    #[derive(Debug, clap::Subcommand)]
    enum Command {
        Report(ReportArgs),
        Testgrid(TestgridArgs),
    }

    fn parse(args: &[&str]) -> Command {
        match Cli::try_parse_from(std::iter::once("harness").chain(args.iter().copied())) {
            Ok(cli) => cli.command,
            Err(e) => panic!("{e}"),
        }
    }

    /// A build without finished.json is TestGrid's RUNNING column: `check` passes unless
    /// `--require-finished`.
    #[test]
    fn running_build_passes_check_unless_finished_is_required() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("ci-job/100");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("started.json"), r#"{"timestamp": 1767225600}"#).unwrap();
        std::fs::write(root.path().join("ci-job/latest-build.txt"), "100").unwrap();
        let dir = dir.display().to_string();
        let check = |extra: &[&str]| {
            let mut args = vec!["testgrid", "check", &dir, "--now", "1767229200"];
            args.extend_from_slice(extra);
            let Command::Testgrid(t) = parse(&args) else {
                panic!("not testgrid")
            };
            run_testgrid(&t).map_err(|e| e.to_string())
        };
        assert_eq!(check(&[]), Ok(()));
        let e = check(&["--require-finished"]).unwrap_err();
        assert!(e.contains("1 thing(s)"), "{e}");
    }

    /// Reading and summarising default to what `harness testgrid config` writes.
    #[test]
    fn defaults_match_the_generated_configuration() {
        let Command::Report(report) = parse(&["report", "dir", "--out", "r.html"]) else {
            panic!("not report")
        };
        let Command::Testgrid(TestgridArgs {
            command: TestgridCommand::Config(config),
        }) = parse(&[
            "testgrid",
            "config",
            "--job",
            "j",
            "--bucket-prefix",
            "b",
            "--kubernetes-minor",
            "1.34",
        ])
        else {
            panic!("not config")
        };
        let spec = ConfigSpec::new("j", "b", "azure", "1.34");
        let read = report.group.read_options();
        let tab = report.group.tab_settings();
        assert_eq!(read.days_of_results, spec.days_of_results);
        assert_eq!(config.days_of_results, spec.days_of_results);
        assert!(
            !read.prowjob_analysis,
            "the configuration disables prowjob analysis"
        );
        assert_eq!(
            (
                tab.alerts.num_failures_to_alert,
                tab.alert_stale_results_hours,
                tab.num_columns_recent
            ),
            (
                spec.num_failures_to_alert,
                spec.alert_stale_results_hours,
                spec.num_columns_recent
            )
        );
        assert_eq!(
            (
                config.num_failures_to_alert,
                config.alert_stale_results_hours
            ),
            (spec.num_failures_to_alert, spec.alert_stale_results_hours)
        );
        assert_eq!(
            ReadOptions::at(read.now).days_of_results,
            spec.days_of_results
        );
    }
}
