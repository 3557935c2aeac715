//! Ctrl-C and SIGTERM: the harness's children live in their own process groups, so a terminal's
//! Ctrl-C reaches only the harness, which must stop them itself.

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

/// Resolves at the first SIGINT or SIGTERM delivered to the harness. If a handler cannot be
/// installed it never resolves for that signal (the default disposition still ends the process).
pub async fn shutdown_signal() -> Shutdown {
    use tokio::signal::unix::{SignalKind, signal};
    let interrupt = signal(SignalKind::interrupt());
    let terminate = signal(SignalKind::terminate());
    match (interrupt, terminate) {
        (Ok(mut int), Ok(mut term)) => tokio::select! {
            _ = int.recv() => Shutdown::Interrupt,
            _ = term.recv() => Shutdown::Terminate,
        },
        (Ok(mut int), Err(_)) => {
            int.recv().await;
            Shutdown::Interrupt
        }
        (Err(_), Ok(mut term)) => {
            term.recv().await;
            Shutdown::Terminate
        }
        (Err(_), Err(_)) => std::future::pending().await,
    }
}
