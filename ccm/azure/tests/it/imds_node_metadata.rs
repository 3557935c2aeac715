//! The IMDS client against the real `azure-fakes serve` process: for every node of each example
//! topology the metadata derived from IMDS (providerID, zone, region, instance type, addresses)
//! equals what the fake's ARM says about that VM; retries, caching and clear errors.

use std::collections::BTreeSet;
use std::path::PathBuf;

use ccm_azure::cache::ReadMode;
use ccm_azure::imds::{ImdsClient, ImdsEndpoint, ImdsError, RetryPolicy};
use reqwest::Method;
use serde_json::{Value, json};

use crate::fake_azure::{FakeAzure, example};

/// App the tests read ARM with (added to topologies that lack a secret app).
const READER_ID: &str = "5c6d7e8f-9a0b-4c1d-8e2f-3a4b5c6d7e8f";
const READER_SECRET: &str = "imds-test-reader-secret";
const COMPUTE_API: &str = "2025-04-01";
const NETWORK_API: &str = "2025-05-01";
/// The VMSS-instance NIC views exist only up to this version.
const VMSS_NETWORK_API: &str = "2018-10-01";

/// The example topology with a client-secret app appended, written to a temp file.
fn with_reader(name: &str) -> (tempfile::TempDir, PathBuf) {
    let text = std::fs::read_to_string(example(name)).expect("example topology");
    let app = format!(
        "  - name: imds-test-reader\n    clientId: {READER_ID}\n    secret: {READER_SECRET}\n"
    );
    let text = if text.contains("\napps:\n") {
        text.replacen("\napps:\n", &format!("\napps:\n{app}"), 1)
    } else {
        format!("{text}\napps:\n{app}")
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join(name);
    std::fs::write(&path, text).expect("write topology");
    (dir, path)
}

/// Test-speed retries: same shape as the default, milliseconds instead of seconds.
fn fast_retry() -> RetryPolicy {
    RetryPolicy {
        max_attempts: 3,
        base_delay: std::time::Duration::from_millis(20),
        max_delay: std::time::Duration::from_millis(100),
    }
}

fn client(fake: &FakeAzure, url: &str) -> ImdsClient {
    ImdsClient::builder()
        .endpoint(ImdsEndpoint::parse(url).expect("fake IMDS URL"))
        .ca_pem(std::fs::read(&fake.ca_file).expect("CA file"))
        .retry(fast_retry())
        .build()
        .expect("IMDS client")
}

/// Reads ARM as the reader app.
struct Arm<'a> {
    fake: &'a FakeAzure,
    token: String,
}

