//! Integration tests: the fake ARM router served over real HTTPS on 127.0.0.1 and driven with reqwest.

mod compute;
mod compute_updates;
mod dual_stack;
mod error_codes;
mod lb_lifecycle;
mod lro_details;
mod model;
mod network;
mod network_defaults;
mod not_provisioned;
mod private_link_service;
mod protocol;
mod public_ip_allocation;
mod public_ip_prefix;
mod scale_set_network;
mod sync_writes;

use fake_arm::{ArmConfig, ArmState};
use fake_tls::{ClientAuth, HttpsServer, Pki, server_config};
use serde_json::{Value, json};

pub const SUB: &str = "00000000-0000-0000-0000-000000000001";
pub const NET: &str = "api-version=2025-05-01";
pub const CMP: &str = "api-version=2025-04-01";

/// A running fake plus a client trusting its CA.
pub struct Fake {
    pub state: ArmState,
    pub server: HttpsServer,
    pub client: reqwest::Client,
}

impl Fake {
    pub async fn start(config: ArmConfig) -> Self {
        fake_tls::install_crypto_provider();
        let pki = Pki::generate("fake-arm-test-ca").unwrap();
        let cert = pki.issue_server(&["127.0.0.1", "localhost"]).unwrap();
        let tls = server_config(&pki, &cert, ClientAuth::None).unwrap();
        let state = ArmState::new(config);
        let server = HttpsServer::start("127.0.0.1:0".parse().unwrap(), tls, state.router())
            .await
            .unwrap();
        let ca = reqwest::Certificate::from_pem(pki.ca_pem().as_bytes()).unwrap();
        let client = reqwest::Client::builder()
            .add_root_certificate(ca)
            .build()
            .unwrap();
        Fake {
            state,
            server,
            client,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.server.base_url())
    }

    pub fn rg_path(rg: &str) -> String {
        format!("/subscriptions/{SUB}/resourceGroups/{rg}")
    }

    pub fn net(rg: &str, rest: &str) -> String {
        format!("/subscriptions/{SUB}/resourceGroups/{rg}/providers/Microsoft.Network/{rest}")
    }

    pub fn cmp(rg: &str, rest: &str) -> String {
        format!("/subscriptions/{SUB}/resourceGroups/{rg}/providers/Microsoft.Compute/{rest}")
    }

