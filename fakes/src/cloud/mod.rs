//! `FakeCloud`: one HTTPS listener serving the whole fake Azure cloud (ARM behind bearer auth,
//! throttling, faults and the journal; Entra ID; per-VM IMDS; `/metadata/endpoints`; the admin API),
//! seeded from a topology file or restored from a snapshot; optionally the CONNECT proxy that
//! serves the public Entra hosts from the fake (`entra_proxy`); and the per-host proxies the admin
//! API starts (`POST /admin/proxies`, [`crate::proxy::hosts`]), each answering
//! `http://169.254.169.254` from one host's IMDS.

mod config;
mod entra_proxy;
mod error;
mod info;
mod inventory;
mod router;

pub use config::{CloudConfig, DEFAULT_JOURNAL_CAPACITY};
pub use error::CloudError;
pub use info::InfoDocument;
pub use inventory::current_nodes;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use fake_arm::ArmState;
use fake_tls::{ClientAuth, Pki};
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::admin::compute::{ComputeAdminState, ComputeDefaults};
use crate::admin::{self, AdminState};
use crate::arm_auth::ArmAuth;
use crate::entra::{Entra, TokenIssuer};
use crate::faults::FaultEngine;
use crate::imds::{self, ImdsLimits, ImdsState};
use crate::journal::Journal;
use crate::metadata_endpoints::CloudKind;
use crate::proxy::{HostProxies, Proxy, Tunnels};
use crate::snapshot::{self, CloudSnapshot};
use crate::throttle::ArmThrottle;
use crate::topology::{self, CloudName, SeededCloud, SeededNode};

/// Tenant and subscription used when no topology is given.
const EMPTY_CLOUD_ID: &str = "00000000-0000-0000-0000-000000000000";

/// A running fake cloud. Drop without [`FakeCloud::shutdown`] leaves the server task running until
/// the runtime ends.
pub struct FakeCloud {
    base_url: String,
    ca_path: PathBuf,
    arm: ArmState,
    entra: Entra,
    faults: Arc<FaultEngine>,
    journal: Arc<Journal>,
    throttle: Arc<ArmThrottle>,
    nodes: Vec<SeededNode>,
    seeded: Option<SeededCloud>,
    subscription_id: String,
    info: Arc<InfoDocument>,
    state_file: Option<PathBuf>,
    stop: watch::Sender<bool>,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
    proxy: Option<Proxy>,
    host_proxies: Arc<HostProxies>,
    tunnels: Tunnels,
}

impl std::fmt::Debug for FakeCloud {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FakeCloud")
            .field("base_url", &self.base_url)
            .finish_non_exhaustive()
    }
}

fn cloud_kind(name: CloudName) -> CloudKind {
    match name {
        CloudName::AzurePublicCloud => CloudKind::Public,
        CloudName::AzureUSGovernmentCloud => CloudKind::UsGovernment,
        CloudName::AzureChinaCloud => CloudKind::China,
    }
}

