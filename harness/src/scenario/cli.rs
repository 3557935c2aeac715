//! `harness scenarios validate [PATH...]`: loads every given scenario file (directories expand) and
//! prints each one OK or with its errors, before anything would start.

use super::load::load_each;
use std::path::PathBuf;

/// `harness scenarios` arguments.
#[derive(Debug, clap::Args)]
pub struct ScenariosArgs {
    #[command(subcommand)]
    command: ScenariosCommand,
}

#[derive(Debug, clap::Subcommand)]
enum ScenariosCommand {
    /// Parse and validate scenario files; exit 1 if any has an error.
    Validate {
        /// Scenario files or directories of them (default: scenarios).
        paths: Vec<PathBuf>,
    },
}

/// Every file that failed, for the exit status.
#[derive(Debug, thiserror::Error)]
#[error("{failed} of {total} scenario files have errors")]
pub struct ValidateFailed {
    /// Files with errors.
    pub failed: usize,
    /// Files looked at.
    pub total: usize,
}

/// Runs `harness scenarios ...`, printing one line (or block) per file to stdout.
pub fn run(args: &ScenariosArgs) -> Result<(), ValidateFailed> {
    let ScenariosCommand::Validate { paths } = &args.command;
    let paths = if paths.is_empty() {
        vec![PathBuf::from("scenarios")]
    } else {
        paths.clone()
    };
    let results = load_each(&paths);
    let mut failed = 0;
    for (path, result) in &results {
        match result {
            Ok(s) => println!(
                "ok    {} ({} checks, expect {})",
                path.display(),
                s.checks.len(),
                match s.expect {
                    super::Expect::Pass => "pass".to_string(),
                    super::Expect::Fail(check) => format!("fail: {check}"),
                }
            ),
            Err(e) => {
                failed += 1;
                println!("error {e}");
            }
        }
    }
    if failed == 0 && !results.is_empty() {
        println!("{} scenario files valid", results.len());
        Ok(())
    } else {
        Err(ValidateFailed {
            failed: failed.max(usize::from(results.is_empty())),
            total: results.len(),
        })
    }
}
