//! The `kubeconfig` cluster provider: an existing cluster reached through a kubeconfig, with Azure
//! reached through its azure.json (parsed, validated and authenticated by the CCM's own code, so
//! every credential kind the CCM supports works here). Read-only: nothing here creates, updates or
//! deletes a Kubernetes object or an ARM resource, and every ARM request waits on one
//! [`ReadBudget`] (default [`DEFAULT_READS_PER_SECOND`]; see [`budget`] for why).
//!
//! Secrets: the azure.json's secrets live only in the CCM's `Config` (whose `Debug`/`Display`
//! redact them) and in the credential; snapshots hold Kubernetes objects and ARM resources, never
//! the config.

pub mod arm_read;
pub mod azure;
pub mod budget;
mod capture;
mod error;

use std::path::{Path, PathBuf};

pub use arm_read::{read_arm, resource_groups};
pub use azure::{RealAzure, config_from_text, load_config};
pub use budget::{DEFAULT_READS_PER_SECOND, ReadBudget};
pub use capture::{capture_real, groups_of};
pub use error::RealClusterError;

use crate::cluster::{AzureEndpoints, ClusterError, ClusterNode, ClusterProvider, Component};

/// Flags every command on a real cluster takes.
#[derive(Debug, Clone, clap::Args)]
pub struct RealClusterArgs {
    /// Kubeconfig of the cluster (read access to Nodes, Services, Events, Leases, workloads, PVs).
    #[arg(long)]
    pub kubeconfig: PathBuf,
    /// The azure.json with the credentials to read ARM with (any kind the CCM supports; the
    /// process's `AZURE_*` overrides and `SSL_CERT_FILE` apply as for the CCM).
    #[arg(long = "cloud-config")]
    pub cloud_config: PathBuf,
    /// Most ARM requests per second (the subscription's read budget is shared with the cluster's
    /// own controllers).
    #[arg(
        long = "arm-reads-per-second",
        default_value_t = DEFAULT_READS_PER_SECOND,
        value_parser = reads_per_second
    )]
    pub arm_reads_per_second: f64,
}

/// `--arm-reads-per-second`: a finite number above 0 (0 or less would mean no budget at all).
fn reads_per_second(value: &str) -> Result<f64, String> {
    match value.parse::<f64>() {
        Ok(rate) if rate.is_finite() && rate > 0.0 => Ok(rate),
        _ => Err(format!(
            "accepted values are numbers above 0, e.g. {DEFAULT_READS_PER_SECOND} (the default) or 0.5"
        )),
    }
}

/// An existing cluster, read-only.
#[derive(Debug)]
pub struct KubeconfigCluster {
    kubeconfig: PathBuf,
    cloud_config: PathBuf,
    azure: AzureEndpoints,
    nodes: Vec<ClusterNode>,
    artifacts: PathBuf,
}

impl KubeconfigCluster {
    /// The cluster of `kubeconfig`, with Azure as `real` reaches it; `artifacts` is where the
    /// command writes its files.
    pub async fn open(
        kubeconfig: &Path,
        real: &RealAzure,
        artifacts: &Path,
    ) -> Result<KubeconfigCluster, RealClusterError> {
        let client = crate::cluster::kube_client(kubeconfig).await?;
        let nodes: kube::Api<k8s_openapi::api::core::v1::Node> = kube::Api::all(client);
        let nodes = nodes
            .list(&Default::default())
            .await
            .map_err(|e| RealClusterError::Kube {
                kind: "nodes",
                reason: e.to_string(),
            })?;
        let mut nodes: Vec<ClusterNode> = nodes
            .items
            .iter()
            .map(|n| ClusterNode {
                name: n.metadata.name.clone().unwrap_or_default(),
                imds: None,
            })
            .collect();
        nodes.sort_by(|a, b| a.name.cmp(&b.name));
        let identity = &real.config.identity;
        Ok(KubeconfigCluster {
            kubeconfig: kubeconfig.to_path_buf(),
            cloud_config: real.source.clone(),
            azure: AzureEndpoints {
                arm: real.endpoint.clone(),
                authority: String::new(),
                tenant: identity.tenant_id.clone(),
                subscription: identity.subscription_id.clone(),
                ca_file: std::env::var_os("SSL_CERT_FILE").map(PathBuf::from),
            },
            nodes,
            artifacts: artifacts.to_path_buf(),
        })
    }
}

#[async_trait::async_trait]
impl ClusterProvider for KubeconfigCluster {
    fn provider(&self) -> &'static str {
        "kubeconfig"
    }

    fn kubeconfig(&self) -> &Path {
        &self.kubeconfig
    }

    fn azure(&self) -> &AzureEndpoints {
        &self.azure
    }

    fn nodes(&self) -> &[ClusterNode] {
        &self.nodes
    }

    /// The one azure.json given: the operator's cluster has one set of credentials for us.
    fn azure_json(&self, _component: Component) -> Option<&Path> {
        Some(&self.cloud_config)
    }

    fn artifacts(&self) -> &Path {
        &self.artifacts
    }

    /// Nothing to stop: this provider starts nothing.
    async fn teardown(&mut self) -> Result<(), ClusterError> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::reads_per_second;

    #[test]
    fn the_read_budget_flag_takes_only_positive_finite_rates() {
        assert_eq!(reads_per_second("0.5"), Ok(0.5));
        for bad in ["0", "-1", "NaN", "inf", "fast"] {
            let error = reads_per_second(bad).expect_err(bad);
            assert!(error.contains("numbers above 0"), "{bad}: {error}");
        }
    }
}