impl<'a> Arm<'a> {
    async fn login(fake: &'a FakeAzure) -> Arm<'a> {
        let response = fake
            .http
            .post(format!("{}/{}/oauth2/v2.0/token", fake.base, fake.tenant))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(
                url::form_urlencoded::Serializer::new(String::new())
                    .extend_pairs([
                        ("grant_type", "client_credentials"),
                        ("client_id", READER_ID),
                        ("client_secret", READER_SECRET),
                        ("scope", "https://management.azure.com/.default"),
                    ])
                    .finish(),
            )
            .send()
            .await
            .expect("token request");
        assert_eq!(response.status(), 200, "token");
        let body: Value = response.json().await.expect("token JSON");
        Arm {
            fake,
            token: body["access_token"].as_str().expect("access_token").into(),
        }
    }

    async fn get(&self, path: &str, api_version: &str, expand: bool) -> Value {
        let sep = if path.contains('?') { '&' } else { '?' };
        let mut url = format!("{}{path}{sep}api-version={api_version}", self.fake.base);
        if expand {
            url.push_str("&$expand=instanceView");
        }
        let response = self
            .fake
            .http
            .request(Method::GET, &url)
            .bearer_auth(&self.token)
            .send()
            .await
            .expect("ARM request");
        let status = response.status();
        let body: Value = response.json().await.expect("ARM JSON");
        assert_eq!(status, 200, "GET {url}: {body}");
        body
    }

    async fn list(&self, path: &str, api_version: &str, expand: bool) -> Vec<Value> {
        self.get(path, api_version, expand).await["value"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }
}

/// One VM as ARM describes it, and what its node's metadata must therefore be.
#[derive(Debug)]
struct Expected {
    computer_name: String,
    provider_id: String,
    instance_type: String,
    zone: String,
    region: String,
    internal: Vec<String>,
    /// Public addresses the VM's primary ipconfig reaches (own PIP, or Standard LB frontends).
    external: BTreeSet<String>,
    powered_off: bool,
}

/// `azure://` + ARM ID with the subscription and resource-group segments lower-cased.
fn expected_provider_id(id: &str) -> String {
    let mut parts: Vec<String> = id.split('/').map(str::to_string).collect();
    for i in 1..parts.len() {
        let prev = parts[i - 1].to_ascii_lowercase();
        if prev == "subscriptions" || prev == "resourcegroups" {
            parts[i] = parts[i].to_lowercase();
        }
    }
    format!("azure://{}", parts.join("/"))
}

fn str_of(v: &Value, pointer: &str) -> String {
    match v.pointer(pointer) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    }
}

impl Arm<'_> {
    async fn expected(&self, vm: &Value, uniform_sku: Option<String>) -> Expected {
        let location = str_of(vm, "/location").to_lowercase();
        let zone = match vm["zones"].as_array().and_then(|z| z.first()) {
            Some(z) => format!("{location}-{}", z.as_str().expect("zone string")),
            None => str_of(vm, "/properties/instanceView/platformFaultDomain"),
        };
        let powered_off = vm
            .pointer("/properties/instanceView/statuses")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|s| s["code"].as_str())
            .any(|c| {
                matches!(
                    c,
                    "PowerState/stopped" | "PowerState/deallocated" | "PowerState/deallocating"
                )
            });
        let (internal, external) = self.addresses(vm, uniform_sku.is_some()).await;
        Expected {
            computer_name: str_of(vm, "/properties/osProfile/computerName"),
            provider_id: expected_provider_id(vm["id"].as_str().expect("id")),
            instance_type: uniform_sku
                .unwrap_or_else(|| str_of(vm, "/properties/hardwareProfile/vmSize")),
            zone,
            region: location,
            internal,
            external,
            powered_off,
        }
    }

    /// Private addresses of the primary NIC's first ipconfig per family, and the public
    /// addresses its primary ipconfig reaches.
    async fn addresses(&self, vm: &Value, scale_set_vm: bool) -> (Vec<String>, BTreeSet<String>) {
        let nics = vm
            .pointer("/properties/networkProfile/networkInterfaces")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let primary = nics
            .iter()
            .find(|n| n.pointer("/properties/primary") == Some(&json!(true)))
            .or(nics.first())
            .expect("a NIC");
        let api = if scale_set_vm {
            VMSS_NETWORK_API
        } else {
            NETWORK_API
        };
        let nic = self
            .get(primary["id"].as_str().expect("NIC id"), api, false)
            .await;
        let mut ipcs: Vec<Value> = nic["properties"]["ipConfigurations"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        ipcs.sort_by_key(|c| c.pointer("/properties/primary") != Some(&json!(true)));
        let mut internal = Vec::new();
        for v6 in [false, true] {
            if let Some(c) = ipcs
                .iter()
                .find(|c| (str_of(c, "/properties/privateIPAddressVersion") == "IPv6") == v6)
            {
                internal.push(str_of(c, "/properties/privateIPAddress"));
            }
        }
        let mut external = BTreeSet::new();
        let Some(ipc) = ipcs.first() else {
            return (internal, external);
        };
        if let Some(pip) = ipc
            .pointer("/properties/publicIPAddress/id")
            .and_then(Value::as_str)
        {
            let pip = self.get(pip, api, false).await;
            external.insert(str_of(&pip, "/properties/ipAddress"));
        }
        let pools: Vec<String> = ipc
            .pointer("/properties/loadBalancerBackendAddressPools")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|p| p["id"].as_str())
            .map(str::to_ascii_lowercase)
            .collect();
        for pool in &pools {
            let Some((lb_id, _)) = pool.split_once("/backendaddresspools/") else {
                continue;
            };
            let lb = self.get(lb_id, NETWORK_API, false).await;
            if str_of(&lb, "/sku/name") != "Standard" {
                continue;
            }
            let mut frontends = Vec::new();
            for rule in lb["properties"]["loadBalancingRules"]
                .as_array()
                .into_iter()
                .flatten()
            {
                if str_of(rule, "/properties/backendAddressPool/id").to_ascii_lowercase() == *pool {
                    frontends.push(str_of(rule, "/properties/frontendIPConfiguration/id"));
                }
            }
            for rule in lb["properties"]["outboundRules"]
                .as_array()
                .into_iter()
                .flatten()
            {
                if str_of(rule, "/properties/backendAddressPool/id").to_ascii_lowercase() == *pool {
                    for fe in rule["properties"]["frontendIPConfigurations"]
                        .as_array()
                        .into_iter()
                        .flatten()
                    {
                        frontends.push(str_of(fe, "/id"));
                    }
                }
            }
            for fe_id in frontends {
                let fe = lb["properties"]["frontendIPConfigurations"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .find(|f| str_of(f, "/id").eq_ignore_ascii_case(&fe_id));
                if let Some(pip) = fe
                    .and_then(|f| f.pointer("/properties/publicIPAddress/id"))
                    .and_then(Value::as_str)
                {
                    let pip = self.get(pip, NETWORK_API, false).await;
                    external.insert(str_of(&pip, "/properties/ipAddress"));
                }
            }
        }
        (internal, external)
    }

    /// Every VM of the node resource group: standalone / availability-set / flex VMs and the
    /// instances of uniform scale sets.
    async fn every_vm(&self, rg: &str) -> Vec<Expected> {
        let sub = format!(
            "/subscriptions/{}/resourceGroups/{rg}/providers/Microsoft.Compute",
            self.fake.subscription
        );
        let mut out = Vec::new();
        for vm in self
            .list(&format!("{sub}/virtualMachines"), COMPUTE_API, false)
            .await
        {
            let vm = self
                .get(vm["id"].as_str().expect("id"), COMPUTE_API, true)
                .await;
            out.push(self.expected(&vm, None).await);
        }
        for ss in self
            .list(
                &format!("{sub}/virtualMachineScaleSets"),
                COMPUTE_API,
                false,
            )
            .await
        {
            if str_of(&ss, "/properties/orchestrationMode") == "Flexible" {
                continue; // its VMs are in the VM list above
            }
            let ss_id = ss["id"].as_str().expect("id");
            for vm in self
                .list(&format!("{ss_id}/virtualMachines"), COMPUTE_API, true)
                .await
            {
                let sku = str_of(&vm, "/sku/name");
                out.push(self.expected(&vm, Some(sku)).await);
            }
        }
        out
    }
}

