//! What to start and how to tell it is ready: a program, its arguments and environment, and a
//! readiness condition with a deadline.

use std::ffi::OsString;
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

/// An async readiness check (e.g. an HTTP GET of `/healthz`); `true` once ready.
pub type Probe = Arc<dyn Fn() -> Pin<Box<dyn Future<Output = bool> + Send>> + Send + Sync>;

/// When a started process counts as ready.
#[derive(Clone)]
pub enum Readiness {
    /// As soon as it is spawned.
    Spawned,
    /// Once a line of its stdout contains this text.
    Line(String),
    /// Once a line of its stdout is exactly this text (trailing spaces ignored).
    ExactLine(String),
    /// Once the probe answers `true` (polled until the deadline).
    Probe(Probe),
}

impl std::fmt::Debug for Readiness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe())
    }
}

impl Readiness {
    /// Human description, for errors ("a stdout line containing \"ready\"").
    pub fn describe(&self) -> String {
        match self {
            Readiness::Spawned => "spawn".to_string(),
            Readiness::Line(text) => format!("a stdout line containing {text:?}"),
            Readiness::ExactLine(text) => format!("the stdout line {text:?}"),
            Readiness::Probe(_) => "the readiness probe".to_string(),
        }
    }
}

/// One child process to supervise.
#[derive(Debug, Clone)]
pub struct ProcessSpec {
    /// Unique name among the supervisor's children; also the log file's stem.
    pub name: String,
    /// Program path (see [`super::find_binary`]).
    pub program: PathBuf,
    /// Arguments.
    pub args: Vec<OsString>,
    /// Extra environment variables (the harness's own environment is inherited).
    pub env: Vec<(OsString, OsString)>,
    /// Readiness condition.
    pub readiness: Readiness,
    /// How long readiness may take before the process is killed and start fails.
    pub deadline: Duration,
    /// The host name the process sees (its own UTS namespace), as a Pod sees its own; `None`
    /// keeps the machine's. Leader election identities start with it (`<hostname>_<uuid>`), so
    /// a Lease holder names the process without reading its log.
    pub hostname: Option<String>,
}

impl ProcessSpec {
    /// A spec with no arguments, ready when spawned, with a 60 s deadline (two busy cores start
    /// a TLS server in well under that). `RUST_LIB_BACKTRACE=0`: a child's error report stays the
    /// message (what a failed start quotes from the log tail) even when the harness runs with
    /// `RUST_BACKTRACE=1`; panics still print their backtrace.
    pub fn new(name: impl Into<String>, program: impl Into<PathBuf>) -> Self {
        Self {
            name: name.into(),
            program: program.into(),
            args: Vec::new(),
            env: vec![("RUST_LIB_BACKTRACE".into(), "0".into())],
            readiness: Readiness::Spawned,
            deadline: Duration::from_secs(60),
            hostname: None,
        }
    }

    /// Appends arguments.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Adds an environment variable.
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Ready once a stdout line contains `text`.
    pub fn ready_on_line(mut self, text: impl Into<String>) -> Self {
        self.readiness = Readiness::Line(text.into());
        self
    }

    /// Ready once a stdout line is exactly `text`.
    pub fn ready_on_exact_line(mut self, text: impl Into<String>) -> Self {
        self.readiness = Readiness::ExactLine(text.into());
        self
    }

    /// Ready once `probe` answers `true`.
    pub fn ready_on_probe(mut self, probe: Probe) -> Self {
        self.readiness = Readiness::Probe(probe);
        self
    }

    /// Runs the process with its own host name (see [`ProcessSpec::hostname`]).
    pub fn hostname(mut self, hostname: impl Into<String>) -> Self {
        self.hostname = Some(hostname.into());
        self
    }

    /// Readiness deadline.
    pub fn deadline(mut self, deadline: Duration) -> Self {
        self.deadline = deadline;
        self
    }
}
