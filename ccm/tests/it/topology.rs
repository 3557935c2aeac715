//! An example topology served by `azure-fakes serve`, with what the tests need to know about it
//! read back from the fake (its nodes as ARM describes them, its network names from the VNet
//! document) and the azure.json a cluster on it runs with.

use std::path::PathBuf;

use reqwest::Method;
use serde_json::Value;

use crate::processes::{FakeAzure, example, with_app};

/// Client id of the client-secret app added to every topology (mixed.yaml has only a
/// workload-identity app).
const APP_CLIENT_ID: &str = "5f0c2a11-7e3d-4b9a-8c21-0d4e6f8a9b10";
/// Its secret.
pub const APP_SECRET: &str = "e2e-secret-not-for-production";

/// One node as the fake's ARM describes it (`GET /admin/compute/nodes/{node}`).
#[derive(Debug, Clone)]
pub struct Vm {
    /// Kubernetes node name.
    pub node_name: String,
    /// `vmas` (standalone in an availability set), `standalone`, `vmss-uniform` or `vmss-flex`.
    pub kind: String,
    /// ARM id of the VM or scale-set VM.
    pub resource_id: String,
    /// providerID in the upstream format.
    pub provider_id: String,
    /// VM size.
    pub vm_size: String,
    /// Availability zone number, when zonal.
    pub zone: Option<u64>,
    /// Platform fault domain.
    pub fault_domain: u64,
    /// Private addresses of the primary NIC.
    pub private_ips: Vec<String>,
    /// Instance-level public address.
    pub public_ip: Option<String>,
    /// `running`, `stopped` or `deallocated`.
    pub power_state: String,
}

impl Vm {
    fn from_json(described: &Value) -> Vm {
        let text = |key: &str| described[key].as_str().unwrap_or_default().to_owned();
        Vm {
            node_name: text("nodeName"),
            kind: match (
                text("kind").as_str(),
                described["availabilitySet"].is_string(),
            ) {
                ("standalone", true) => "vmas".to_owned(),
                (kind, _) => kind.to_owned(),
            },
            resource_id: text("resourceId"),
            provider_id: text("providerId"),
            vm_size: text("vmSize"),
            zone: described["zone"].as_u64(),
            fault_domain: described["faultDomain"].as_u64().unwrap_or_default(),
            private_ips: described["privateIps"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|ip| ip.as_str().map(str::to_owned))
                .collect(),
            public_ip: described["publicIp"].as_str().map(str::to_owned),
            power_state: text("powerState"),
        }
    }
}

/// The network names azure.json carries, from the fake's VNet document.
#[derive(Debug, Clone)]
pub struct Network {
    /// VNet name.
    pub vnet: String,
    /// VNet resource group.
    pub vnet_resource_group: String,
    /// First subnet of the VNet.
    pub subnet: String,
    /// NSG attached to that subnet.
    pub security_group: String,
    /// Route table attached to that subnet.
    pub route_table: String,
    /// Its resource group.
    pub route_table_resource_group: String,
}

/// A running fake on an example topology and the facts read back from it.
pub struct Cloud {
    /// The fake.
    pub fake: FakeAzure,
    /// Lower-case region.
    pub location: String,
    /// Node resource group (as ARM spells it).
    pub resource_group: String,
    /// Network names.
    pub network: Network,
    /// `vmss` when the topology has scale sets, else `standard`.
    pub vm_type: &'static str,
    dir: tempfile::TempDir,
}

/// The segment after `/{key}/` in an ARM id.
fn segment<'a>(id: &'a str, key: &str) -> &'a str {
    let lower = id.to_ascii_lowercase();
    let marker = format!("/{}/", key.to_ascii_lowercase());
    let start = lower.find(&marker).map(|i| i + marker.len()).expect(key);
    id[start..].split('/').next().expect(key)
}

