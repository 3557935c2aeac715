//! Wiring: validate the flags, build the client and the Azure provider, host the enabled cloud
//! controllers under the leases.

use anyhow::bail;
use azure_ccm::azure_inputs::build_inputs;
use azure_ccm::cloud_config::{self, CloudConfigSource};
use azure_ccm::kube_client;
use ccm_controllers::host::{Host, RunningControllers, termination};
use ccm_controllers::leader::default_identity;
use ccm_controllers::node_ipam::IpamConfig;
use prometheus_client::registry::Registry;

use super::controllers;
use super::flags::KcmArgs;
use crate::intree::kcm_profile;

/// The component name Leader Migration configurations use for the in-tree manager.
pub const COMPONENT: &str = "kube-controller-manager";

/// Validates the inputs, then runs until SIGTERM/SIGINT (Ok) or a failure (Err).
pub async fn run(args: &KcmArgs) -> anyhow::Result<()> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    if args.cloud_provider != "azure" {
        bail!(
            "--cloud-provider={:?}: the stand-in emulates the in-tree \"azure\" provider only",
            args.cloud_provider
        );
    }
    let Some(cloud_config) = args
        .cloud_config
        .clone()
        .filter(|p| !p.as_os_str().is_empty())
    else {
        bail!("--cloud-config is required (a path to azure.json)");
    };
    let named = controllers::enabled(&args.controllers)?;
    let (names, ipam) = args.shared.select(named, true)?;
    // kube-controller-manager's range allocator never records podCIDRs others write (P12).
    let ipam = ipam.map(IpamConfig::upstream_range_allocator);
    let identity = default_identity();
    let election = args.election.election(COMPONENT).election(&identity)?;
    let migration = args
        .election
        .migration()
        .resolve(args.election.leader_elect)?;
    let _health = super::health::serve(args.bind_address, args.secure_port).await?;
    let client = kube_client::build(args.kubeconfig.as_deref(), None, None).await?;
    let (mut config, _) =
        cloud_config::read_with_text(&CloudConfigSource::File(cloud_config), &client).await?;
    let profile = args.in_tree_profile;
    config.load_balancer.in_tree = kcm_profile::compat(profile);
    for fact in kcm_profile::active(profile) {
        tracing::info!(
            profile = %profile,
            difference = %fact.fact,
            source = fact.source,
            inferred = fact.inferred,
            "in-tree profile: reproducing a difference from today's CCM"
        );
    }

    let mut registry = Registry::default();
    let running = RunningControllers::register(&mut registry, COMPONENT);
    // cloud-node does not run in-tree: its refresh period is unused.
    let settings = args.shared.controller_settings(
        args.concurrent_service_syncs,
        args.shared.node_monitor_period,
        ipam,
        std::time::Duration::ZERO,
    );
    let inputs = build_inputs(&client, &config, &mut registry, settings).await?;
    let plan = args
        .election
        .host_plan(COMPONENT, &names, election.as_ref(), migration.as_ref());
    // The leases get their own client, as client-go's leader-election clientset.
    let election_client = kube_client::build(args.kubeconfig.as_deref(), None, None).await?;
    let host = Host::start(election_client, plan, inputs, running)?;
    let shutdown = termination()?;
    tracing::info!(
        profile = %profile,
        differences = ?config.load_balancer.in_tree.active(),
        "kube-controller-manager stand-in started"
    );
    host.run_until(shutdown).await?;
    Ok(())
}