/// For every node the fake serves an IMDS for, IMDS-derived metadata equals ARM's view.
async fn imds_matches_arm(topology: &str, rg: &str) {
    let (_dir, path) = with_reader(topology);
    let fake = FakeAzure::start(&path, &[]);
    let arm = Arm::login(&fake).await;
    let vms = arm.every_vm(rg).await;
    assert_eq!(vms.len(), fake.imds.len(), "one IMDS per VM: {vms:#?}");
    let mut externals = 0;
    for (node, url) in &fake.imds {
        let want = vms
            .iter()
            .find(|v| v.computer_name.eq_ignore_ascii_case(node))
            .unwrap_or_else(|| panic!("no ARM VM with computer name {node}: {vms:#?}"));
        let imds = client(&fake, url);
        let got = imds.local_node_metadata(node, ReadMode::Default).await;
        if want.powered_off {
            // A deallocated VM runs no guest: the fake's IMDS answers 503, retried, then reported.
            let err = got.expect_err("powered-off VM");
            assert!(
                matches!(
                    err,
                    ImdsError::Status {
                        status: 503,
                        attempts: 3,
                        ..
                    }
                ),
                "{err}"
            );
            assert!(err.to_string().contains(url.as_str()), "{err}");
            continue;
        }
        let got = got.unwrap_or_else(|e| panic!("{node}: {e}"));
        assert_eq!(got.provider_id, want.provider_id, "{node}");
        assert_eq!(got.instance_type, want.instance_type, "{node}");
        assert_eq!(got.zone, want.zone, "{node}");
        assert_eq!(got.region, want.region, "{node}");
        let kinds: Vec<(&str, &str)> = got
            .node_addresses
            .iter()
            .map(|a| (a.type_.as_str(), a.address.as_str()))
            .collect();
        let mut want_kinds = vec![("Hostname", node.as_str())];
        let external: Vec<&(&str, &str)> =
            kinds.iter().filter(|(t, _)| *t == "ExternalIP").collect();
        for (i, ip) in want.internal.iter().enumerate() {
            want_kinds.push(("InternalIP", ip.as_str()));
            if i == 0
                && let Some((_, e)) = external.first()
            {
                want_kinds.push(("ExternalIP", e));
            }
        }
        assert_eq!(kinds, want_kinds, "{node}: {want:#?}");
        match external.as_slice() {
            [] => assert!(
                want.external.is_empty(),
                "{node} lacks ExternalIP: {want:#?}"
            ),
            [(_, e)] => {
                assert!(want.external.contains(*e), "{node}: {e} not in {want:#?}");
                externals += 1;
            }
            more => panic!("{node}: several ExternalIPs {more:?}"),
        }
    }
    // Every example puts nodes behind a Standard LB with a public outbound frontend.
    assert!(externals > 0, "no node got an ExternalIP");
}

