//! Graceful shutdown on SIGTERM or SIGINT, as a future the host runs until.

use tokio::signal::unix::{SignalKind, signal};

use super::error::HostError;

/// A future resolving with the signal's name on the first SIGTERM or SIGINT.
pub fn termination() -> Result<impl Future<Output = &'static str> + Send, HostError> {
    let mut term = signal(SignalKind::terminate()).map_err(|source| HostError::Signal {
        signal: "SIGTERM",
        source,
    })?;
    let mut int = signal(SignalKind::interrupt()).map_err(|source| HostError::Signal {
        signal: "SIGINT",
        source,
    })?;
    Ok(async move {
        tokio::select! {
            _ = term.recv() => "SIGTERM",
            _ = int.recv() => "SIGINT",
        }
    })
}
