//! One supervised child: spawned in its own process group with stdout and stderr copied into a
//! log file, watched until ready, stopped with SIGTERM then SIGKILL, and killed when dropped.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::error::SupervisorError;
use super::spec::{ProcessSpec, Readiness};

/// How often readiness and exit are polled.
const POLL: Duration = Duration::from_millis(50);
/// Lines of the log quoted in errors.
const TAIL_LINES: usize = 20;

/// What a caller keeps of a started process: its identity, log and what it printed.
#[derive(Debug, Clone)]
pub struct ProcessHandle {
    /// Name from its spec.
    pub name: String,
    /// Its pid, which is also its process group id.
    pub pid: u32,
    /// Its log file (stdout and stderr, interleaved as they arrived).
    pub log: PathBuf,
    lines: Arc<Mutex<Vec<String>>>,
}

impl ProcessHandle {
    /// Every stdout line printed so far (how the harness reads printed endpoints).
    pub fn printed(&self) -> Vec<String> {
        self.lines.lock().map(|l| l.clone()).unwrap_or_default()
    }
}

/// A running child owned by the supervisor.
#[derive(Debug)]
pub struct Supervised {
    handle: ProcessHandle,
    child: Child,
    /// Copier threads still running (0 once both pipes reached end of file).
    copiers: Arc<AtomicUsize>,
    reaped: Option<ExitStatus>,
}