#[tokio::test]
async fn small_topology_imds_metadata_equals_arm() {
    imds_matches_arm("small.yaml", "k8s-small-rg").await;
}

#[tokio::test]
async fn zonal_vmss_topology_imds_metadata_equals_arm() {
    imds_matches_arm("zonal-vmss.yaml", "MC_zonal_cluster_westeurope").await;
}

#[tokio::test]
async fn mixed_topology_imds_metadata_equals_arm() {
    imds_matches_arm("mixed.yaml", "mixed-nodes-rg").await;
}

/// IMDS requests the fake received for `node`, as (path, status) pairs.
async fn imds_requests(fake: &FakeAzure, node: &str) -> Vec<(String, u64)> {
    let journal = fake.journal().await;
    journal["entries"]
        .as_array()
        .expect("journal entries")
        .iter()
        .filter(|e| {
            e["path"]
                .as_str()
                .is_some_and(|p| p.starts_with(&format!("/imds/{node}/")))
        })
        .map(|e| {
            (
                e["path"].as_str().unwrap_or_default().to_string(),
                e["status"].as_u64().unwrap_or_default(),
            )
        })
        .collect()
}

#[tokio::test]
async fn the_instance_document_is_cached_and_force_refresh_asks_again() {
    let fake = FakeAzure::start(&example("small.yaml"), &[]);
    let (node, url) = fake.imds[1].clone();
    let imds = client(&fake, &url);
    let first = imds.metadata(ReadMode::Default).await.expect("metadata");
    let again = imds.metadata(ReadMode::Default).await.expect("metadata");
    assert_eq!(first, again);
    let instance = format!("/imds/{node}/metadata/instance");
    let count = |reqs: &[(String, u64)]| reqs.iter().filter(|(p, _)| *p == instance).count();
    assert_eq!(
        count(&imds_requests(&fake, &node).await),
        1,
        "served from the cache"
    );
    imds.metadata(ReadMode::ForceRefresh)
        .await
        .expect("metadata");
    assert_eq!(count(&imds_requests(&fake, &node).await), 2);
}

