//! The `harness report` and `harness testgrid` commands, hosted by the harness binary.

use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::check::check_build;
use crate::config::{self, ConfigSpec};
use crate::grid::load::{build_dirs, load};
use crate::grid::{Grid, ReadOptions};
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
    /// Evaluate builds as of this time (epoch seconds) instead of now.
    #[arg(long, value_name = "EPOCH_SECONDS")]
    pub now: Option<i64>,
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
    /// Evaluate as of this time (epoch seconds) instead of now.
    #[arg(long, value_name = "EPOCH_SECONDS")]
    pub now: Option<i64>,
    /// The test group's days_of_results (older builds show as UNKNOWN); unset = no limit.
    #[arg(long)]
    pub days_of_results: Option<u32>,
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
    #[arg(long, default_value_t = 1)]
    pub num_failures_to_alert: u32,
    /// Hours without a new build before the tab is stale.
    #[arg(long, default_value_t = 168)]
    pub alert_stale_results_hours: u32,
    /// Days of builds kept.
    #[arg(long, default_value_t = 15)]
    pub days_of_results: u32,
    /// Extra finished.json metadata keys to show as column headers (after Commit).
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

fn options(now: Option<i64>, days_of_results: Option<u32>) -> ReadOptions {
    let now = now.unwrap_or_else(|| {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
            .unwrap_or(0)
    });
    ReadOptions {
        now,
        days_of_results,
    }
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
    let reads = load(&args.dirs, &options(args.now, None))?;
    let grid = Grid::new(reads.into_iter().map(|r| r.column).collect());
    write_file(&args.out, &crate::html::render(&grid, &args.title))?;
    print!("{}", crate::summary::render(&grid));
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
    let opts = options(args.now, args.days_of_results);
    let dirs = build_dirs(&args.dirs)?;
    let mut errors = 0;
    for dir in &dirs {
        let report = check_build(dir, &opts)?;
        println!("== {}", dir.display());
        print!("{}", report.render());
        errors += report
            .read
            .findings
            .iter()
            .filter(|f| f.severity == crate::finding::Severity::Error)
            .count();
    }
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
    let report = check_build(&args.build_dir, &options(None, None))?;
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