impl FakeCloud {
    /// Loads the topology (or snapshot), seeds ARM and Entra ID, binds and starts serving.
    pub async fn start(config: CloudConfig) -> Result<Self, CloudError> {
        fake_tls::install_crypto_provider();
        let pki = Pki::load_or_create(&config.tls_dir, "azure-fakes CA")?;
        let ca_path = pki.write_ca(&config.tls_dir)?;
        let hosts: Vec<&str> = config.extra_hosts.iter().map(String::as_str).collect();
        let leaf = pki.issue_server(&hosts)?;
        let tls = fake_tls::server_config(&pki, &leaf, ClientAuth::None)?;
        let issuer = TokenIssuer::load_or_create(&config.tls_dir, config.token_lifetime_secs)?;

        let plan = config.topology.as_deref().map(topology::load).transpose()?;
        let mut arm_config = config.arm.clone();
        if let Some(plan) = &plan {
            arm_config.default_location = plan.location.clone();
        }
        let arm = ArmState::new(arm_config.clone());
        let restore = config
            .state_file
            .as_deref()
            .filter(|p| p.exists())
            .map(snapshot::read)
            .transpose()?;
        let seeded = match &plan {
            // A restored cloud keeps the topology's defaults (group, VNet, subnet) for node churn:
            // seed a scratch store to read them; nodes are always listed from the live store.
            Some(plan) if restore.is_some() => {
                Some(topology::seed(plan, &ArmState::new(arm_config))?)
            }
            Some(plan) => Some(topology::seed(plan, &arm)?),
            None => None,
        };
        let mut registry = seeded
            .as_ref()
            .map(|s| s.registry.clone())
            .unwrap_or_default();
        registry.merge(config.registry.clone());
        let entra = Entra::new(issuer.clone(), registry);
        if let Some(snap) = restore {
            let origin = config
                .state_file
                .as_deref()
                .map(Path::display)
                .map(|d| d.to_string())
                .unwrap_or_default();
            snapshot::restore(snap, &arm, &entra, &origin)?;
        }

        let (tenant_id, subscription_id, location, cloud_name) = match &plan {
            Some(p) => (
                p.tenant_id.clone(),
                p.subscription_id.clone(),
                p.location.clone(),
                p.cloud,
            ),
            None => (
                EMPTY_CLOUD_ID.to_string(),
                EMPTY_CLOUD_ID.to_string(),
                arm.config().default_location.clone(),
                CloudName::AzurePublicCloud,
            ),
        };
        if entra.registry.read().tenant(&tenant_id).is_none() {
            entra.registry.write().tenant_mut(&tenant_id);
        }
        let cloud = cloud_kind(cloud_name);

        let listener =
            TcpListener::bind(config.listen)
                .await
                .map_err(|source| CloudError::Bind {
                    addr: config.listen,
                    source,
                })?;
        let local = listener.local_addr().map_err(|source| CloudError::Bind {
            addr: config.listen,
            source,
        })?;
        let host = if local.ip().is_unspecified() {
            format!("127.0.0.1:{}", local.port())
        } else {
            local.to_string()
        };
        let base_url = format!("https://{host}");

        let mut audiences: Vec<String> =
            cloud.audiences().iter().map(|a| (*a).to_string()).collect();
        audiences.extend([
            format!("{base_url}/"),
            format!("https://localhost:{}/", local.port()),
        ]);
        let faults = Arc::new(FaultEngine::new(config.faults.seed));
        faults.replace(config.faults.clone())?;
        let journal = Arc::new(Journal::new(config.journal_capacity));
        let throttle = Arc::new(ArmThrottle::new(config.throttle));
        let nodes = seeded.as_ref().map(|s| s.nodes.clone()).unwrap_or_default();
        let info = Arc::new(InfoDocument::new(
            &base_url,
            &ca_path,
            &tenant_id,
            &subscription_id,
            &location,
        ));

        let limits = if config.imds_rate_limits {
            ImdsLimits::default()
        } else {
            ImdsLimits::unlimited()
        };
        let imds_state = ImdsState::with_options(
            arm.clone(),
            issuer.clone(),
            &subscription_id,
            &tenant_id,
            cloud_name,
            limits,
        );
        let imds_stack = router::imds_stack(imds::router(imds_state), &faults, &journal);
        let tunnels = entra_proxy::tunnels(&pki, entra.clone(), &faults, &journal)?;
        let host_proxies = Arc::new(HostProxies::new(
            tunnels.clone(),
            imds_stack.clone(),
            journal.clone(),
        ));
        let admin_state = AdminState {
            arm: arm.clone(),
            entra: entra.clone(),
            faults: faults.clone(),
            journal: journal.clone(),
            throttle: throttle.clone(),
            info: info.clone(),
            proxies: host_proxies.clone(),
        };
        // Node churn needs the topology's defaults (group, VNet, subnet); without one it is not served.
        let compute_admin = match &seeded {
            Some(s) => admin::compute::router(ComputeAdminState::new(
                arm.clone(),
                ComputeDefaults::from_seeded(s),
            )),
            None => axum::Router::new(),
        };
        let proxy = match config.proxy_listen {
            Some(listen) => {
                Some(entra_proxy::start_proxy(listen, tunnels.clone(), &journal).await?)
            }
            None => None,
        };
        let router = router::build(router::Parts {
            arm: arm.clone(),
            entra: entra.clone(),
            auth: ArmAuth::new(issuer, audiences),
            throttle: throttle.clone(),
            faults: faults.clone(),
            journal: journal.clone(),
            region: location.clone(),
            cloud,
            imds: imds_stack,
            admin: admin::router(admin_state, compute_admin),
        });

        let (stop, mut stopped) = watch::channel(false);
        let task = tokio::spawn(async move {
            let shutdown = async move {
                let _ = stopped.wait_for(|s| *s).await;
            };
            fake_tls::serve_https(listener, tls, router, shutdown).await
        });
        tracing::info!(url = %base_url, nodes = nodes.len(), "fake Azure cloud serving");
        Ok(Self {
            base_url,
            ca_path,
            arm,
            entra,
            faults,
            journal,
            throttle,
            nodes,
            seeded,
            subscription_id,
            info,
            state_file: config.state_file,
            stop,
            task,
            proxy,
            host_proxies,
            tunnels,
        })
    }

