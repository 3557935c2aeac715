//! `harness report`: the offline TestGrid page of build directories (the `testgrid` crate draws
//! it), and with `--merge`, first the shards of one run merged into one build directory, which
//! the page then shows as a single column.

use std::path::PathBuf;

use anyhow::{Context, bail};

use super::merge::merge_shards;

/// Flags of `harness report`.
#[derive(Debug, clap::Args)]
pub struct ReportCommand {
    /// A shard's build directory (`harness run --shard I/N`), once per shard: the shards are
    /// merged into the one DIR given, which is then drawn (`harness report OUT --merge S1
    /// --merge S2 ... --out FILE`).
    #[arg(long = "merge", value_name = "SHARD_DIR")]
    pub merge: Vec<PathBuf>,
    /// The page's flags.
    #[command(flatten)]
    pub report: testgrid::cli::ReportArgs,
}

/// Runs `harness report`.
pub fn run_report(args: &ReportCommand) -> anyhow::Result<()> {
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
