//! The end of both binaries' `main`: a two-worker tokio runtime running the process to
//! completion (with one malloc arena and the periodic [`crate::heap_release`]), errors printed once as
//! `<binary>: <error chain>` and turned into the exit code.

use std::future::Future;
use std::process::ExitCode;

/// Runs `work` on a two-worker runtime (a controller manager needs no more; fewer threads keep
/// RSS down) and maps its outcome to the exit code.
pub fn run_to_exit(binary: &str, work: impl Future<Output = anyhow::Result<()>>) -> ExitCode {
    crate::heap_release::limit_arenas();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("{binary}: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    runtime.spawn(crate::heap_release::release_periodically());
    match runtime.block_on(work) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{binary}: {error:#}");
            ExitCode::FAILURE
        }
    }
}
