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

/// Why `scenarios validate` exits non-zero.
#[derive(Debug, thiserror::Error)]
pub enum ValidateFailed {
    /// Some files have errors (printed above).
    #[error("{failed} of {total} scenario files have errors")]
    Errors {
        /// Files with errors.
        failed: usize,
        /// Files looked at.
        total: usize,
    },
    /// The paths held no scenario file.
    #[error("no scenario files (*.yaml, *.yml) in {0}")]
    Empty(String),
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
    if results.is_empty() {
        let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        return Err(ValidateFailed::Empty(shown.join(", ")));
    }
    if failed > 0 {
        return Err(ValidateFailed::Errors {
            failed,
            total: results.len(),
        });
    }
    println!("{} scenario files valid", results.len());
    Ok(())
}