impl Supervised {
    /// Spawns `spec` in a new process group, logging into `log_dir/<name>.log`.
    pub fn spawn(spec: &ProcessSpec, log_dir: &Path) -> Result<Self, SupervisorError> {
        std::fs::create_dir_all(log_dir).map_err(|source| SupervisorError::Io {
            what: "creating log directory",
            path: log_dir.to_path_buf(),
            source,
        })?;
        let log = log_dir.join(format!("{}.log", spec.name));
        let file = File::create(&log).map_err(|source| SupervisorError::Io {
            what: "creating log file",
            path: log.clone(),
            source,
        })?;
        let mut command = Command::new(&spec.program);
        command
            .args(&spec.args)
            .envs(spec.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own group: a terminal's Ctrl-C reaches only the harness, which stops children in
            // order, and a stop signal reaches the child's own children too.
            .process_group(0);
        if let Some(hostname) = &spec.hostname {
            own_hostname(&mut command, hostname).map_err(|source| SupervisorError::Spawn {
                name: spec.name.clone(),
                program: spec.program.clone(),
                source,
            })?;
        }
        let mut child = command.spawn().map_err(|source| SupervisorError::Spawn {
            name: spec.name.clone(),
            program: spec.program.clone(),
            source,
        })?;
        let lines = Arc::new(Mutex::new(Vec::new()));
        let file = Arc::new(Mutex::new(file));
        let copiers = Arc::new(AtomicUsize::new(0));
        if let Some(stdout) = child.stdout.take() {
            copy_lines(stdout, file.clone(), Some(lines.clone()), copiers.clone());
        }
        if let Some(stderr) = child.stderr.take() {
            copy_lines(stderr, file, None, copiers.clone());
        }
        Ok(Self {
            handle: ProcessHandle {
                name: spec.name.clone(),
                pid: child.id(),
                log,
                lines,
            },
            child,
            copiers,
            reaped: None,
        })
    }

    /// The caller's view of this process.
    pub fn handle(&self) -> &ProcessHandle {
        &self.handle
    }

    /// Waits until `readiness` holds; fails with the log tail if the process exits first or the
    /// deadline passes (then the process is killed).
    pub async fn wait_ready(
        &mut self,
        readiness: &Readiness,
        deadline: Duration,
    ) -> Result<(), SupervisorError> {
        let start = Instant::now();
        loop {
            if let Some(status) = self.exited() {
                self.drain_copiers().await;
                return Err(SupervisorError::ExitedEarly {
                    name: self.handle.name.clone(),
                    status: status.to_string(),
                    log: self.handle.log.clone(),
                    tail: self.tail(),
                });
            }
            let ready = match readiness {
                Readiness::Spawned => true,
                Readiness::Line(text) => self.handle.printed().iter().any(|l| l.contains(text)),
                Readiness::ExactLine(text) => {
                    self.handle.printed().iter().any(|l| l.trim_end() == text)
                }
                Readiness::Probe(probe) => probe().await,
            };
            if ready {
                return Ok(());
            }
            if start.elapsed() >= deadline {
                self.kill();
                self.drain_copiers().await;
                return Err(SupervisorError::NotReady {
                    name: self.handle.name.clone(),
                    deadline,
                    waiting_for: readiness.describe(),
                    log: self.handle.log.clone(),
                    tail: self.tail(),
                });
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// The exit status once the process has ended (reaping it), `None` while it runs.
    pub fn exited(&mut self) -> Option<ExitStatus> {
        if self.reaped.is_none() {
            self.reaped = self.child.try_wait().ok().flatten();
        }
        self.reaped
    }

    /// SIGTERM to the process group, then SIGKILL if it has not exited after `grace`.
    pub async fn stop(&mut self, grace: Duration) -> Result<ExitStatus, SupervisorError> {
        if let Some(status) = self.exited() {
            return Ok(status);
        }
        signal_group(self.handle.pid, libc::SIGTERM);
        let start = Instant::now();
        while start.elapsed() < grace {
            if let Some(status) = self.exited() {
                return Ok(status);
            }
            tokio::time::sleep(POLL).await;
        }
        signal_group(self.handle.pid, libc::SIGKILL);
        let status = self.child.wait().map_err(|source| SupervisorError::Stop {
            name: self.handle.name.clone(),
            pid: self.handle.pid,
            source,
        })?;
        self.reaped = Some(status);
        Ok(status)
    }

    /// SIGKILL to the process group and reap (no grace: drop and failed starts). Once reaped,
    /// the group id may belong to someone else: nothing more is sent.
    pub fn kill(&mut self) {
        if self.exited().is_some() {
            return;
        }
        signal_group(self.handle.pid, libc::SIGKILL);
        self.reaped = self.child.wait().ok();
    }

    /// Gives the copier threads a moment to write what the pipes still hold, so a tail quoted
    /// after an exit is complete.
    async fn drain_copiers(&self) {
        for _ in 0..40 {
            if self.copiers.load(Ordering::SeqCst) == 0 {
                return;
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// The last lines of the log.
    pub fn tail(&self) -> String {
        log_tail(&self.handle.log, TAIL_LINES)
    }
}

impl Drop for Supervised {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Sends `signal` to the process group `pgid` (the child's pid, see `process_group(0)`); a group
/// that is already gone is not an error.
fn signal_group(pgid: u32, signal: libc::c_int) {
    let Ok(pgid) = libc::pid_t::try_from(pgid) else {
        return;
    };
    if pgid <= 1 {
        return;
    }
    // SAFETY: kill(2) with a negative pid only sends a signal to that process group; it touches
    // no memory of this process.
    unsafe {
        libc::kill(-pgid, signal);
    }
}

/// Makes `command` run in a UTS namespace of its own with `hostname` as its host name, as a
/// Pod has: `unshare(CLONE_NEWUTS)` as root, else inside a new user namespace (an unprivileged
/// harness; the child keeps its uid for every file access). Fails at spawn when neither is
/// allowed, naming the reason.
fn own_hostname(command: &mut Command, hostname: &str) -> std::io::Result<()> {
    if hostname.is_empty() || hostname.len() > 64 || hostname.contains('\0') {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("host name {hostname:?}: 1 to 64 bytes, no NUL"),
        ));
    }
    let name = hostname.as_bytes().to_vec();
    // SAFETY: the closure runs in the forked child before exec and only makes the raw system
    // calls unshare(2) and sethostname(2) on memory allocated before the fork; it allocates
    // nothing and takes no lock.
    unsafe {
        command.pre_exec(move || {
            if libc::unshare(libc::CLONE_NEWUTS) != 0
                && libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWUTS) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            if libc::sethostname(name.as_ptr().cast(), name.len()) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    Ok(())
}

/// Copies `pipe` line by line into the shared log file (and, for stdout, into `lines`) on a thread.
fn copy_lines(
    pipe: impl Read + Send + 'static,
    file: Arc<Mutex<File>>,
    lines: Option<Arc<Mutex<Vec<String>>>>,
    running: Arc<AtomicUsize>,
) {
    running.fetch_add(1, Ordering::SeqCst);
    std::thread::spawn(move || {
        let mut reader = BufReader::new(pipe);
        let mut buf = Vec::new();
        while reader.read_until(b'\n', &mut buf).is_ok_and(|n| n > 0) {
            let line = String::from_utf8_lossy(&buf)
                .trim_end_matches(['\n', '\r'])
                .to_string();
            if let Ok(mut file) = file.lock() {
                let _ = writeln!(file, "{line}");
                let _ = file.flush();
            }
            if let Some(lines) = &lines
                && let Ok(mut lines) = lines.lock()
            {
                lines.push(line);
            }
            buf.clear();
        }
        running.fetch_sub(1, Ordering::SeqCst);
    });
}

/// The last `n` lines of a log file (empty when it cannot be read).
pub fn log_tail(path: &Path, n: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}
