//! `harness report`: the offline TestGrid page of build directories (the `testgrid` crate draws
//! it), and with `--merge`, first the shards of one run merged into one build directory, which
//! the page then shows as a single column; with `--compare`, two build directories side by side
//! instead (`build_compare`).

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use super::BINARIES_FILE;
use super::build_compare::compare_builds;
use super::merge::{merge_shards, read_outcomes};
use crate::switch::binaries::BinariesRecord;

/// Flags of `harness report`.
#[derive(Debug, clap::Args)]
pub struct ReportCommand {
    /// A shard's build directory (`harness run --shard I/N`), once per shard: the shards are
    /// merged into the one DIR given, which is then drawn (`harness report OUT --merge S1
    /// --merge S2 ... --out FILE`).
    #[arg(long = "merge", value_name = "SHARD_DIR")]
    pub merge: Vec<PathBuf>,
    /// Compare the two build DIRs given (e.g. our CCM's run and the upstream CCM's) scenario by
    /// scenario and check by check, differences first: a table on stdout and the page at --out.
    #[arg(long, conflicts_with = "merge")]
    pub compare: bool,
    /// The page's flags.
    #[command(flatten)]
    pub report: testgrid::cli::ReportArgs,
}

/// Runs `harness report`.
pub fn run_report(args: &ReportCommand) -> anyhow::Result<()> {
    if args.compare {
        return run_compare(&args.report.dirs, &args.report.out);
    }
    if !args.merge.is_empty() {
        let [out] = args.report.dirs.as_slice() else {
            bail!(
                "--merge: give exactly one DIR to merge the shards into (got {}), e.g. \
                 `harness report merged --merge shard-1 --merge shard-2 --out grid.html`",
                args.report.dirs.len()
            );
        };
        let written = merge_shards(out, &args.merge).with_context(|| {
            format!(
                "merging {} shard(s) into {}",
                args.merge.len(),
                out.display()
            )
        })?;
        println!(
            "merged {} shard(s) into {} ({})",
            args.merge.len(),
            written.dir.display(),
            if written.passed { "passed" } else { "failed" }
        );
    }
    testgrid::cli::run_report(&args.report).map_err(anyhow::Error::from_boxed)
}

/// `--compare A B`: reads both builds' outcomes, prints the comparison and writes its page.
fn run_compare(dirs: &[PathBuf], out: &Path) -> anyhow::Result<()> {
    let [a, b] = dirs else {
        bail!(
            "--compare: give exactly two build DIRs (got {}), e.g. `harness report ours upstream \
             --compare --out compare.html`",
            dirs.len()
        );
    };
    let read = |dir: &PathBuf| -> anyhow::Result<(String, Vec<crate::outcome::ScenarioOutcome>)> {
        let outcomes = read_outcomes(dir).with_context(|| format!("reading {}", dir.display()))?;
        if outcomes.is_empty() {
            bail!(
                "{}: no artifacts/scenarios/*/outcome.json (not a `harness run` build directory)",
                dir.display()
            );
        }
        Ok((build_label(dir), outcomes))
    };
    let ((label_a, a), (label_b, b)) = (read(a)?, read(b)?);
    let comparison = compare_builds((&label_a, &a), (&label_b, &b));
    std::fs::write(out, comparison.html()).with_context(|| format!("writing {}", out.display()))?;
    let table = format!("{}wrote {}\n", comparison.text(), out.display());
    match std::io::Write::write_all(&mut std::io::stdout().lock(), table.as_bytes()) {
        // Piped into `head`: the page is written; a closed stdout is not an error.
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(e).context("writing the table to stdout")
        }
        _ => Ok(()),
    }
}

/// The directory and, when the build recorded them, the CCM binary and version it tested.
fn build_label(dir: &Path) -> String {
    let ccm = std::fs::read_to_string(dir.join("artifacts").join(BINARIES_FILE))
        .ok()
        .and_then(|t| serde_json::from_str::<BinariesRecord>(&t).ok())
        .map(|r| {
            let ccm = r.cloud_controller_manager;
            let version = ccm.version.as_deref().unwrap_or("?");
            format!("{} {version}", ccm.path.display())
        });
    match ccm {
        Some(ccm) => format!("{} (CCM {ccm})", dir.display()),
        None => dir.display().to_string(),
    }
}
