//! `cloud-controller-manager`: the Azure cloud controllers under leader election (and Leader
//! Migration), with upstream's command line (`flags.rs`), validation before any write
//! (`settings.rs`, `controllers_flag.rs`), the secure port (`endpoints.rs`, `configz.rs`) and the
//! wiring (`run.rs`; the controllers are hosted by `ccm_controllers::host`, the cloud config
//! and the Azure feeds are `azure_ccm::cloud_config` and `azure_ccm::azure_feeds`;
//! `config_reload.rs` for `--enable-dynamic-reloading`).
//!
//! Verified (anchor-ccm.md §1.2, §1.3, §8; migration.md §1.3): every flag name and default;
//! `--concurrent-service-syncs` must be 1 and `--cloud-config` may be empty only with
//! `--enable-dynamic-reloading` (upstream `cmd/cloud-controller-manager/app/options/options.go`
//! `Validate`; `dynamic.go` for the Secret flags and their defaults); `--cluster-cidr` holds at most two CIDRs and is needed
//! by the route controller; `--controllers` semantics (see `controllers_flag.rs`); the Lease
//! `kube-system/cloud-controller-manager` with identity `<hostname>_<uuid>`; losing it exits
//! non-zero; secure port 10258 with a self-signed certificate for `localhost`/127.0.0.1;
//! `/configz` key `cloudcontrollermanager.config.k8s.io`; `--cloud-config` may be empty only with
//! dynamic reloading (then the Secret `--cloud-config-secret-name` is read).
//!
//! Not applied yet, or deliberately different (logged at start, see `not_implemented.rs`):
//! - content type, resync period, delegated authn/z, pprof, service account
//!   credentials, node filter, feature gates,
//!   `CloudAllocator`;
//! - **[infer]** `--cloud-provider` other than `azure` is refused at start (upstream fails when
//!   initialising the cloud); the route controller runs with `--configure-cloud-routes=true`
//!   whatever `--allocate-node-cidrs` says (anchor-ccm.md §1.2);
//! - **[infer]** dynamic reloading without `--cloud-config` needs `--cloud-config-secret-name`
//!   (upstream builds no cloud from an empty name and exits later);
//! - **[infer]** `--controller-start-interval` is a fixed pause between two starts (upstream
//!   jitters it); node-ipam retries a failed allocation after 10 s; a period of 0 is refused;
//! - **[infer]** a SIGTERM releases the Lease (client-go `ReleaseOnCancel`, which upstream's CCM
//!   does not set) so a standby takes over at once.

mod config_reload;
mod configz;
mod controllers_flag;
mod endpoints;
mod flags;
mod leader_metrics;
mod not_implemented;
mod run;
mod settings;

use clap::{CommandFactory, FromArgMatches};

fn main() -> std::process::ExitCode {
    let matches = flags::Flags::command().get_matches();
    let flags = match flags::Flags::from_arg_matches(&matches) {
        Ok(flags) => flags,
        Err(error) => error.exit(),
    };
    azure_ccm::logging::init(flags.log_format, flags.verbosity);
    not_implemented::log(&flags, &matches);
    azure_ccm::process_main::run_to_exit("cloud-controller-manager", run::run(flags))
}
