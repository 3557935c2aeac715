//! The IMDS router served over real HTTPS on 127.0.0.1 in front of a seeded fake ARM: transport rules,
//! views derived from ARM at request time, rate limits and managed-identity tokens.

use super::topology::seed_example;
use azure_fakes::entra::TokenIssuer;
use azure_fakes::imds::{self, ImdsLimits, ImdsState};
use azure_fakes::topology::{CloudName, SeededCloud};
use fake_arm::{ArmState, PowerState};
use fake_tls::{ClientAuth, HttpsServer, Pki};
use serde_json::Value;

struct Fixture {
    server: HttpsServer,
    client: reqwest::Client,
    arm: ArmState,
    cloud: SeededCloud,
    issuer: TokenIssuer,
}

async fn start(example: &str, limits: ImdsLimits) -> Fixture {
    let (arm, cloud) = seed_example(example);
    let issuer = TokenIssuer::from_key(&[7u8; 32], 3600);
    let state = ImdsState::with_options(
        arm.clone(),
        issuer.clone(),
        &cloud.subscription_id,
        &cloud.tenant_id,
        CloudName::AzurePublicCloud,
        limits,
    );
    let pki = Pki::generate("imds-test-ca").unwrap();
    let leaf = pki.issue_server(&["localhost", "127.0.0.1"]).unwrap();
    let tls = fake_tls::server_config(&pki, &leaf, ClientAuth::None).unwrap();
    let server = HttpsServer::start("127.0.0.1:0".parse().unwrap(), tls, imds::router(state))
        .await
        .unwrap();
    fake_tls::install_crypto_provider();
    let ca = reqwest::Certificate::from_pem(pki.ca_pem().as_bytes()).unwrap();
    let client = reqwest::Client::builder()
        .tls_certs_only([ca])
        .no_proxy()
        .build()
        .unwrap();
    Fixture {
        server,
        client,
        arm,
        cloud,
        issuer,
    }
}

impl Fixture {
    async fn get(&self, node: &str, path_and_query: &str, metadata: bool) -> (u16, Value) {
        let url = format!(
            "{}{}/metadata/{path_and_query}",
            self.server.base_url(),
            imds::vm_base_path(node)
        );
        let mut req = self.client.get(url);
        if metadata {
            req = req.header("Metadata", "true");
        }
        let resp = req.send().await.unwrap();
        let status = resp.status().as_u16();
        let json = resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("application/json"));
        let text = resp.text().await.unwrap();
        (
            status,
            if json {
                serde_json::from_str(&text).unwrap()
            } else {
                Value::String(text)
            },
        )
    }
}

#[tokio::test]
async fn transport_rules_match_real_imds() {
    let f = start("small.yaml", ImdsLimits::unlimited()).await;
    let (status, body) = f
        .get("k8s-master-0", "instance?api-version=2021-10-01", false)
        .await;
    assert_eq!(status, 400);
    assert_eq!(
        body["error"],
        "Bad request. Required metadata header not specified"
    );
    let url = format!(
        "{}/imds/k8s-master-0/metadata/instance?api-version=2021-10-01",
        f.server.base_url()
    );
    let proxied = f
        .client
        .get(url)
        .header("Metadata", "true")
        .header("X-Forwarded-For", "10.0.0.9")
        .send()
        .await
        .unwrap();
    assert_eq!(proxied.status().as_u16(), 400);
    let (status, body) = f.get("k8s-master-0", "instance", true).await;
    assert_eq!(status, 400);
    assert_eq!(
        body["newest-versions"],
        serde_json::json!(["2023-07-01", "2021-12-13", "2021-11-15"])
    );
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("api-version was not specified")
    );
    let (status, body) = f
        .get("k8s-master-0", "instance?api-version=2099-01-01", true)
        .await;
    assert_eq!(status, 400);
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("api-version is invalid")
    );
    let (status, body) = f
        .get("k8s-master-0", "loadbalancer?api-version=2019-08-01", true)
        .await;
    assert_eq!(
        status, 400,
        "loadbalancer needs 2020-10-01 or newer: {body}"
    );
    let (status, body) = f.get("k8s-master-0", "versions", true).await;
    assert_eq!(status, 200);
    assert!(
        body["apiVersions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|v| v == "2021-10-01")
    );
    f.server.shutdown().await.unwrap();
}

