//! Wiring: validate everything, serve the secure port, load the cloud config, build the provider
//! and the kube client, campaign for the leases, start the enabled controllers, and on
//! SIGTERM/SIGINT stop them, release the leases and exit 0.

use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::{Context, bail};
use azure_ccm::kube_client;
use ccm_azure::metrics::ArmMetrics;
use ccm_controllers::leader::default_identity;
use ccm_controllers::migration::{GateState, LeaseGate, classify};
use ccm_controllers::node::NodeMetrics;
use ccm_controllers::route::RouteMetrics;
use ccm_controllers::service::ServiceMetrics;
use prometheus_client::registry::Registry;
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::watch;

use crate::controller_set::{self, RunningControllers};
use crate::endpoints::{self, Endpoints};
use crate::flags::Flags;
use crate::leader_metrics::LeaderMetrics;
use crate::{cloud_config, config_reload, configz, settings};

/// The component name Leader Migration configurations use for this manager.
const COMPONENT: &str = "cloud-controller-manager";

/// Validates the inputs, then runs until SIGTERM/SIGINT (Ok) or a failure (Err).
pub async fn run(flags: Flags) -> anyhow::Result<()> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let identity = default_identity();
    let settings = settings::validate(&flags, &identity)?;
    let client = kube_client::build(
        flags.kubeconfig.as_deref(),
        flags.master.as_deref(),
        settings.rate_limit,
    )
    .await?;
    let (config, config_text) =
        cloud_config::read_with_text(&settings.cloud_config, &client).await?;

    let mut registry = Registry::default();
    let arm_metrics = ArmMetrics::register(&mut registry);
    let node_metrics = NodeMetrics::register(&mut registry);
    let service_metrics = ServiceMetrics::register(&mut registry);
    let route_metrics = RouteMetrics::register(&mut registry);
    let running = RunningControllers::register(&mut registry);
    let leader_metrics = LeaderMetrics::register(&mut registry);
    registry.register_collector(Box::new(azure_ccm::process_metrics::ProcessCollector));
    let provider = Arc::new(cloud_config::provider(&config, arm_metrics.clone()).await?);

    let namespace = &flags.leader_elect_resource_namespace;
    let classification = classify(
        settings.migration.as_ref(),
        COMPONENT,
        &settings.controllers,
        namespace,
        &flags.leader_elect_resource_name,
    );
    classification.log();
    let rebuild = config_reload::Rebuild {
        client: client.clone(),
        arm_metrics,
        node_metrics: node_metrics.clone(),
        service_metrics: service_metrics.clone(),
        route_metrics: route_metrics.clone(),
    };
    let inputs = controller_set::Inputs {
        client: client.clone(),
        provider,
        flags: &flags,
        ipam: settings.ipam.as_ref(),
        node_metrics,
        service_metrics,
        route_metrics,
    };
    let prepared = controller_set::prepare(&settings.controllers, inputs, &classification)?;

    // Leases: the gate (main, then migration), or an always-open gate without election.
    let (open_tx, open_rx) = watch::channel(GateState {
        main: true,
        ..GateState::default()
    });
    let gate = match &settings.election {
        Some(main) => {
            let migration = settings
                .migration
                .as_ref()
                .map(|m| main.for_lease(m.leader_name.clone()));
            Some(LeaseGate::spawn(client.clone(), main.clone(), migration)?)
        }
        None => None,
    };
    let gate_rx = gate.as_ref().map_or(open_rx, LeaseGate::subscribe);
    if let Some(main) = &settings.election {
        let migration = settings.migration.as_ref().map(|m| m.leader_name.clone());
        leader_metrics.follow(gate_rx.clone(), main.name.clone(), migration);
    }

    let server = match &settings.tls {
        Some(tls) => {
            let addr = SocketAddr::new(flags.bind_address, flags.secure_port);
            let listener = tokio::net::TcpListener::bind(addr)
                .await
                .with_context(|| format!("--bind-address/--secure-port {addr}: cannot listen"))?;
            let endpoints = Arc::new(Endpoints {
                registry,
                configz: configz::document(&flags),
                gate: gate_rx.clone(),
                running: running.clone(),
            });
            let router = endpoints::router(endpoints);
            let (stop, mut stopped) = watch::channel(false);
            let tls = tls.clone();
            let task = tokio::spawn(async move {
                let shutdown = async move {
                    let _ = stopped.wait_for(|s| *s).await;
                };
                azure_ccm::https_server::serve(listener, tls, router, shutdown).await;
            });
            tracing::info!(%addr, "serving /healthz, /readyz, /livez, /metrics and /configz over HTTPS");
            Some((stop, task))
        }
        None => {
            tracing::info!("--secure-port=0: serving nothing");
            None
        }
    };

    match &settings.election {
        Some(e) => {
            tracing::info!(identity = %e.identity, lease = %format!("{}/{}", e.namespace, e.name), "campaigning for the leader Lease")
        }
        None => tracing::info!("--leader-elect=false: running controllers without a Lease"),
    }

    let (stop_tx, stop_rx) = watch::channel(false);
    let changes = flags
        .enable_dynamic_reloading
        .then(|| config_reload::watch(settings.cloud_config.clone(), client.clone(), config_text));
    let work = config_reload::run(
        prepared,
        changes,
        |config| rebuild.prepare(config, &flags, &settings, &classification),
        flags.controller_start_interval,
        gate_rx,
        stop_rx,
        running,
    );
    tokio::pin!(work);
    let lost = async {
        match &gate {
            Some(gate) => gate.lost().await,
            None => std::future::pending().await,
        }
    };
    let mut term = signal(SignalKind::terminate()).context("installing the SIGTERM handler")?;
    let mut int = signal(SignalKind::interrupt()).context("installing the SIGINT handler")?;
    tracing::info!("cloud-controller-manager started");
    let outcome = tokio::select! {
        result = &mut work => Err(result.err().unwrap_or_else(|| anyhow::anyhow!("the controllers stopped"))),
        lease = lost => Err(anyhow::anyhow!("leader Lease {lease} lost")),
        _ = term.recv() => { tracing::info!("SIGTERM received, shutting down"); Ok(()) }
        _ = int.recv() => { tracing::info!("SIGINT received, shutting down"); Ok(()) }
    };
    if outcome.is_ok() {
        // Stop the controllers and wait for them before the leases are released.
        let _ = stop_tx.send(true);
        let _ = work.await;
    }
    // On failure the gate is dropped without release, like a crash (upstream exits).
    if let Some(gate) = gate
        && outcome.is_ok()
    {
        gate.shutdown().await;
        tracing::info!("leader Lease released");
    }
    drop(open_tx);
    if let Some((stop, task)) = server {
        let _ = stop.send(true);
        let _ = task.await;
    }
    match outcome {
        Ok(()) => Ok(()),
        Err(error) => bail!(error),
    }
}