impl Cloud {
    /// Starts the fake on `fakes/examples/<name>` (plus a client-secret app) with `extra` flags.
    pub async fn start(name: &str, extra: &[&str]) -> Cloud {
        let dir = tempfile::tempdir().expect("tempdir");
        let topology = with_app(
            &example(name),
            dir.path(),
            "ccm-e2e",
            APP_CLIENT_ID,
            APP_SECRET,
        );
        let text = std::fs::read_to_string(&topology).expect("topology");
        let fake = FakeAzure::start(&topology, extra);
        let (_, info) = fake.admin(Method::GET, "/admin/info", None).await;
        let location = info["location"].as_str().expect("location").to_lowercase();
        let (_, state) = fake.admin(Method::GET, "/admin/state", None).await;
        let vnet = state["arm"]["entries"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|e| e["kind"] == "Vnet")
            .map(|e| e["doc"].clone())
            .expect("a VNet in the fake's state");
        let subnet = &vnet["properties"]["subnets"][0];
        let vnet_id = vnet["id"].as_str().expect("vnet id");
        let nsg_id = subnet["properties"]["networkSecurityGroup"]["id"]
            .as_str()
            .expect("subnet NSG");
        let route_table_id = subnet["properties"]["routeTable"]["id"]
            .as_str()
            .expect("subnet route table");
        let network = Network {
            vnet: vnet["name"].as_str().expect("vnet name").to_owned(),
            vnet_resource_group: segment(vnet_id, "resourceGroups").to_owned(),
            subnet: subnet["name"].as_str().expect("subnet name").to_owned(),
            security_group: segment(nsg_id, "networkSecurityGroups").to_owned(),
            route_table: segment(route_table_id, "routeTables").to_owned(),
            route_table_resource_group: segment(route_table_id, "resourceGroups").to_owned(),
        };
        let mut cloud = Cloud {
            fake,
            location,
            resource_group: String::new(),
            network,
            vm_type: if text.contains("\nscaleSets:") {
                "vmss"
            } else {
                "standard"
            },
            dir,
        };
        // From the resource id: the providerID lower-cases the group.
        let first = cloud.vms().await.into_iter().next().expect("a node");
        cloud.resource_group = segment(&first.resource_id, "resourceGroups").to_owned();
        cloud
    }

    /// Every node ARM holds now, as ARM describes it.
    pub async fn vms(&self) -> Vec<Vm> {
        let (_, info) = self.fake.admin(Method::GET, "/admin/info", None).await;
        let mut vms = Vec::new();
        for entry in info["imds"].as_array().into_iter().flatten() {
            let node = entry["node"].as_str().expect("node name");
            vms.push(self.vm(node).await.expect("a listed node is described"));
        }
        vms
    }

    /// One node as ARM describes it, `None` when no VM has that node name.
    pub async fn vm(&self, node: &str) -> Option<Vm> {
        let (status, described) = self
            .fake
            .admin(Method::GET, &format!("/admin/compute/nodes/{node}"), None)
            .await;
        match status {
            200 => Some(Vm::from_json(&described)),
            404 => None,
            _ => panic!("describe {node}: {status} {described}"),
        }
    }

    /// The node's IMDS base URL, as the fake printed it at start.
    pub fn imds_url(&self, node: &str) -> String {
        self.fake
            .imds
            .iter()
            .find(|(name, _)| name == node)
            .map(|(_, url)| url.clone())
            .unwrap_or_else(|| panic!("no IMDS for {node}"))
    }

    /// The Standard load balancer frontends the node's IMDS reports for its private address
    /// (`/metadata/loadbalancer`): what the IMDS path turns into ExternalIPs when the NIC has no
    /// public IP (anchor-ccm.md 3.3).
    pub async fn imds_lb_frontends(&self, vm: &Vm) -> Vec<String> {
        let url = format!(
            "{}/metadata/loadbalancer?api-version=2021-02-01",
            self.imds_url(&vm.node_name)
        );
        let response = self
            .fake
            .http
            .get(url)
            .header("Metadata", "true")
            .send()
            .await
            .expect("IMDS loadbalancer");
        if response.status() == reqwest::StatusCode::NOT_FOUND {
            return Vec::new();
        }
        let document: Value = response.json().await.expect("IMDS JSON");
        document["loadbalancer"]["publicIpAddresses"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|p| {
                vm.private_ips
                    .first()
                    .is_some_and(|ip| p["privateIpAddress"] == **ip)
            })
            .filter_map(|p| p["frontendIpAddress"].as_str().map(str::to_owned))
            .collect()
    }

