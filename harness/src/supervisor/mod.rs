//! Child-process supervision for everything the harness starts (the fakes, the API server, the
//! cloud-controller-manager, node managers, the stand-in KCM): each child runs in its own process
//! group with its output in `<artifacts>/<name>.log`, is ready on a printed line or a probe
//! within a deadline, is stopped with SIGTERM then SIGKILL after a grace period, and is killed
//! when dropped. A [`Supervisor`] owns all of them and can tear them down on Ctrl-C / SIGTERM.
//!
//! Limits: a harness killed with SIGKILL cannot stop its children (nothing runs in it any more);
//! Linux's parent-death signal is not used because it follows the spawning *thread*, which in an
//! async runtime may end long before the harness does.

mod child;
mod error;
mod lookup;
mod signals;
mod spec;
pub mod usage;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

pub use child::{ProcessHandle, Supervised, log_tail};
pub use error::SupervisorError;
pub use lookup::{LookupError, find_binary, find_binary_in};
pub use signals::{Shutdown, ShutdownSignals, shutdown_signal};
pub use spec::{Probe, ProcessSpec, Readiness};

/// Grace period between SIGTERM and SIGKILL unless the caller picks one.
pub const DEFAULT_GRACE: Duration = Duration::from_secs(5);

type Children = Arc<Mutex<Vec<Supervised>>>;

/// Owns every child the harness started; stops them in reverse start order, and kills what is
/// left when dropped. A clone shares the same children (so one Ctrl-C teardown and one
/// `stop_all` reach everything started through any clone); they are killed when the last clone
/// is dropped.
#[derive(Debug, Clone)]
pub struct Supervisor {
    log_dir: PathBuf,
    grace: Duration,
    children: Children,
}

impl Supervisor {
    /// A supervisor writing child logs under `log_dir`.
    pub fn new(log_dir: impl Into<PathBuf>) -> Self {
        Self {
            log_dir: log_dir.into(),
            grace: DEFAULT_GRACE,
            children: Arc::default(),
        }
    }

    /// Changes the SIGTERM-to-SIGKILL grace period.
    pub fn with_grace(mut self, grace: Duration) -> Self {
        self.grace = grace;
        self
    }

    /// Where the child logs go.
    pub fn log_dir(&self) -> &Path {
        &self.log_dir
    }

    /// Spawns `spec` and waits until it is ready. A child that fails to get ready is killed and
    /// not kept; the error carries its log tail.
    pub async fn start(&self, spec: ProcessSpec) -> Result<ProcessHandle, SupervisorError> {
        let mut child = Supervised::spawn(&spec, &self.log_dir)?;
        // Dropping `child` on the error path kills it.
        child.wait_ready(&spec.readiness, spec.deadline).await?;
        let handle = child.handle().clone();
        self.lock().push(child);
        Ok(handle)
    }

    /// Pids of the children still supervised, in start order.
    pub fn pids(&self) -> Vec<u32> {
        self.lock().iter().map(|c| c.handle().pid).collect()
    }

    /// Handles of the children still supervised, in start order.
    pub fn handles(&self) -> Vec<ProcessHandle> {
        self.lock().iter().map(|c| c.handle().clone()).collect()
    }

    /// Stops the child named `name` (SIGTERM, then SIGKILL after the grace period) and forgets it.
    pub async fn stop(&self, name: &str) -> Result<std::process::ExitStatus, SupervisorError> {
        let mut child = {
            let mut children = self.lock();
            let index = children
                .iter()
                .position(|c| c.handle().name == name)
                .ok_or_else(|| SupervisorError::Unknown(name.to_string()))?;
            children.remove(index)
        };
        child.stop(self.grace).await
    }

    /// Renames `<name>.log` to the first free `<name>.<n>.log`, so starting a process of the
    /// same name again (a restart) does not overwrite what the previous run wrote.
    pub fn keep_log(&self, name: &str) -> Result<(), SupervisorError> {
        let log = self.log_dir.join(format!("{name}.log"));
        if !log.exists() {
            return Ok(());
        }
        let kept = (1..)
            .map(|n| self.log_dir.join(format!("{name}.{n}.log")))
            .find(|p| !p.exists())
            .unwrap_or_else(|| log.with_extension("old.log"));
        std::fs::rename(&log, &kept).map_err(|source| SupervisorError::Io {
            what: "keeping the log of a restarted process",
            path: log,
            source,
        })
    }

    /// SIGKILLs the child named `name` at once (no SIGTERM, no grace: a crash as a process fault
    /// injects it) and forgets it.
    pub fn kill(&self, name: &str) -> Result<(), SupervisorError> {
        let mut child = {
            let mut children = self.lock();
            let index = children
                .iter()
                .position(|c| c.handle().name == name)
                .ok_or_else(|| SupervisorError::Unknown(name.to_string()))?;
            children.remove(index)
        };
        child.kill();
        Ok(())
    }

    /// How the child named `name` ended, `None` while it runs (or when no such child is
    /// supervised): lets a caller waiting on a fact fail fast when the process died instead.
    pub fn exited(&self, name: &str) -> Option<(std::process::ExitStatus, String)> {
        let mut children = self.lock();
        let child = children.iter_mut().find(|c| c.handle().name == name)?;
        let status = child.exited()?;
        Some((status, child.tail()))
    }

    /// Stops every child, last started first; returns the failures (each child is still killed).
    pub async fn stop_all(&self) -> Vec<SupervisorError> {
        stop_children(&self.children, self.grace).await
    }

    /// Spawns a task that, on the first SIGINT or SIGTERM, stops every child still supervised,
    /// prints what it did on stderr and exits the harness with 128 + the signal number. The
    /// handlers are installed before this returns; the task ends when the returned guard is
    /// dropped, and it holds the children only weakly (a dropped supervisor has killed them).
    pub fn teardown_on_signal(&self) -> SignalTeardown {
        let children: Weak<Mutex<Vec<Supervised>>> = Arc::downgrade(&self.children);
        let grace = self.grace;
        let mut signals = ShutdownSignals::install();
        SignalTeardown(tokio::spawn(async move {
            let signal = signals.wait().await;
            if let Some(children) = children.upgrade() {
                eprintln!("harness: {signal:?}: stopping child processes");
                for error in stop_children(&children, grace).await {
                    eprintln!("harness: {error}");
                }
            }
            std::process::exit(signal.exit_code());
        }))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Supervised>> {
        // A panic while holding the lock leaves the list intact: keep using it.
        self.children.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Keeps [`Supervisor::teardown_on_signal`]'s task alive; dropping it ends the task.
#[derive(Debug)]
pub struct SignalTeardown(tokio::task::JoinHandle<()>);

impl Drop for SignalTeardown {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Takes every child out of `children` and stops them, newest first.
async fn stop_children(children: &Children, grace: Duration) -> Vec<SupervisorError> {
    let taken = std::mem::take(&mut *children.lock().unwrap_or_else(|p| p.into_inner()));
    let mut errors = Vec::new();
    for mut child in taken.into_iter().rev() {
        if let Err(e) = child.stop(grace).await {
            errors.push(e);
        }
    }
    errors
}
