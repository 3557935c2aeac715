//! `cloud-node-manager`: one process per node that initialises its own Node from the Azure
//! Instance Metadata Service (no ARM credential, zero ARM calls) through the cloud-agnostic
//! cloud-node controller scoped to that Node. See `flags.rs` for the command line and `run.rs` for
//! the wiring.

mod flags;
mod run;
mod wait_routes;

use clap::Parser;

fn main() -> std::process::ExitCode {
    let flags = flags::Flags::parse();
    run::init_logging(&flags);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("cloud-node-manager: cannot start the async runtime: {error}");
            return std::process::ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run::run(flags)) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("cloud-node-manager: {error:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
