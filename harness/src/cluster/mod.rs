//! Where a parity run happens: [`ClusterProvider`] is what the runner needs of a cluster (a
//! Kubernetes client, Azure's endpoints, the nodes, the azure.json per component, teardown),
//! whatever provides it. [`EmbeddedCluster`] (the default) runs the fake Azure cloud and the
//! embedded API server as supervised child processes on 127.0.0.1; a provider for an existing
//! cluster (kubeconfig) implements the same trait without the fake.
//!
//! Each component that calls ARM gets its own Entra app and azure.json (see [`Component`]), so
//! the fake's journal (`clientId` per request) tells the in-tree host's writes from the CCM's.
//!
//! Sources of the azure.json the embedded provider writes:
//! - field names and meanings, `resourceManagerEndpoint` metadata discovery, `vmType: vmss`
//!   serving availability-set and flexible nodes too: `shared/reference/anchor-ccm.md` §2.2;
//! - `cloud: AzureStackCloud` + `disableAzureStackCloud` pointing the components at the fake: the
//!   project's own e2e tests (`ccm/tests/it/topology.rs`), which run the production binaries so;
//! - [infer] `loadBalancerSku: standard` for every topology: every example topology has a
//!   Standard load balancer; a Basic-SKU scenario must override it;
//! - [infer] the node resource group is the one in the first node's ARM id and the network names
//!   come from the first VNet's first subnet: true of every example topology, not of clusters
//!   with nodes spread over several groups or subnets.

mod admin;
mod apps;
mod azure_json;
mod components;
mod embedded;
mod error;
mod printed;
pub mod up;

use std::path::{Path, PathBuf};

pub use admin::{AdminError, FakeAdmin};
pub use apps::{EntraApp, with_apps};
pub use azure_json::CloudSettings;
pub use components::Component;
pub use embedded::{EmbeddedCluster, EmbeddedOptions, TopologySource};
pub use error::ClusterError;
pub use printed::{PrintedFake, printed_kubeconfig};

/// Azure as the components reach it: ARM, Entra ID and the ids every azure.json carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AzureEndpoints {
    /// ARM base URL (trailing slash), what azure.json's `resourceManagerEndpoint` holds.
    pub arm: String,
    /// Entra ID authority host.
    pub authority: String,
    /// Tenant id.
    pub tenant: String,
    /// Subscription id.
    pub subscription: String,
    /// PEM file of a private CA to trust (`SSL_CERT_FILE` of the components); `None` for public
    /// Azure.
    pub ca_file: Option<PathBuf>,
}

/// One node of the cluster as known when it was provided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterNode {
    /// Kubernetes node name (the VM's computer name).
    pub name: String,
    /// Base URL of this node's IMDS, where the provider serves one per node (the embedded fake);
    /// `None` on a real VM, where IMDS is the link-local address.
    pub imds: Option<String>,
}

/// What a parity run needs of a cluster, whoever provides it.
#[async_trait::async_trait]
pub trait ClusterProvider: Send + Sync {
    /// Provider name as scenarios and reports spell it (`embedded`).
    fn provider(&self) -> &'static str;

    /// Admin kubeconfig of the cluster.
    fn kubeconfig(&self) -> &Path;

    /// A new Kubernetes client from [`Self::kubeconfig`].
    async fn kube_client(&self) -> Result<kube::Client, ClusterError> {
        kube_client(self.kubeconfig()).await
    }

    /// Azure's endpoints and ids.
    fn azure(&self) -> &AzureEndpoints;

    /// The nodes, as known when the cluster was provided.
    fn nodes(&self) -> &[ClusterNode];

    /// The azure.json `component` runs with (its own Entra app), if the provider wrote one.
    fn azure_json(&self, component: Component) -> Option<&Path>;

    /// Directory of this cluster's files and process logs.
    fn artifacts(&self) -> &Path;

    /// The fake Azure admin API (journal, faults, compute churn), for providers that run one.
    fn fake_admin(&self) -> Option<&FakeAdmin> {
        None
    }

    /// Stops everything the provider started; every part is stopped even when one fails.
    async fn teardown(&mut self) -> Result<(), ClusterError>;
}

/// A Kubernetes client from a kubeconfig file (ring as rustls' provider).
pub async fn kube_client(kubeconfig: &Path) -> Result<kube::Client, ClusterError> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let kube_error = |reason: String| ClusterError::Kube {
        kubeconfig: kubeconfig.to_path_buf(),
        reason,
    };
    let file =
        kube::config::Kubeconfig::read_from(kubeconfig).map_err(|e| kube_error(e.to_string()))?;
    let config = kube::Config::from_custom_kubeconfig(file, &Default::default())
        .await
        .map_err(|e| kube_error(e.to_string()))?;
    kube::Client::try_from(config).map_err(|e| kube_error(e.to_string()))
}
