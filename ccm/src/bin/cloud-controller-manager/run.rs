//! Wiring: validate everything, serve the secure port, load the cloud config, build the provider
//! and the kube client, then host the enabled controllers under the leases
//! (`ccm_controllers::host`) until SIGTERM/SIGINT, when they stop and the leases are released;
//! with `--enable-dynamic-reloading` a changed cloud config replaces provider and controllers.

use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::Context;
use azure_ccm::azure_inputs::InputsFactory;
use azure_ccm::delegated_auth::{self, DelegatedAuth};
use azure_ccm::{cloud_config, kube_client};
use ccm_controllers::host::{Host, RunningControllers, termination};
use ccm_controllers::leader::default_identity;
use prometheus_client::registry::Registry;
use tokio::sync::watch;

use crate::endpoints::{self, Endpoints};
use crate::flags::Flags;
use crate::leader_metrics::LeaderMetrics;
use crate::{config_reload, configz, settings};

/// The component name Leader Migration configurations use for this manager.
pub const COMPONENT: &str = "cloud-controller-manager";

/// The delegated authn/z of the secure port and its TLS configuration (asking for client
/// certificates when a client CA is known).
async fn secure_port(
    flags: &Flags,
    settings: &settings::Settings,
    tls: &Arc<rustls::ServerConfig>,
) -> anyhow::Result<(Arc<DelegatedAuth>, Arc<rustls::ServerConfig>)> {
    let auth = DelegatedAuth::from_args(&flags.auth)
        .await
        .context("delegated authentication/authorization of the secure port")?;
    let tls = match (&auth.client_ca, &settings.cert_source) {
        (Some(roots), Some(source)) => source.server_config_with_client_ca(Some(roots.clone()))?,
        _ => tls.clone(),
    };
    Ok((Arc::new(auth), tls))
}

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
    // Before any controller starts: a failed client CA lookup stops the process before it takes
    // a Lease.
    let secure = match &settings.tls {
        Some(tls) => Some(secure_port(&flags, &settings, tls).await?),
        None => None,
    };

    let mut registry = Registry::default();
    let running = RunningControllers::register(&mut registry, COMPONENT);
    let leader_metrics = LeaderMetrics::register(&mut registry);
    registry.register_collector(Box::new(azure_ccm::process_metrics::ProcessCollector));
    let mut controller_settings = flags.shared.controller_settings(
        u16::try_from(flags.concurrent_service_syncs).unwrap_or(1),
        flags.node_status_update_frequency,
        settings.ipam.clone(),
        flags.controller_start_interval,
    );
    controller_settings.concurrent_node_syncs = flags.concurrent_node_syncs;
    let factory = InputsFactory::register(&client, &mut registry, controller_settings);
    let inputs = factory.inputs(&config).await?;
    let plan = flags.election.host_plan(
        COMPONENT,
        &settings.controllers,
        settings.election.as_ref(),
        settings.migration.as_ref(),
    );
    // The leases get their own client and rate limit, as client-go's leader-election clientset.
    let election_client = kube_client::build(
        flags.kubeconfig.as_deref(),
        flags.master.as_deref(),
        settings.rate_limit,
    )
    .await?;
    let host = Host::start(election_client, plan, inputs, running.clone())?;
    let changes = flags
        .enable_dynamic_reloading
        .then(|| config_reload::watch(settings.cloud_config.clone(), client, config_text));
    let gate_rx = host.gate();
    if let Some(main) = &settings.election {
        let migration = settings.migration.as_ref().map(|m| m.leader_name.clone());
        leader_metrics.follow(gate_rx.clone(), main.name.clone(), migration);
    }

    let server = match secure {
        Some((auth, tls)) => {
            let addr = SocketAddr::new(flags.bind_address, flags.secure_port);
            let listener = tokio::net::TcpListener::bind(addr)
                .await
                .with_context(|| format!("--bind-address/--secure-port {addr}: cannot listen"))?;
            let endpoints = Arc::new(Endpoints {
                registry,
                configz: configz::document(&flags),
                gate: gate_rx,
                running,
            });
            let router = delegated_auth::protect(endpoints::router(endpoints), auth);
            let (stop, mut stopped) = watch::channel(false);
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

    let shutdown = termination()?;
    tracing::info!("cloud-controller-manager started");
    let outcome = match changes {
        Some(changes) => {
            let sets = config_reload::replacements(changes, factory, host.roster());
            host.run_reloading(shutdown, sets).await
        }
        None => host.run_until(shutdown).await,
    };
    if let Some((stop, task)) = server {
        let _ = stop.send(true);
        let _ = task.await;
    }
    Ok(outcome?)
}