#[tokio::test]
async fn instance_view_is_derived_from_arm() {
    let f = start("zonal-vmss.yaml", ImdsLimits::unlimited()).await;
    let node = &f.cloud.nodes[4];
    let (status, body) = f
        .get(
            &node.node_name,
            "instance?api-version=2021-10-01&format=json",
            true,
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let c = &body["compute"];
    assert_eq!(c["name"], "aks-nodepool1-12345678-vmss_4");
    assert_eq!(c["osProfile"]["computerName"], node.computer_name.as_str());
    assert_eq!(c["zone"], "2");
    assert_eq!(c["location"], "westeurope");
    assert_eq!(c["vmSize"], "Standard_D4ds_v5");
    assert_eq!(c["vmScaleSetName"], "aks-nodepool1-12345678-vmss");
    assert_eq!(c["resourceId"], node.resource_id.as_str());
    assert_eq!(c["resourceGroupName"], "MC_zonal_cluster_westeurope");
    assert_eq!(c["subscriptionId"], f.cloud.subscription_id.as_str());
    assert_eq!(
        c["platformFaultDomain"],
        node.fault_domain.to_string().as_str()
    );
    assert_eq!(c["azEnvironment"], "AzurePublicCloud");
    assert_eq!(c["tagsList"][0]["name"], "aks-managed-poolName");
    let vm_id = f.arm.get(&node.resource_id).unwrap()["properties"]["vmId"].clone();
    assert_eq!(c["vmId"], vm_id);
    let ip = &body["network"]["interface"][0]["ipv4"];
    assert_eq!(
        ip["ipAddress"][0]["privateIpAddress"],
        node.private_ips[0].to_string().as_str()
    );
    assert_eq!(
        ip["subnet"][0],
        serde_json::json!({"address": "10.224.0.0", "prefix": "16"})
    );
    // Leaves need format=text; sub-trees are served as JSON.
    let (status, _) = f
        .get(
            &node.node_name,
            "instance/compute/zone?api-version=2021-10-01",
            true,
        )
        .await;
    assert_eq!(status, 400);
    let (status, zone) = f
        .get(
            &node.node_name,
            "instance/compute/zone?api-version=2021-10-01&format=text",
            true,
        )
        .await;
    assert_eq!((status, zone), (200, Value::String("2".into())));
    let (status, net) = f
        .get(
            &node.node_name,
            "instance/network?api-version=2021-10-01",
            true,
        )
        .await;
    assert_eq!(status, 200);
    assert!(net["interface"].is_array());
    // A change in ARM shows at once: tags and size.
    f.arm
        .modify(&node.resource_id, |d| d["tags"]["team"] = "blue".into())
        .unwrap();
    let (_, body) = f
        .get(
            &node.node_name,
            "instance/compute?api-version=2021-10-01",
            true,
        )
        .await;
    assert!(
        body["tags"].as_str().unwrap().contains("team:blue"),
        "{}",
        body["tags"]
    );
    f.server.shutdown().await.unwrap();
}

#[tokio::test]
async fn deallocated_and_deleted_vms() {
    let f = start("mixed.yaml", ImdsLimits::unlimited()).await;
    let (status, body) = f
        .get("stopped-agent", "instance?api-version=2021-10-01", true)
        .await;
    assert_eq!(status, 503, "{body}");
    assert!(body["error"].as_str().unwrap().contains("deallocated"));
    f.arm
        .set_power_state(
            &f.cloud.node("stopped-agent").unwrap().resource_id,
            PowerState::Running,
        )
        .unwrap();
    let (status, body) = f
        .get(
            "stopped-agent",
            "instance/compute?api-version=2021-10-01",
            true,
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(body["zone"], "2");
    let flex = f
        .cloud
        .nodes
        .iter()
        .find(|n| n.node_name == "flexpool000001")
        .unwrap();
    let (status, body) = f
        .get(
            &flex.node_name,
            "instance/compute?api-version=2021-10-01",
            true,
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(body["name"], flex.vm_name.as_str());
    assert_eq!(
        body["virtualMachineScaleSet"]["id"]
            .as_str()
            .unwrap()
            .rsplit('/')
            .next(),
        Some("flexpool")
    );
    assert_eq!(body["vmScaleSetName"], "");
    f.arm.delete(&flex.resource_id).unwrap();
    let (status, body) = f
        .get(&flex.node_name, "instance?api-version=2021-10-01", true)
        .await;
    assert_eq!(
        (status, body),
        (404, serde_json::json!({"error": "Not found"}))
    );
    f.server.shutdown().await.unwrap();
}

#[tokio::test]
async fn loadbalancer_view_lists_outbound_frontends() {
    let f = start("zonal-vmss.yaml", ImdsLimits::unlimited()).await;
    let node = &f.cloud.nodes[0];
    let (status, body) = f
        .get(&node.node_name, "loadbalancer?api-version=2020-10-01", true)
        .await;
    assert_eq!(status, 200, "{body}");
    let private = node.private_ips[0].to_string();
    assert_eq!(
        body["loadbalancer"]["publicIpAddresses"],
        serde_json::json!([{ "frontendIpAddress": "20.50.0.10", "privateIpAddress": private }])
    );
    assert_eq!(
        body["loadbalancer"]["outboundRules"][0]["frontendIpAddress"],
        "20.50.0.10"
    );
    f.server.shutdown().await.unwrap();
    let f = start("mixed.yaml", ImdsLimits::unlimited()).await;
    let (status, body) = f
        .get("stopped-agent", "loadbalancer?api-version=2020-10-01", true)
        .await;
    assert_eq!(status, 503, "{body}");
    f.arm
        .set_power_state(
            &f.cloud.node("stopped-agent").unwrap().resource_id,
            PowerState::Running,
        )
        .unwrap();
    let (status, body) = f
        .get("stopped-agent", "loadbalancer?api-version=2020-10-01", true)
        .await;
    assert_eq!(status, 404, "not behind any LB: {body}");
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .starts_with("No load balancer metadata is found")
    );
    f.server.shutdown().await.unwrap();
}

#[tokio::test]
async fn rate_limit_is_per_vm() {
    let f = start("small.yaml", ImdsLimits::default()).await;
    // Back-to-back until refused: the 5/s budget allows a burst of 5, and only a client slower than one request per
    // 200 ms (the refill) would never be refused in 50 tries, so a loaded machine cannot make this flaky.
    let mut statuses = Vec::new();
    while statuses.len() < 50 && statuses.last() != Some(&429) {
        statuses.push(
            f.get(
                "k8s-master-0",
                "instance/compute?api-version=2021-10-01",
                true,
            )
            .await
            .0,
        );
    }
    assert_eq!(statuses.last(), Some(&429), "never refused: {statuses:?}");
    let served = statuses.iter().filter(|s| **s == 200).count();
    assert_eq!(served, statuses.len() - 1, "{statuses:?}");
    assert!(served >= 5, "the burst of 5 is served first: {statuses:?}");
    let (status, _) = f
        .get(
            "k8s-agentpool-0-0",
            "instance/compute?api-version=2021-10-01",
            true,
        )
        .await;
    assert_eq!(status, 200, "another VM has its own budget");
    f.server.shutdown().await.unwrap();
}

#[tokio::test]
async fn managed_identity_tokens_validate_with_the_shared_issuer() {
    let f = start("mixed.yaml", ImdsLimits::unlimited()).await;
    // Uniform instance: the scale set's user-assigned identity is the only one, so it is the default.
    let uniform = f
        .cloud
        .nodes
        .iter()
        .find(|n| n.node_name == "uniformpool000001")
        .unwrap();
    let (status, body) = f.get(&uniform.node_name, "identity/oauth2/token?api-version=2019-08-01&resource=https%3A%2F%2Fmanagement.azure.com%2F", true).await;
    assert_eq!(status, 200, "{body}");
    for field in [
        "access_token",
        "client_id",
        "expires_in",
        "expires_on",
        "ext_expires_in",
        "not_before",
        "resource",
        "token_type",
    ] {
        assert!(body[field].is_string(), "{field} must be a string");
    }
    assert_eq!(body["token_type"], "Bearer");
    assert_eq!(body["client_id"], "2a3b4c5d-6e7f-4081-92a3-b4c5d6e7f809");
    let claims = f
        .issuer
        .validate(body["access_token"].as_str().unwrap())
        .unwrap();
    assert_eq!(claims.client_id, "2a3b4c5d-6e7f-4081-92a3-b4c5d6e7f809");
    assert_eq!(claims.tenant_id, f.cloud.tenant_id);
    assert_eq!(claims.audience, "https://management.azure.com/");
    // Flexible member: system-assigned by default, the user-assigned one on request.
    let flex = f
        .cloud
        .nodes
        .iter()
        .find(|n| n.node_name == "flexpool000000")
        .unwrap();
    let system = f
        .cloud
        .managed_identities
        .iter()
        .find(|i| i.system_assigned && i.resource_id == flex.resource_id)
        .unwrap();
    let (_, body) = f
        .get(
            &flex.node_name,
            "identity/oauth2/token?api-version=2018-02-01&resource=https://management.azure.com/",
            true,
        )
        .await;
    let claims = f
        .issuer
        .validate(body["access_token"].as_str().unwrap())
        .unwrap();
    assert_eq!(
        (claims.client_id.as_str(), claims.object_id.as_str()),
        (system.client_id.as_str(), system.principal_id.as_str())
    );
    let user_res = f
        .cloud
        .managed_identities
        .iter()
        .find(|i| !i.system_assigned)
        .unwrap()
        .resource_id
        .clone();
    let (status, body) = f.get(&flex.node_name, &format!("identity/oauth2/token?api-version=2018-02-01&resource=https://vault.azure.net&msi_res_id={user_res}"), true).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["client_id"], "2a3b4c5d-6e7f-4081-92a3-b4c5d6e7f809");
    // No identity on the VM → 400 OAuth error; no Metadata header → OAuth-style 400.
    let (status, body) = f
        .get(
            "mixed-master-0",
            "identity/oauth2/token?api-version=2018-02-01&resource=https://management.azure.com/",
            true,
        )
        .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("invalid_request"))
    );
    assert_eq!(body["error_description"], "Identity not found");
    let (status, body) = f
        .get(
            &flex.node_name,
            "identity/oauth2/token?api-version=2018-02-01&resource=x",
            false,
        )
        .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("invalid_request"))
    );
    f.server.shutdown().await.unwrap();
}

/// The transport rules hold on the per-VM IMDS the binary serves too, not only on the router alone.
#[tokio::test]
async fn transport_rules_through_the_binary() {
    let fake = crate::support::Fake::start(&[]);
    let url = |query: &str| fake.url(&format!("/imds/k8s-master-0/metadata/instance{query}"));
    let get = |url: String, metadata: bool| {
        let mut request = fake.http.get(url);
        if metadata {
            request = request.header("Metadata", "true");
        }
        async move { request.send().await.unwrap() }
    };
    let ok = get(url("?api-version=2021-10-01"), true).await;
    assert_eq!(ok.status(), 200);
    let body: Value = ok.json().await.unwrap();
    assert_eq!(body["compute"]["name"], "k8s-master-0", "{body}");
    assert_eq!(
        get(url("?api-version=2021-10-01"), false).await.status(),
        400
    );
    let missing = get(url(""), true).await;
    assert_eq!(missing.status(), 400);
    let body: Value = missing.json().await.unwrap();
    assert!(body["newest-versions"].is_array(), "{body}");
    assert_eq!(
        get(url("?api-version=1999-01-01"), true).await.status(),
        400
    );
}
