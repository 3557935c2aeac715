//! A snapshot of a real cluster: the same Kubernetes lists as the embedded run's capture and ARM
//! through its REST API instead of the fake's admin export; no journal (ARM has none to read).

use ccm_azure::config::Config;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{Event, Node, Service};
use kube::Api;
use kube::api::ListParams;

use super::arm_read::{read_arm, resource_groups};
use super::azure::RealAzure;
use super::error::RealClusterError;
use crate::record::now_ms;
use crate::snapshot::{EventState, LeaseState, NodeState, ServiceState, Snapshot};

async fn list<K>(api: Api<K>, kind: &'static str) -> Result<Vec<K>, RealClusterError>
where
    K: kube::Resource + Clone + serde::de::DeserializeOwned + std::fmt::Debug,
{
    api.list(&ListParams::default())
        .await
        .map(|l| l.items)
        .map_err(|e| RealClusterError::Kube {
            kind,
            reason: e.to_string(),
        })
}

/// The resource groups of `config` and of `nodes`.
pub fn groups_of(config: &Config, nodes: &[Node]) -> std::collections::BTreeSet<String> {
    let cluster = &config.cluster;
    let configured = [
        cluster.resource_group.as_str(),
        cluster.security_group_resource_group.as_str(),
        cluster.route_table_resource_group.as_str(),
        config.load_balancer.resource_group.as_str(),
    ];
    let ids = nodes
        .iter()
        .filter_map(|n| n.spec.as_ref()?.provider_id.as_deref());
    resource_groups(configured, ids)
}

/// Captures Nodes, LoadBalancer Services, Events, kube-system Leases and the ARM resources of the
/// cluster's resource groups under `label`.
pub async fn capture_real(
    client: &kube::Client,
    azure: &RealAzure,
    label: &str,
) -> Result<Snapshot, RealClusterError> {
    let taken_ms = now_ms();
    let nodes = list(Api::<Node>::all(client.clone()), "nodes").await?;
    let services = list(Api::<Service>::all(client.clone()), "services").await?;
    let events = list(Api::<Event>::all(client.clone()), "events").await?;
    let leases = list(
        Api::<Lease>::namespaced(client.clone(), ccm_names::leases::NAMESPACE),
        "leases",
    )
    .await?;
    let arm = read_arm(azure, &groups_of(&azure.config, &nodes)).await?;
    let mut snapshot = Snapshot {
        label: label.to_owned(),
        taken_ms,
        nodes: nodes.iter().map(NodeState::from_api).collect(),
        services: services.iter().filter_map(ServiceState::from_api).collect(),
        events: events.iter().map(EventState::from_api).collect(),
        leases: leases.iter().map(LeaseState::from_api).collect(),
        arm,
        journal: Vec::new(),
    };
    snapshot.sort();
    Ok(snapshot)
}
