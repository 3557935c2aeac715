//! The `small.yaml` topology as a CCM sees it: its azure.json and its agent VMs as Nodes.

use std::path::{Path, PathBuf};

use k8s_openapi::api::core::v1::{Node, NodeAddress, NodeSpec, NodeStatus};
use kube::Api;
use kube::api::{ObjectMeta, PostParams};

use crate::{ApiServer, FakeAzure, example};

/// small.yaml served with operations that finish at their first poll (the order of calls, not
/// their pace, is under test) and a journal that keeps a whole test, and an API server already
/// holding the topology's agent Nodes, initialised.
pub async fn small_cluster() -> (FakeAzure, ApiServer) {
    let fake = FakeAzure::start(
        &example("small.yaml"),
        &["--lro-polls", "0", "--journal-capacity", "100000"],
    );
    let api = ApiServer::start();
    let nodes: Api<Node> = Api::all(api.client().await);
    for node in agent_nodes(&fake).await {
        nodes
            .create(&PostParams::default(), &node)
            .await
            .expect("create node");
    }
    (fake, api)
}

/// Writes `azure.json` for small.yaml's client-secret app and network names into `dir` (file
/// `azure-<user_agent>.json`, or `azure.json`), with `userAgent` when given so the fake's journal
/// names the writer.
pub fn small_azure_json(fake: &FakeAzure, dir: &Path, user_agent: Option<&str>) -> PathBuf {
    let mut json = serde_json::json!({
        "cloud": "AzureStackCloud",
        "disableAzureStackCloud": true,
        "resourceManagerEndpoint": format!("{}/", fake.base),
        "tenantId": fake.tenant,
        "subscriptionId": fake.subscription,
        "aadClientId": "6e1b3c52-6a1f-4d0e-9a3b-3c2f7d9e0a11",
        "aadClientSecret": "fake-secret-not-for-production",
        "resourceGroup": "k8s-small-rg",
        "location": "eastus",
        "vmType": "standard",
        "securityGroupName": "k8s-nsg",
        "vnetName": "k8s-vnet",
        "subnetName": "k8s-subnet",
    });
    let name = match user_agent {
        Some(agent) => {
            json["userAgent"] = agent.into();
            format!("azure-{agent}.json")
        }
        None => "azure.json".to_owned(),
    };
    let path = dir.join(name);
    std::fs::write(&path, json.to_string()).expect("write azure.json");
    path
}

/// The agent VMs of the topology as initialised Nodes (providerID and InternalIP), as the
/// fake's admin API describes them.
pub async fn agent_nodes(fake: &FakeAzure) -> Vec<Node> {
    let mut nodes = Vec::new();
    for (name, _) in fake.imds.iter().filter(|(n, _)| n.contains("agentpool")) {
        let (status, described) = fake
            .admin(
                reqwest::Method::GET,
                &format!("/admin/compute/nodes/{name}"),
                None,
            )
            .await;
        assert_eq!(status, 200, "{described}");
        let ip = described["privateIps"][0].as_str().expect("ip").to_string();
        nodes.push(Node {
            metadata: ObjectMeta {
                name: Some(name.clone()),
                ..Default::default()
            },
            spec: Some(NodeSpec {
                provider_id: described["providerId"].as_str().map(str::to_string),
                ..Default::default()
            }),
            status: Some(NodeStatus {
                addresses: Some(vec![NodeAddress {
                    type_: "InternalIP".to_string(),
                    address: ip,
                }]),
                ..Default::default()
            }),
        });
    }
    nodes
}
