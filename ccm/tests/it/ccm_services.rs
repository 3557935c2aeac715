//! The production `cloud-controller-manager` serving `type: LoadBalancer` Services end to end:
//! the Service gets its finalizer and the public IP Azure allocated, the fake's ARM holds the
//! PIP, frontend and NSG rule, and deleting the Service removes them before the object goes.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{
    Node, NodeAddress, NodeSpec, NodeStatus, Service, ServicePort, ServiceSpec,
};
use kube::Api;
use kube::api::{DeleteParams, ObjectMeta, PostParams};
use reqwest::Method;

use crate::cloud_controller_manager::{Manager, wait_for};
use crate::processes::{ApiServer, FakeAzure, example};

const FINALIZER: &str = "service.kubernetes.io/load-balancer-cleanup";

/// azure.json for small.yaml with its network names.
pub(crate) fn azure_json(fake: &FakeAzure, dir: &std::path::Path) -> std::path::PathBuf {
    let path = dir.join("azure.json");
    let text = format!(
        r#"{{"cloud": "AzureStackCloud", "disableAzureStackCloud": true,
             "resourceManagerEndpoint": "{}/", "tenantId": "{}", "subscriptionId": "{}",
             "aadClientId": "6e1b3c52-6a1f-4d0e-9a3b-3c2f7d9e0a11",
             "aadClientSecret": "fake-secret-not-for-production",
             "resourceGroup": "k8s-small-rg", "location": "eastus", "vmType": "standard",
             "securityGroupName": "k8s-nsg", "vnetName": "k8s-vnet", "subnetName": "k8s-subnet"}}"#,
        fake.base, fake.tenant, fake.subscription
    );
    std::fs::write(&path, text).expect("write azure.json");
    path
}

/// The agent VMs of small.yaml as initialised Nodes (providerID and InternalIP).
pub(crate) async fn agent_nodes(fake: &FakeAzure) -> Vec<Node> {
    let mut nodes = Vec::new();
    for (name, _) in fake.imds.iter().filter(|(n, _)| n.contains("agentpool")) {
        let (status, described) = fake
            .admin(Method::GET, &format!("/admin/compute/nodes/{name}"), None)
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

pub(crate) fn web() -> Service {
    Service {
        metadata: ObjectMeta {
            name: Some("web".to_string()),
            namespace: Some("default".to_string()),
            ..Default::default()
        },
        spec: Some(ServiceSpec {
            type_: Some("LoadBalancer".to_string()),
            selector: Some(BTreeMap::from([("app".to_string(), "web".to_string())])),
            ports: Some(vec![ServicePort {
                name: Some("http".to_string()),
                protocol: Some("TCP".to_string()),
                port: 80,
                node_port: Some(30080),
                ..Default::default()
            }]),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// ARM write paths (PUT / DELETE) in the fake's journal.
async fn arm_writes(fake: &FakeAzure) -> Vec<String> {
    fake.journal().await["entries"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| e["surface"] == "arm" && e["method"] != "GET")
        .map(|e| {
            format!(
                "{} {}",
                e["method"].as_str().unwrap_or_default(),
                e["path"].as_str().unwrap_or_default()
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_load_balancer_service_gets_its_azure_ip_and_leaves_nothing_behind() {
    // Operations finish at their first poll: the binary polls as production does (Retry-After,
    // else 1 s doubling to 30 s), and the order of calls, not their pace, is under test.
    let fake = FakeAzure::start(&example("small.yaml"), &["--lro-polls", "0"]);
    let api = ApiServer::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let config = azure_json(&fake, dir.path());
    let client = api.client().await;
    let nodes: Api<Node> = Api::all(client.clone());
    for node in agent_nodes(&fake).await {
        nodes
            .create(&PostParams::default(), &node)
            .await
            .expect("node");
    }
    let manager = Manager::start(
        &fake,
        &api,
        &config,
        &["--leader-elect=false", "--controllers=service"],
    );
    let services: Api<Service> = Api::namespaced(client, "default");
    services
        .create(&PostParams::default(), &web())
        .await
        .expect("service");
    let ready = wait_for("the Service gets an ingress IP", &[&manager], || async {
        services.get("web").await.ok().filter(|s| {
            s.status
                .as_ref()
                .and_then(|st| st.load_balancer.as_ref())
                .and_then(|lb| lb.ingress.as_ref())
                .is_some_and(|i| !i.is_empty())
        })
    })
    .await;
    assert!(
        ready
            .metadata
            .finalizers
            .iter()
            .flatten()
            .any(|f| f == FINALIZER),
        "{ready:?}"
    );
    let ingress = ready
        .status
        .unwrap()
        .load_balancer
        .unwrap()
        .ingress
        .unwrap();
    assert!(ingress[0].ip.is_some() && ingress[0].hostname.is_none());
    let writes = arm_writes(&fake).await;
    for kind in [
        "publicIPAddresses/kubernetes-a",
        "loadBalancers/kubernetes",
        "networkSecurityGroups/k8s-nsg",
    ] {
        assert!(
            writes
                .iter()
                .any(|w| w.starts_with("PUT") && w.contains(kind)),
            "{kind}: {writes:#?}"
        );
    }

    services
        .delete("web", &DeleteParams::default())
        .await
        .expect("delete");
    wait_for("the Service is gone", &[&manager], || async {
        services
            .get_opt("web")
            .await
            .ok()
            .and_then(|s| s.is_none().then_some(()))
    })
    .await;
    let writes = arm_writes(&fake).await;
    assert!(
        writes
            .iter()
            .any(|w| w.starts_with("DELETE") && w.contains("publicIPAddresses/kubernetes-a")),
        "{writes:#?}"
    );
    let exit = manager.terminate();
    assert!(exit.success(), "{exit:?}\n{}", manager.logs());
}
