//! A process under test whose stderr goes to a file the test reads (its log), killed on drop.

use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// A running process and its log file.
pub struct LoggedProcess {
    child: Mutex<Child>,
    log: tempfile::NamedTempFile,
}

impl LoggedProcess {
    /// Spawns `command` with stdout discarded and stderr written to a temporary file.
    pub fn spawn(mut command: Command) -> LoggedProcess {
        let log = tempfile::NamedTempFile::new().expect("log file");
        let child = command
            .stdout(Stdio::null())
            .stderr(log.reopen().expect("log handle"))
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {command:?}: {e}"));
        LoggedProcess {
            child: Mutex::new(child),
            log,
        }
    }

    /// Everything the process logged so far.
    pub fn logs(&self) -> String {
        std::fs::read_to_string(self.log.path()).unwrap_or_default()
    }

    fn child(&self) -> MutexGuard<'_, Child> {
        self.child.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Panics with the log if the process has exited.
    pub fn assert_running(&self) {
        let exited = self.child().try_wait().expect("poll");
        assert!(exited.is_none(), "exited {exited:?}:\n{}", self.logs());
    }

    /// SIGTERM, then waits for the exit.
    pub fn terminate(&self) -> ExitStatus {
        let pid = self.child().id();
        let status = Command::new("kill")
            .args(["-TERM", &pid.to_string()])
            .status()
            .expect("kill -TERM");
        assert!(status.success());
        self.child().wait().expect("wait")
    }

    /// SIGKILL: the process dies at once, like a crash.
    pub fn kill(&self) -> ExitStatus {
        let mut child = self.child();
        child.kill().expect("kill -KILL");
        child.wait().expect("wait")
    }
}

impl Drop for LoggedProcess {
    fn drop(&mut self) {
        let mut child = self.child();
        let _ = child.kill();
        let _ = child.wait();
    }
}
