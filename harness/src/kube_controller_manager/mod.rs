//! `harness kube-controller-manager`: a stand-in for the in-tree kube-controller-manager of a
//! cluster running `--cloud-provider=azure`, as far as the cloud is concerned. It hosts the
//! cloud-agnostic controllers of `ccm-controllers` (cloud-node-lifecycle, service, route,
//! node-ipam; no cloud-node: in-tree the kubelet initialises Nodes) over the Azure provider,
//! with the same hosting as `cloud-controller-manager` (`ccm_controllers::host`) under the main
//! Lease `kube-system/kube-controller-manager` and, with `--enable-leader-migration`, the
//! migration Lease for the controllers the config gives to `kube-controller-manager` (or `*`).
//! The harness launches it as the emulated in-tree KCM of a migration scenario.
//!
//! Verified (migration.md §1.3, §2.1-2.5): the component name `kube-controller-manager`, its
//! main Lease, the in-tree controller names and aliases, the route controller only with
//! `--allocate-node-cidrs` and `--configure-cloud-routes`, the Leader Migration flags; node-ipam
//! as kubernetes' range allocator, which records as used only the podCIDRs it read at start and
//! those it gave, never those another allocator writes later (`range_allocator.go`, see
//! `IpamConfig::upstream_range_allocator`; the CCM's controller records them: migration.md P12).
//! Deliberate differences: the secure port serves only `/healthz`, `/livez` and `/readyz` (no
//! authentication, a self-signed certificate; [`health`]), KCM's
//! other controllers are not emulated (their names are accepted in `--controllers`), the cloud
//! config is read from `--cloud-config` only, and one flag upstream's KCM does not have:
//! `--in-tree-profile=1.N` (1.27, 1.28 or 1.29; default 1.29) selects which release's in-tree
//! Azure provider to reproduce where it wrote Azure resources differently from today's CCM
//! ([`crate::intree::kcm_profile`]); the differences in effect are logged at start.

mod controllers;
mod flags;
mod health;
mod run;

pub use flags::KcmArgs;

/// Runs the stand-in until SIGTERM/SIGINT (Ok) or a failure (Err, exit non-zero).
pub fn main(args: &KcmArgs) -> anyhow::Result<()> {
    azure_ccm::logging::init(azure_ccm::logging::LogFormat::Text, args.verbosity);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(run::run(args))
}
