//! Errors of the Leader Migration flags and configuration file, each naming the file and field.

use std::path::PathBuf;

use thiserror::Error;

/// A Leader Migration setup the manager must refuse at start, before any write.
#[derive(Debug, Error)]
pub enum MigrationConfigError {
    /// The file could not be read.
    #[error("leader migration config {file}: cannot read: {source}")]
    Read {
        /// The `--leader-migration-config` path.
        file: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The text is not YAML/JSON of the expected shape (unknown field, wrong type, ...).
    #[error("leader migration config {file}: {message}")]
    Decode {
        /// The `--leader-migration-config` path.
        file: PathBuf,
        /// The decoder's message (it names the field and position).
        message: String,
    },
    /// A field has a value the API refuses.
    #[error("leader migration config {file}: field `{field}`: {problem}")]
    Invalid {
        /// The `--leader-migration-config` path.
        file: PathBuf,
        /// The field path, e.g. `controllerLeaders[1].component`.
        field: String,
        /// What is wrong and what is accepted.
        problem: String,
    },
    /// A config file was given but migration is not enabled (KEP-2436 makes this fatal).
    #[error(
        "--leader-migration-config={file} is set but --enable-leader-migration is not: pass --enable-leader-migration or drop the config"
    )]
    ConfigWithoutEnable {
        /// The `--leader-migration-config` path.
        file: PathBuf,
    },
    /// Migration needs leader election: without it there is no main lease to hold first.
    #[error("--enable-leader-migration requires --leader-elect=true")]
    MigrationWithoutLeaderElection,
}