#[tokio::test]
async fn throttled_and_failing_imds_answers_are_retried_then_succeed() {
    let fake = FakeAzure::start(&example("small.yaml"), &[]);
    let (node, url) = fake.imds[0].clone();
    let path = format!("/imds/{node}/metadata/instance");
    for fault in [
        json!({"kind": "throttle", "retryAfterSecs": 1}),
        json!({"kind": "status", "status": 500}),
    ] {
        let rule =
            json!({"surface": "imds", "method": "GET", "path": path, "fault": fault, "count": 1});
        let (status, body) = fake.admin(Method::POST, "/admin/faults", Some(rule)).await;
        assert_eq!(status, 201, "{body}");
    }
    let doc = client(&fake, &url)
        .instance_document()
        .await
        .expect("third attempt succeeds");
    assert_eq!(doc.compute.expect("compute").os_profile.computer_name, node);
    let statuses: Vec<u64> = imds_requests(&fake, &node)
        .await
        .into_iter()
        .filter(|(p, _)| *p == path)
        .map(|(_, s)| s)
        .collect();
    assert_eq!(statuses, [429, 500, 200]);
}

#[tokio::test]
async fn a_persistent_imds_failure_stops_after_the_bounded_retries_naming_the_url() {
    let fake = FakeAzure::start(&example("small.yaml"), &[]);
    let (node, url) = fake.imds[0].clone();
    let rule = json!({"surface": "imds", "path": format!("/imds/{node}/metadata/instance"), "fault": {"kind": "status", "status": 503}});
    let (status, body) = fake.admin(Method::POST, "/admin/faults", Some(rule)).await;
    assert_eq!(status, 201, "{body}");
    let err = client(&fake, &url)
        .instance_document()
        .await
        .expect_err("always 503");
    assert!(
        matches!(
            err,
            ImdsError::Status {
                status: 503,
                attempts: 3,
                ..
            }
        ),
        "{err}"
    );
    let message = err.to_string();
    assert!(
        message.contains(&format!(
            "{url}/metadata/instance?api-version=2021-10-01&format=json"
        )),
        "{message}"
    );
}

#[tokio::test]
async fn a_not_found_answer_is_not_retried() {
    let fake = FakeAzure::start(&example("small.yaml"), &[]);
    let url = format!("{}/imds/no-such-node", fake.base);
    let err = client(&fake, &url)
        .instance_document()
        .await
        .expect_err("unknown node");
    assert!(
        matches!(
            err,
            ImdsError::Status {
                status: 404,
                attempts: 1,
                ..
            }
        ),
        "{err}"
    );
}

#[tokio::test]
async fn unreachable_imds_is_a_clear_error_naming_the_url() {
    // A port nothing listens on: bind, note the port, close.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    let base = format!("http://127.0.0.1:{port}");
    let imds = ImdsClient::builder()
        .endpoint(ImdsEndpoint::parse(&base).expect("URL"))
        .retry(fast_retry())
        .build()
        .expect("client");
    let err = imds
        .local_node_metadata("node-0", ReadMode::Default)
        .await
        .expect_err("nothing listens");
    assert!(matches!(err, ImdsError::Unreachable { .. }), "{err:?}");
    let message = err.to_string();
    assert!(
        message.starts_with(&format!(
            "IMDS at {base}/metadata/instance?api-version=2021-10-01&format=json is unreachable: "
        )),
        "{message}"
    );
}

#[tokio::test]
async fn a_body_that_is_not_an_instance_document_is_a_decode_error() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let server = tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.expect("accept");
        let mut buf = vec![0u8; 4096];
        let n = socket.read(&mut buf).await.expect("read");
        let body = "<html>captive portal</html>";
        let response = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        socket.write_all(response.as_bytes()).await.expect("write");
        String::from_utf8_lossy(&buf[..n]).to_ascii_lowercase()
    });
    let imds = ImdsClient::builder()
        .endpoint(ImdsEndpoint::parse(&base).expect("URL"))
        .build()
        .expect("client");
    let err = imds.instance_document().await.expect_err("not JSON");
    assert!(matches!(err, ImdsError::Decode { .. }), "{err:?}");
    assert!(err.to_string().contains(&base), "{err}");
    let request = server.await.expect("server");
    assert!(request.contains("\r\nmetadata: true\r\n"), "{request}");
}