    pub async fn send(
        &self,
        method: reqwest::Method,
        path_and_query: &str,
        body: Option<Value>,
        headers: &[(&str, &str)],
    ) -> (u16, reqwest::header::HeaderMap, Value) {
        let mut req = self.client.request(method, self.url(path_and_query));
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        if let Some(b) = body {
            req = req.json(&b);
        }
        let resp = req.send().await.unwrap();
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let text = resp.text().await.unwrap();
        let v = if text.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&text).unwrap()
        };
        (status, headers, v)
    }

    /// PUT without waiting for the operation it starts.
    pub async fn put_raw(
        &self,
        path: &str,
        api: &str,
        body: Value,
    ) -> (u16, reqwest::header::HeaderMap, Value) {
        self.send(
            reqwest::Method::PUT,
            &format!("{path}?{api}"),
            Some(body),
            &[],
        )
        .await
    }

    /// PUT, then poll its Azure-AsyncOperation (if any) to a terminal state, like an ARM client does.
    pub async fn put(
        &self,
        path: &str,
        api: &str,
        body: Value,
    ) -> (u16, reqwest::header::HeaderMap, Value) {
        let (s, h, v) = self.put_raw(path, api, body).await;
        if let Some(op) = h.get("azure-asyncoperation").and_then(|o| o.to_str().ok()) {
            self.poll(op).await;
        }
        (s, h, v)
    }

    pub async fn get(&self, path: &str, api: &str) -> (u16, Value) {
        let (s, _, v) = self
            .send(reqwest::Method::GET, &format!("{path}?{api}"), None, &[])
            .await;
        (s, v)
    }

    /// PATCH (a tags update, say) without extra headers; returns the status and body.
    pub async fn patch(&self, path: &str, api: &str, body: Value) -> (u16, Value) {
        let (s, _, v) = self
            .send(
                reqwest::Method::PATCH,
                &format!("{path}?{api}"),
                Some(body),
                &[],
            )
            .await;
        (s, v)
    }

    pub async fn delete(&self, path: &str, api: &str) -> (u16, reqwest::header::HeaderMap) {
        let (s, h, _) = self
            .send(reqwest::Method::DELETE, &format!("{path}?{api}"), None, &[])
            .await;
        (s, h)
    }

    /// GETs an absolute URL (an operation or a `nextLink`) and parses the JSON answer.
    pub async fn get_url(&self, url: &str) -> Value {
        self.client
            .get(url)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    /// Sends a PUT straight to the router with [`fake_arm::ForceLroFailure`] attached, so its operation
    /// fails with `InternalServerError`/`boom`; returns the status and the operation's path on this fake.
    pub async fn put_forcing_failure(&self, path: &str, api: &str, body: Value) -> (u16, String) {
        let req = http::Request::builder()
            .method("PUT")
            .uri(format!("{path}?{api}"))
            .header("content-type", "application/json")
            .extension(fake_arm::ForceLroFailure {
                code: "InternalServerError".into(),
                message: "boom".into(),
            })
            .body(axum::body::Body::from(body.to_string()))
            .unwrap();
        let resp = tower::ServiceExt::oneshot(self.state.router(), req)
            .await
            .unwrap();
        let op = resp.headers()["azure-asyncoperation"].to_str().unwrap();
        let op_path = op
            .split_once("://")
            .and_then(|(_, r)| r.split_once('/'))
            .map(|(_, p)| format!("/{p}"))
            .unwrap();
        (resp.status().as_u16(), op_path)
    }

    /// Polls an absolute operation URL until it is terminal; returns the final status body and poll count.
    pub async fn poll(&self, url: &str) -> (Value, usize) {
        for n in 1..20 {
            let v = self.get_url(url).await;
            if v["status"] != "InProgress" {
                return (v, n);
            }
        }
        panic!("operation never finished");
    }

    /// A fake whose operations stay `InProgress` for `lro_polls` polls, with [`Fake::seed_network`] done in
    /// `rg`: the starting point most tests share.
    pub async fn seeded(lro_polls: u32) -> Self {
        Self::seeded_with(ArmConfig {
            lro_polls_in_progress: lro_polls,
            ..ArmConfig::default()
        })
        .await
    }

    /// Like [`Fake::seeded`], for tests that also tune other settings (page size, ...).
    pub async fn seeded_with(config: ArmConfig) -> Self {
        let f = Self::start(config).await;
        f.seed_network("rg");
        f
    }

    /// Seeds RG + VNet/subnet through the programmatic API.
    pub fn seed_network(&self, rg: &str) {
        self.state
            .put(&Self::rg_path(rg), json!({"location": "eastus"}))
            .unwrap();
        self.state
            .put(
                &Self::net(rg, "virtualNetworks/vnet"),
                json!({"location":"eastus","properties":{"addressSpace":{"addressPrefixes":["10.0.0.0/16"]},"subnets":[{"name":"nodes","properties":{"addressPrefix":"10.0.0.0/24"}}]}}),
            )
            .unwrap();
    }
}

/// Redacts per-run values (GUIDs, ports) from error messages for snapshots.
pub fn redact(v: &Value) -> Value {
    let s = serde_json::to_string(v).unwrap();
    let re_guid = regex_lite(&s);
    serde_json::from_str(&re_guid).unwrap()
}

fn regex_lite(s: &str) -> String {
    // Replace 127.0.0.1:<port> and UUIDs.
    let mut out = String::new();
    let bytes: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < bytes.len() {
        let rest: String = bytes[i..bytes.len().min(i + 36)].iter().collect();
        if rest.len() == 36
            && rest.chars().enumerate().all(|(j, c)| {
                if [8, 13, 18, 23].contains(&j) {
                    c == '-'
                } else {
                    c.is_ascii_hexdigit()
                }
            })
        {
            out.push_str("[guid]");
            i += 36;
            continue;
        }
        if rest.starts_with("127.0.0.1:") {
            out.push_str("[host]");
            i += 10;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    out
}
