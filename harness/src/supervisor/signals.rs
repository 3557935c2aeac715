//! Ctrl-C and SIGTERM: the harness's children live in their own process groups, so a terminal's
//! Ctrl-C reaches only the harness, which must stop them itself.

use tokio::signal::unix::{Signal, SignalKind, signal};

/// Which signal ended the wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shutdown {
    /// SIGINT (Ctrl-C).
    Interrupt,
    /// SIGTERM.
    Terminate,
}

impl Shutdown {
    /// Exit code by shell convention (128 + signal number).
    pub fn exit_code(self) -> i32 {
        match self {
            Shutdown::Interrupt => 128 + libc::SIGINT,
            Shutdown::Terminate => 128 + libc::SIGTERM,
        }
    }
}

/// SIGINT and SIGTERM handlers, installed when created: create it *before* starting children,
/// so a signal that arrives while they start is caught instead of killing the harness and
/// leaving them behind. Needs a Tokio runtime.
#[derive(Debug)]
pub struct ShutdownSignals {
    interrupt: Option<Signal>,
    terminate: Option<Signal>,
}

impl ShutdownSignals {
    /// Installs the handlers (one that cannot be installed leaves that signal's default action).
    pub fn install() -> Self {
        Self {
            interrupt: signal(SignalKind::interrupt()).ok(),
            terminate: signal(SignalKind::terminate()).ok(),
        }
    }

    /// Resolves at the next SIGINT or SIGTERM.
    pub async fn wait(&mut self) -> Shutdown {
        async fn next(signal: &mut Option<Signal>) {
            match signal {
                Some(signal) => {
                    if signal.recv().await.is_none() {
                        std::future::pending::<()>().await;
                    }
                }
                None => std::future::pending().await,
            }
        }
        tokio::select! {
            _ = next(&mut self.interrupt) => Shutdown::Interrupt,
            _ = next(&mut self.terminate) => Shutdown::Terminate,
        }
    }
}

/// Resolves at the first SIGINT or SIGTERM after the call.
pub async fn shutdown_signal() -> Shutdown {
    ShutdownSignals::install().wait().await
}
