//! What can go wrong starting, watching or stopping a child process.

use std::path::PathBuf;
use std::time::Duration;

/// A supervisor failure; every variant names the process and, where it ran, its log file and the
/// last lines it wrote, so the reader does not have to open the artifacts to see why.
#[derive(Debug, thiserror::Error)]
pub enum SupervisorError {
    /// The binary is neither next to the running executable nor on `$PATH`.
    #[error("{0}")]
    Lookup(#[from] super::lookup::LookupError),
    /// The artifacts directory or a log file could not be created.
    #[error("{what} {}: {source}", path.display())]
    Io {
        /// What was being done.
        what: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// `spawn` itself failed (not executable, missing loader...).
    #[error("starting {name} ({}): {source}", program.display())]
    Spawn {
        /// Process name given in its spec.
        name: String,
        /// The program.
        program: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The process exited before it was ready.
    #[error("{name} exited before it was ready ({status}); log {}, last lines:\n{tail}", log.display())]
    ExitedEarly {
        /// Process name.
        name: String,
        /// How it ended.
        status: String,
        /// Its log file.
        log: PathBuf,
        /// The last lines of that log.
        tail: String,
    },
    /// The readiness line or probe did not come within the deadline; the process was killed.
    #[error("{name} was not ready within {deadline:?} (waiting for {waiting_for}); log {}, last lines:\n{tail}", log.display())]
    NotReady {
        /// Process name.
        name: String,
        /// The deadline that passed.
        deadline: Duration,
        /// The line or probe waited for.
        waiting_for: String,
        /// Its log file.
        log: PathBuf,
        /// The last lines of that log.
        tail: String,
    },
    /// Signalling or reaping the process failed.
    #[error("stopping {name} (pid {pid}): {source}")]
    Stop {
        /// Process name.
        name: String,
        /// Its pid.
        pid: u32,
        /// The underlying error.
        source: std::io::Error,
    },
    /// No process of that name is supervised (already stopped, or never started).
    #[error("no supervised process named {0}")]
    Unknown(String),
}
