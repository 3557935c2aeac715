//! Wiring: validate every input (before any write), build the IMDS provider and the kube client,
//! run the cloud-node controller on this node only, and exit 0 on SIGTERM or SIGINT.

use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, bail};
use azure_ccm::imds_provider::ImdsProvider;
use azure_ccm::kube_rate_limit::KubeRateLimit;
use ccm_azure::cloud::trust::SSL_CERT_FILE;
use ccm_azure::imds::{ENDPOINT_ENV, ImdsClient, ImdsEndpoint};
use ccm_cloud::Provider;
use ccm_controllers::node::{BetaLabels, CloudNodeConfig, CloudNodeController, NodeMetrics};
use tokio::signal::unix::{SignalKind, signal};

use crate::flags::Flags;
use crate::{arm_mode, wait_routes};

/// Installs the tracing subscriber for `--log-format` and `-v`.
pub fn init_logging(flags: &Flags) {
    azure_ccm::logging::init(flags.log_format, flags.verbosity);
}

/// The host name, lower-cased (upstream's `--node-name` default).
fn host_name() -> anyhow::Result<String> {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .context("--node-name not given and the host name cannot be read")?;
    let name = name.trim().to_lowercase();
    if name.is_empty() {
        bail!("--node-name not given and the host name is empty");
    }
    Ok(name)
}

/// A kube client from `--kubeconfig` (or the in-cluster config) and `--master`.
async fn kube_client(flags: &Flags) -> anyhow::Result<kube::Client> {
    let burst = i32::try_from(flags.kube_api_burst).unwrap_or(i32::MAX);
    let rate_limit = KubeRateLimit::from_flags(flags.kube_api_qps, burst)?;
    Ok(azure_ccm::kube_client::build(
        flags.kubeconfig.as_deref(),
        flags.master.as_deref(),
        rate_limit,
    )
    .await?)
}

/// The IMDS client for `--imds-endpoint` / `AZURE_IMDS_ENDPOINT`, trusting `SSL_CERT_FILE`.
fn imds_client(flags: &Flags) -> anyhow::Result<ImdsClient> {
    let env = std::env::var(ENDPOINT_ENV).ok();
    let endpoint = ImdsEndpoint::resolve(flags.imds_endpoint.as_deref(), env.as_deref())
        .with_context(|| format!("--imds-endpoint (or {ENDPOINT_ENV})"))?;
    let mut builder = ImdsClient::builder().endpoint(endpoint);
    let file = std::env::var_os(SSL_CERT_FILE).filter(|f| !f.is_empty());
    if let Some(file) = &file {
        let path = Path::new(file);
        let pem = std::fs::read(path)
            .with_context(|| format!("{SSL_CERT_FILE}={}: cannot read", path.display()))?;
        builder = builder.ca_pem(pem);
    }
    builder.build().with_context(|| match &file {
        Some(file) => format!("{SSL_CERT_FILE}={}", Path::new(file).display()),
        None => "building the IMDS client".to_owned(),
    })
}

/// Validates the inputs, then runs until SIGTERM/SIGINT (Ok) or the controller stops (Err).
pub async fn run(flags: Flags) -> anyhow::Result<()> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let tls = crate::health::tls(&flags)?;
    let node_name = match &flags.node_name {
        Some(name) if name.is_empty() => bail!("--node-name is empty"),
        Some(name) => name.clone(),
        None => host_name()?,
    };
    let mut registry = prometheus_client::registry::Registry::default();
    if flags.use_instance_metadata {
        let imds = imds_client(&flags)?;
        let client = kube_client(&flags).await?;
        if flags.cloud_config.is_some() {
            tracing::warn!("--cloud-config is ignored with --use-instance-metadata=true");
        }
        let provider = ImdsProvider::new(imds, node_name.clone());
        serve(&flags, tls, client, node_name, provider, registry).await
    } else {
        let provider = arm_mode::provider(&flags, &mut registry).await?;
        let client = kube_client(&flags).await?;
        serve(&flags, tls, client, node_name, provider, registry).await
    }
}

/// Runs the cloud-node controller on `node_name` over `provider` until a signal.
async fn serve<P: Provider>(
    flags: &Flags,
    tls: Option<Arc<rustls::ServerConfig>>,
    client: kube::Client,
    node_name: String,
    provider: P,
    mut registry: prometheus_client::registry::Registry,
) -> anyhow::Result<()> {
    let metrics = NodeMetrics::register(&mut registry);
    let _server = match tls {
        Some(tls) => Some(crate::health::serve(flags, tls, &node_name, registry).await?),
        None => None,
    };
    let config = CloudNodeConfig {
        node_status_update_frequency: flags.node_status_update_frequency,
        node_name: Some(node_name.clone()),
        beta_labels: if flags.enable_deprecated_beta_topology_labels {
            BetaLabels::Write
        } else {
            BetaLabels::Skip
        },
        ..CloudNodeConfig::default()
    };
    let nodes = kube::Api::all(client.clone());
    let controller = CloudNodeController::new(client, Arc::new(provider), config, metrics)
        .context("starting the cloud-node controller")?;
    let wait_routes = flags.wait_routes;
    let work = async {
        if wait_routes {
            wait_routes::mark_network_unavailable(&nodes, &node_name).await?;
        }
        controller.run().await;
        anyhow::Ok(())
    };

    let mut term = signal(SignalKind::terminate()).context("installing the SIGTERM handler")?;
    let mut int = signal(SignalKind::interrupt()).context("installing the SIGINT handler")?;
    let mode = if flags.use_instance_metadata {
        "instance metadata"
    } else {
        "ARM"
    };
    tracing::info!(node = %node_name, "cloud-node-manager started ({mode} mode)");
    tokio::select! {
        result = work => {
            result?;
            bail!("the cloud-node controller stopped")
        }
        _ = term.recv() => tracing::info!("SIGTERM received, shutting down"),
        _ = int.recv() => tracing::info!("SIGINT received, shutting down"),
    }
    Ok(())
}