    /// An ARM request as the test app (client-credentials token from the fake's Entra ID):
    /// (status, JSON body or `Null`).
    pub async fn arm(&self, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
        let fake = &self.fake;
        let token: Value = fake
            .http
            .post(format!("{}/{}/oauth2/v2.0/token", fake.base, fake.tenant))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(format!(
                "grant_type=client_credentials&client_id={APP_CLIENT_ID}&client_secret={APP_SECRET}\
                 &scope=https%3A%2F%2Fmanagement.azure.com%2F.default"
            ))
            .send()
            .await
            .expect("token request")
            .json()
            .await
            .expect("token JSON");
        let token = token["access_token"].as_str().expect("access_token");
        let mut request = fake
            .http
            .request(method, format!("{}{path}", fake.base))
            .bearer_auth(token);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.expect("ARM request");
        let status = response.status().as_u16();
        let operation = response
            .headers()
            .get("azure-asyncoperation")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let text = response.text().await.expect("ARM body");
        let body = serde_json::from_str(&text).unwrap_or(Value::Null);
        // A write that started an operation: poll it to its end, as a client must before the
        // next write to the resource.
        if let Some(operation) = operation {
            for _ in 0..100 {
                let state: Value = fake
                    .http
                    .get(&operation)
                    .bearer_auth(token)
                    .send()
                    .await
                    .expect("operation poll")
                    .json()
                    .await
                    .expect("operation JSON");
                if state["status"] != "InProgress" {
                    assert_eq!(state["status"], "Succeeded", "{path}: {state}");
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
        }
        (status, body)
    }

    /// ARM path of the route table azure.json names.
    pub fn route_table_path(&self) -> String {
        format!(
            "/subscriptions/{}/resourceGroups/{}/providers/Microsoft.Network/routeTables/{}",
            self.fake.subscription,
            self.network.route_table_resource_group,
            self.network.route_table
        )
    }

    /// The azure.json upstream runs against the fake (`AzureStackCloud` with
    /// `disableAzureStackCloud` and the fake's ARM URL) for this topology, plus `extra` keys
    /// (`, "key": value`).
    pub fn azure_json(&self, extra: &str) -> PathBuf {
        let fake = &self.fake;
        let net = &self.network;
        let text = format!(
            r#"{{"cloud": "AzureStackCloud", "disableAzureStackCloud": true,
  "resourceManagerEndpoint": "{base}/", "tenantId": "{tenant}", "subscriptionId": "{sub}",
  "aadClientId": "{APP_CLIENT_ID}", "aadClientSecret": "{APP_SECRET}",
  "resourceGroup": "{rg}", "location": "{location}", "vmType": "{vm_type}",
  "vnetName": "{vnet}", "vnetResourceGroup": "{vnet_rg}", "subnetName": "{subnet}",
  "securityGroupName": "{nsg}", "routeTableName": "{rt}",
  "routeTableResourceGroup": "{rt_rg}", "loadBalancerSku": "standard" {extra}}}"#,
            base = fake.base,
            tenant = fake.tenant,
            sub = fake.subscription,
            rg = self.resource_group,
            location = self.location,
            vm_type = self.vm_type,
            vnet = net.vnet,
            vnet_rg = net.vnet_resource_group,
            subnet = net.subnet,
            nsg = net.security_group,
            rt = net.route_table,
            rt_rg = net.route_table_resource_group,
        );
        let path = self.dir.path().join("azure.json");
        std::fs::write(&path, text).expect("write azure.json");
        path
    }
}

/// The fake's journal entries.
pub async fn journal(fake: &FakeAzure) -> Vec<Value> {
    fake.journal().await["entries"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}