    /// `https://host:port` of the listener (no trailing slash).
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// ARM endpoint (`resourceManagerEndpoint`), with trailing slash like Azure's.
    pub fn arm_url(&self) -> String {
        format!("{}/", self.base_url)
    }

    /// Entra ID authority host (`AZURE_AUTHORITY_HOST`).
    pub fn authority_host(&self) -> String {
        format!("{}/", self.base_url)
    }

    /// v2 token endpoint of `tenant`.
    pub fn token_url(&self, tenant: &str) -> String {
        format!("{}/{tenant}/oauth2/v2.0/token", self.base_url)
    }

    /// Cloud discovery document URL.
    pub fn metadata_url(&self) -> String {
        format!(
            "{}/metadata/endpoints?api-version=2019-05-01",
            self.base_url
        )
    }

    /// IMDS base URL of one VM (clients append `/metadata/instance?...`).
    pub fn imds_url(&self, node_name: &str) -> String {
        format!("{}{}", self.base_url, imds::vm_base_path(node_name))
    }

    /// `http://host:port` of the CONNECT proxy (`HTTPS_PROXY` for MSAL clients), when started.
    pub fn proxy_url(&self) -> Option<String> {
        self.proxy.as_ref().map(Proxy::url)
    }

    /// The per-host proxies (what `/admin/proxies` starts, lists and stops).
    pub fn host_proxies(&self) -> &Arc<HostProxies> {
        &self.host_proxies
    }

    /// Admin API base URL.
    pub fn admin_url(&self) -> String {
        format!("{}/admin/", self.base_url)
    }

    /// CA certificate clients must trust.
    pub fn ca_path(&self) -> &Path {
        &self.ca_path
    }

    /// ARM state (seed more resources, inspect).
    pub fn arm(&self) -> &ArmState {
        &self.arm
    }

    /// Entra ID state (register apps, mint tokens).
    pub fn entra(&self) -> &Entra {
        &self.entra
    }

    /// Fault schedule.
    pub fn faults(&self) -> &Arc<FaultEngine> {
        &self.faults
    }

    /// Request journal.
    pub fn journal(&self) -> &Arc<Journal> {
        &self.journal
    }

    /// ARM request limits.
    pub fn throttle(&self) -> &Arc<ArmThrottle> {
        &self.throttle
    }

    /// Nodes the topology seeded (empty without one); see [`Self::current_nodes`] for ARM's view now.
    pub fn nodes(&self) -> &[SeededNode] {
        &self.nodes
    }

    /// Nodes ARM holds now (after restores, node churn and scaling), sorted by node name.
    pub fn current_nodes(&self) -> Result<Vec<SeededNode>, fake_arm::ArmError> {
        current_nodes(&self.arm, &self.subscription_id)
    }

    /// What seeding produced (subscription, groups, nodes, identities); `None` without a topology.
    pub fn seeded(&self) -> Option<&SeededCloud> {
        self.seeded.as_ref()
    }

    /// URLs, ids and the current nodes' IMDS URLs as JSON (also served at `GET /admin/info`).
    pub fn info(&self) -> Value {
        self.info.render(&self.arm)
    }

    /// Current state as a snapshot.
    pub fn snapshot(&self) -> CloudSnapshot {
        snapshot::capture(&self.arm, &self.entra)
    }

    /// Stops serving (open connections are cut; every proxy and the tunnel endpoint too), then
    /// writes the state file when configured.
    pub async fn shutdown(self) -> Result<(), CloudError> {
        if let Some(proxy) = self.proxy {
            proxy.shutdown().await;
        }
        self.host_proxies.shutdown().await;
        self.tunnels.endpoint.shutdown().await;
        let _ = self.stop.send(true);
        let served = match self.task.await {
            Ok(result) => result.map_err(CloudError::Serve),
            Err(join) => Err(CloudError::Serve(std::io::Error::other(join))),
        };
        if let Some(path) = &self.state_file {
            snapshot::write(path, &snapshot::capture(&self.arm, &self.entra))?;
            tracing::info!(path = %path.display(), "state written");
        }
        served
    }
}
