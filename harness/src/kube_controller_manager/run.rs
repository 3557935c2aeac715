//! Wiring: validate the flags, build the client and the Azure provider, host the enabled cloud
//! controllers under the leases.

use std::sync::Arc;

use anyhow::{Context, bail};
use azure_ccm::azure_feeds::AzureFeeds;
use azure_ccm::cloud_config::{self, CloudConfigSource};
use azure_ccm::kube_client;
use ccm_azure::metrics::ArmMetrics;
use ccm_controllers::host::{
    BuildInputs, ControllerMetrics, ControllerSettings, Host, HostPlan, RunningControllers,
    termination,
};
use ccm_controllers::leader::default_identity;
use ccm_controllers::node_ipam::IpamConfig;
use ccm_controllers::node_ipam::config::parse_cidr_list;
use ccm_names::controllers::{NODE_IPAM, NODE_ROUTE};
use prometheus_client::registry::Registry;

use super::controllers;
use super::flags::KcmArgs;

/// The component name Leader Migration configurations use for the in-tree manager.
pub const COMPONENT: &str = "kube-controller-manager";

/// The cloud controllers to run and node-ipam's ranges, refusing incoherent flags.
fn plan(args: &KcmArgs) -> anyhow::Result<(Vec<&'static str>, Option<IpamConfig>)> {
    let named = controllers::enabled(&args.controllers)?;
    let clusters = parse_cidr_list("--cluster-cidr", &args.cluster_cidr)?;
    let routes =
        named.contains(&NODE_ROUTE) && args.configure_cloud_routes && args.allocate_node_cidrs;
    if routes && clusters.is_empty() {
        bail!("--cluster-cidr is empty but the route controller is enabled");
    }
    let ipam = (named.contains(&NODE_IPAM) && args.allocate_node_cidrs)
        .then(|| {
            let mask = |m: u8| (m != 0).then_some(m);
            IpamConfig::from_flags(
                &args.cluster_cidr,
                mask(args.node_cidr_mask_size_ipv4),
                mask(args.node_cidr_mask_size_ipv6),
                &args.service_cluster_ip_range,
            )
            .context("--allocate-node-cidrs=true")
        })
        .transpose()?;
    let controllers = named
        .into_iter()
        .filter(|name| match *name {
            NODE_ROUTE => routes,
            NODE_IPAM => ipam.is_some(),
            _ => true,
        })
        .collect();
    Ok((controllers, ipam))
}

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
    let (names, ipam) = plan(args)?;
    let identity = default_identity();
    let election = args.election.election(COMPONENT).election(&identity)?;
    let migration = args
        .election
        .migration()
        .resolve(args.election.leader_elect)?;
    if args.secure_port != 0 {
        tracing::warn!(
            port = args.secure_port,
            "--secure-port: the stand-in serves nothing"
        );
    }
    let client = kube_client::build(args.kubeconfig.as_deref(), None, None).await?;
    let config = cloud_config::read(&CloudConfigSource::File(cloud_config), &client).await?;

    let mut registry = Registry::default();
    let arm_metrics = ArmMetrics::register(&mut registry);
    let metrics = ControllerMetrics::register(&mut registry);
    let running = RunningControllers::register(&mut registry, COMPONENT);
    let provider = Arc::new(cloud_config::provider(&config, arm_metrics).await?);
    let inputs = BuildInputs {
        client: client.clone(),
        feeds: Arc::new(AzureFeeds::new(&provider)),
        provider,
        settings: ControllerSettings {
            cluster_name: args.cluster_name.clone(),
            cluster_cidr: args.cluster_cidr.clone(),
            concurrent_service_syncs: args.concurrent_service_syncs.max(1),
            node_monitor_period: args.node_monitor_period,
            // cloud-node does not run in-tree; the value is unused.
            node_status_update_frequency: args.node_monitor_period,
            route_reconciliation_period: args.route_reconciliation_period,
            ipam,
            start_interval: std::time::Duration::ZERO,
        },
        metrics,
    };
    let plan = HostPlan {
        component: COMPONENT,
        controllers: &names,
        election: election.as_ref(),
        migration: migration.as_ref(),
        lease_namespace: &args.election.leader_elect_resource_namespace,
        lease_name: args.election.resource_name(COMPONENT),
    };
    let host = Host::start(client, plan, inputs, running)?;
    let shutdown = termination()?;
    tracing::info!("kube-controller-manager stand-in started");
    host.run_until(shutdown).await?;
    Ok(())
}
