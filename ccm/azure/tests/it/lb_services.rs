//! Service load balancers against the real `azure-fakes serve`: create, no-op, update and delete
//! through the provider's `LoadBalancer`, with the fake's ARM documents and journal as the judge.

use std::collections::BTreeMap;

use ccm_azure::provider::AzureProvider;
use ccm_cloud::{LoadBalancer, Provider};
use k8s_openapi::api::core::v1::{
    LoadBalancerStatus, Node, NodeAddress, NodeStatus, Service, ServicePort, ServiceSpec,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use serde_json::Value;

use crate::cluster::Cluster;
use crate::resource_models::Arm;

pub(crate) const CLUSTER: &str = "kubernetes";

/// A `type: LoadBalancer` Service with TCP ports `(port, nodePort)`.
pub(crate) fn service(
    name: &str,
    uid: &str,
    annotations: &[(&str, &str)],
    ports: &[(i32, i32)],
) -> Service {
    Service {
        metadata: ObjectMeta {
            name: Some(name.to_string()),
            namespace: Some("default".to_string()),
            uid: Some(uid.to_string()),
            annotations: Some(
                annotations
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect::<BTreeMap<_, _>>(),
            ),
            ..Default::default()
        },
        spec: Some(ServiceSpec {
            type_: Some("LoadBalancer".to_string()),
            ports: Some(
                ports
                    .iter()
                    .map(|(port, node_port)| ServicePort {
                        name: Some(format!("p{port}")),
                        protocol: Some("TCP".to_string()),
                        port: *port,
                        node_port: Some(*node_port),
                        target_port: Some(IntOrString::Int(*port)),
                        ..Default::default()
                    })
                    .collect(),
            ),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// Node objects for every VM of the fake, with their private IPs as InternalIP addresses and the
/// control-plane label on the master.
pub(crate) async fn nodes(cluster: &Cluster) -> Vec<Node> {
    let mut out = Vec::new();
    for name in cluster.node_names() {
        let described = cluster.described(&name).await;
        let addresses = described["privateIps"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(|ip| NodeAddress {
                type_: "InternalIP".to_string(),
                address: ip.to_string(),
            })
            .collect();
        let mut labels = BTreeMap::new();
        if name.contains("master") {
            labels.insert(
                "node-role.kubernetes.io/control-plane".to_string(),
                String::new(),
            );
        }
        out.push(Node {
            metadata: ObjectMeta {
                name: Some(name.clone()),
                labels: Some(labels),
                ..Default::default()
            },
            status: Some(NodeStatus {
                addresses: Some(addresses),
                ..Default::default()
            }),
            ..Default::default()
        });
    }
    out
}

/// ARM writes (PUT/PATCH/DELETE/POST) in the journal since the last clear.
pub(crate) async fn writes(cluster: &Cluster) -> Vec<(String, String)> {
    cluster
        .arm_calls()
        .await
        .into_iter()
        .filter(|(m, _)| m != "GET")
        .collect()
}

pub(crate) fn ingress_ips(status: &LoadBalancerStatus) -> Vec<String> {
    status
        .ingress
        .iter()
        .flatten()
        .filter_map(|i| i.ip.clone())
        .collect()
}

pub(crate) struct Bed {
    pub(crate) cluster: Cluster,
    pub(crate) provider: AzureProvider,
    pub(crate) nodes: Vec<Node>,
}

impl Bed {
    pub(crate) async fn start(topology: &str, extra: &str) -> Bed {
        let cluster = Cluster::start(topology);
        let config = cluster.config(extra);
        let provider = AzureProvider::with_arm(&config, cluster.fast_arm(&config).await);
        let nodes = nodes(&cluster).await;
        Bed {
            cluster,
            provider,
            nodes,
        }
    }

    pub(crate) fn lb(&self) -> &impl LoadBalancer {
        self.provider
            .load_balancer()
            .expect("load balancers offered")
    }

    pub(crate) async fn ensure(&self, svc: &Service) -> LoadBalancerStatus {
        self.lb()
            .ensure_load_balancer(CLUSTER, svc, &crate::cluster::refs(&self.nodes))
            .await
            .unwrap_or_else(|e| panic!("ensure: {e}"))
    }

    pub(crate) async fn delete(&self, svc: &Service) {
        self.lb()
            .ensure_load_balancer_deleted(CLUSTER, svc)
            .await
            .unwrap_or_else(|e| panic!("delete: {e}"));
    }

    pub(crate) fn rg_path(&self) -> String {
        format!(
            "/subscriptions/{}/resourceGroups/{}/providers/Microsoft.Network",
            self.cluster.fake.subscription, self.cluster.resource_group
        )
    }

    pub(crate) async fn get(&self, relative: &str) -> Value {
        let arm = Arm::new(&self.cluster.fake).await;
        arm.get(&format!(
            "{}/{relative}?api-version=2024-05-01",
            self.rg_path()
        ))
        .await
    }

    /// Names of the children of `kind` on LB `lb`.
    pub(crate) async fn lb_children(&self, lb: &str, kind: &str) -> Vec<String> {
        let doc = self.get(&format!("loadBalancers/{lb}")).await;
        doc["properties"][kind]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c["name"].as_str().map(str::to_string))
            .collect()
    }

    /// Every PIP of the resource group.
    pub(crate) async fn pips(&self) -> Vec<Value> {
        let doc = self.get("publicIPAddresses").await;
        doc["value"].as_array().cloned().unwrap_or_default()
    }

    /// Every NSG rule of the cluster NSG.
    pub(crate) async fn nsg_rules(&self) -> Vec<Value> {
        let doc = self.get("networkSecurityGroups/k8s-nsg").await;
        doc["properties"]["securityRules"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }
}

/// The network names of small.yaml, as its azure.json carries them.
pub(crate) const SMALL: &str = r#", "securityGroupName": "k8s-nsg", "vnetName": "k8s-vnet",
    "vnetResourceGroup": "k8s-small-rg", "subnetName": "k8s-subnet", "routeTableName": "k8s-routetable""#;

const UID_WEB: &str = "1a2b3c4d-5e6f-7081-92a3-b4c5d6e7f809";
const BASE_WEB: &str = "a1a2b3c4d5e6f708192a3b4c5d6e7f80";

#[tokio::test]
async fn a_public_service_is_created_left_alone_and_deleted_without_orphans() {
    let bed = Bed::start("small.yaml", SMALL).await;
    let web = service("web", UID_WEB, &[], &[(80, 30080), (443, 30443)]);
    bed.cluster.clear_journal().await;
    let status = bed.ensure(&web).await;
    let calls = bed.cluster.arm_calls().await;
    println!("public create: {} ARM calls: {calls:#?}", calls.len());
    let ips = ingress_ips(&status);
    assert_eq!(ips.len(), 1, "{status:?}");

    let frontends = bed.lb_children(CLUSTER, "frontendIPConfigurations").await;
    assert!(frontends.contains(&BASE_WEB.to_string()), "{frontends:?}");
    assert!(frontends.contains(&"outbound".to_string()), "{frontends:?}");
    let rules = bed.lb_children(CLUSTER, "loadBalancingRules").await;
    assert!(rules.contains(&format!("{BASE_WEB}-TCP-80")), "{rules:?}");
    assert!(rules.contains(&format!("{BASE_WEB}-TCP-443")), "{rules:?}");
    let probes = bed.lb_children(CLUSTER, "probes").await;
    assert!(probes.contains(&format!("{BASE_WEB}-TCP-80")), "{probes:?}");
    let pip = bed
        .get(&format!("publicIPAddresses/{CLUSTER}-{BASE_WEB}"))
        .await;
    assert_eq!(
        pip["properties"]["ipAddress"].as_str(),
        Some(ips[0].as_str())
    );
    assert_eq!(pip["tags"]["k8s-azure-service"], "default/web");
    assert_eq!(pip["tags"]["k8s-azure-cluster-name"], CLUSTER);
    let nsg = bed.nsg_rules().await;
    assert!(
        nsg.iter()
            .any(|r| r["properties"]["destinationAddressPrefixes"]
                .as_array()
                .into_iter()
                .flatten()
                .chain(std::iter::once(
                    &r["properties"]["destinationAddressPrefix"]
                ))
                .any(|d| d.as_str() == Some(ips[0].as_str()))),
        "{nsg:#?}"
    );

    bed.cluster.clear_journal().await;
    let again = bed.ensure(&web).await;
    assert_eq!(again, status);
    assert_eq!(
        writes(&bed.cluster).await,
        Vec::<(String, String)>::new(),
        "no write when unchanged"
    );

    bed.delete(&web).await;
    let frontends = bed.lb_children(CLUSTER, "frontendIPConfigurations").await;
    assert_eq!(
        frontends,
        vec!["outbound".to_string()],
        "outbound frontend kept"
    );
    assert!(
        bed.lb_children(CLUSTER, "loadBalancingRules")
            .await
            .is_empty()
    );
    assert!(bed.lb_children(CLUSTER, "probes").await.is_empty());
    let pips = bed.pips().await;
    assert!(
        pips.iter()
            .all(|p| p["tags"]["k8s-azure-service"].is_null()),
        "no managed PIP left: {pips:#?}"
    );
    assert!(pips.iter().any(|p| p["name"] == "k8s-outbound-pip"));
    let nsg = bed.nsg_rules().await;
    assert!(
        !serde_json::to_string(&nsg).unwrap().contains(&ips[0]),
        "no NSG destination left: {nsg:#?}"
    );
}
