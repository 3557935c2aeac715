//! `cloud-node-manager`: one process per node that initialises its own Node from the Azure
//! Instance Metadata Service (no ARM credential, zero ARM calls) through the cloud-agnostic
//! cloud-node controller scoped to that Node, or from ARM with `--use-instance-metadata=false`
//! (`arm_mode.rs`). See `flags.rs` for the command line and `run.rs` for the wiring.
//!
//! Verified (anchor-ccm.md 1.4, upstream `cmd/cloud-node-manager/app/options/options.go`): flag
//! names and defaults; `--node-name` defaults to the lower-cased host name; `--secure-port` 0
//! serves nothing; the watch is restricted to `metadata.name=<node-name>`; `--wait-routes` sets
//! `NetworkUnavailable=True/NodeInitialization`; a non-zero `--secure-port` serves `/healthz`
//! with a ping check named after the node (**[infer]** plus `/livez`, `/readyz` and the node
//! controller's `/metrics`) over HTTPS (`--tls-*` files, else a self-signed certificate for
//! localhost, kept in `--cert-dir` when given).
//!
//! Not applied yet, or deliberately different:
//! - deliberate: ARM mode resolves the VM by `--node-name`, never by the host name as upstream;
//! - `--min-resync-period` is validated but not applied (kube-rs watches have no informer
//!   resync); `--kube-api-content-type` is validated, requests are always JSON;
//!   `--kube-api-qps`/`--kube-api-burst` are applied (`azure_ccm::kube_rate_limit`);
//! - **[infer]** `-v` levels map to tracing levels: 0-1 info, 2-4 debug, 5+ trace;
//! - **[infer]** `AZURE_IMDS_ENDPOINT` and `--imds-endpoint` are ours (upstream has no IMDS
//!   override); `SSL_CERT_FILE` is also trusted for an `https` IMDS endpoint.

mod arm_mode;
mod flags;
mod health;
mod run;
mod wait_routes;

use clap::Parser;

fn main() -> std::process::ExitCode {
    let flags = flags::Flags::parse();
    run::init_logging(&flags);
    azure_ccm::process_main::run_to_exit("cloud-node-manager", run::run(flags))
}
