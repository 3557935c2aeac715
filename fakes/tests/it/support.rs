//! Starts the real binary on 127.0.0.1 with a topology and a fresh TLS dir, reads the endpoints it
//! prints, and gives tests an HTTPS client that trusts the generated CA plus ARM helpers.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use reqwest::{Method, Response};
use serde_json::Value;

/// The example topology the other tests are written against (3 nodes, Standard LB, NSG, route table).
pub fn small_topology() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/small.yaml")
}

/// App registered in small.yaml.
pub const CLIENT_ID: &str = "6e1b3c52-6a1f-4d0e-9a3b-3c2f7d9e0a11";
/// Its secret (test data from the example file).
pub const CLIENT_SECRET: &str = "fake-secret-not-for-production";
/// The head of a test topology in westeurope: tenant, subscription, location, the node resource group `rg` and
/// the app the tests authenticate as; the caller appends the network, load balancers and nodes.
pub fn topology_preamble(rg: &str) -> String {
    format!(
        "tenantId: 72f988bf-86f1-41af-91ab-2d7cd011db47
subscriptionId: 0b1f6471-1bf0-4dda-aec3-111122223333
location: westeurope
resourceGroups:
  node:
    name: {rg}
{}",
        app_registration()
    )
}

/// The `apps:` entry registering [`CLIENT_ID`]/[`CLIENT_SECRET`], for topologies that do not list it.
pub fn app_registration() -> String {
    format!(
        "apps:
  - name: cloud-controller-manager
    clientId: {CLIENT_ID}
    secret: {CLIENT_SECRET}
"
    )
}

/// Node resource group of small.yaml.
pub const RG: &str = "k8s-small-rg";
/// ARM network api-version.
pub const NET_API: &str = "api-version=2025-05-01";

/// A running `azure-fakes serve`.
pub struct Fake {
    child: Child,
    /// `https://127.0.0.1:PORT`.
    pub base: String,
    /// Tenant of the topology.
    pub tenant: String,
    /// Subscription of the topology.
    pub subscription: String,
    /// Lines printed before `ready`.
    pub printed: Vec<String>,
    /// Client trusting the fake's CA.
    pub http: reqwest::Client,
    /// TLS dir (kept alive for the fake's lifetime).
    pub dir: tempfile::TempDir,
}

impl Fake {
    /// Starts with small.yaml and `extra` flags.
    pub fn start(extra: &[&str]) -> Fake {
        let dir = tempfile::tempdir().expect("tempdir");
        Self::start_in(dir, &small_topology(), extra)
    }

    /// Starts in an existing dir (TLS material under `dir/tls`).
    pub fn start_in(dir: tempfile::TempDir, topology: &Path, extra: &[&str]) -> Fake {
        let tls = dir.path().join("tls");
        let mut child = Command::new(env!("CARGO_BIN_EXE_azure-fakes"))
            .arg("serve")
            .arg("--topology")
            .arg(topology)
            .args(["--listen", "127.0.0.1:0", "--tls-dir"])
            .arg(&tls)
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn azure-fakes");
        let stdout = child.stdout.take().expect("stdout");
        let mut printed = Vec::new();
        for line in BufReader::new(stdout).lines() {
            let line = line.expect("read stdout");
            if line == "ready" {
                break;
            }
            printed.push(line);
        }
        let field = |key: &str| {
            printed
                .iter()
                .find_map(|l| l.strip_prefix(&format!("{key}: ")).map(str::to_string))
                .unwrap_or_else(|| panic!("'{key}:' not printed; got {printed:?}"))
        };
        let base = field("arm").trim_end_matches('/').to_string();
        let tenant = field("tenant");
        let subscription = field("subscription");
        let ca = std::fs::read(field("ca")).expect("CA file");
        Fake {
            child,
            base,
            tenant,
            subscription,
            http: client(&ca),
            printed,
            dir,
        }
    }

    /// Absolute URL of `path_and_query`.
    pub fn url(&self, path_and_query: &str) -> String {
        format!("{}{path_and_query}", self.base)
    }

    /// `/subscriptions/{sub}/resourceGroups/{RG}/providers/{rest}`.
    pub fn rg_path(&self, rest: &str) -> String {
        format!(
            "/subscriptions/{}/resourceGroups/{RG}/providers/{rest}",
            self.subscription
        )
    }

    /// The node resource group of small.yaml itself (`resourcegroups`, lower case, with its api-version): the
    /// plainest ARM read and write target.
    pub fn rg_url(&self) -> String {
        format!(
            "/subscriptions/{}/resourcegroups/{RG}?api-version=2021-04-01",
            self.subscription
        )
    }

    /// The client-credentials token request for the ARM scope as [`CLIENT_ID`] with `secret`, whatever
    /// its answer.
    pub async fn secret_grant(&self, secret: &str) -> Response {
        self.http
            .post(self.url(&format!("/{}/oauth2/v2.0/token", self.tenant)))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(form(&[
                ("grant_type", "client_credentials"),
                ("client_id", CLIENT_ID),
                ("client_secret", secret),
                ("scope", "https://management.azure.com/.default"),
            ]))
            .send()
            .await
            .expect("token request")
    }

    /// Client-credentials token with the example app's secret.
    pub async fn token(&self) -> String {
        let response = self.secret_grant(CLIENT_SECRET).await;
        assert_eq!(response.status(), 200);
        let body: Value = response.json().await.expect("token JSON");
        body["access_token"]
            .as_str()
            .expect("access_token")
            .to_string()
    }

    /// Authenticated ARM request.
    pub async fn arm(
        &self,
        token: &str,
        method: Method,
        path_and_query: &str,
        body: Option<Value>,
    ) -> Response {
        self.arm_with(token, method, path_and_query, body, &[])
            .await
    }

    /// The entries `/admin/journal` lists.
    pub async fn journal(&self) -> Vec<Value> {
        let (_, journal) = self.admin(Method::GET, "/admin/journal", None).await;
        journal["entries"].as_array().expect("entries").clone()
    }

    /// Authenticated ARM request with extra headers.
    pub async fn arm_with(
        &self,
        token: &str,
        method: Method,
        path_and_query: &str,
        body: Option<Value>,
        headers: &[(&str, &str)],
    ) -> Response {
        let url = if path_and_query.starts_with("https://") {
            path_and_query.to_string()
        } else {
            self.url(path_and_query)
        };
        let mut request = self.http.request(method, url).bearer_auth(token);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        request.send().await.expect("ARM request")
    }

    /// Admin API call returning JSON (`Null` for empty bodies).
    pub async fn admin(&self, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
        let mut request = self.http.request(method, self.url(path));
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.expect("admin request");
        let status = response.status().as_u16();
        let text = response.text().await.expect("admin body");
        (
            status,
            if text.is_empty() {
                Value::Null
            } else {
                serde_json::from_str(&text).expect("admin JSON")
            },
        )
    }

    /// An admin request that must be refused with 400; returns its `error.message`.
    pub async fn admin_refused(&self, method: Method, path: &str, body: Option<Value>) -> String {
        let what = format!("{method} {path}");
        let (status, body) = self.admin(method, path, body).await;
        assert_eq!(status, 400, "{what}: {body}");
        body["error"]["message"]
            .as_str()
            .unwrap_or_else(|| panic!("{what}: no error.message in {body}"))
            .to_string()
    }

    /// Polls an `Azure-AsyncOperation` URL until a terminal status and returns the status body.
    pub async fn poll(&self, token: &str, url: &str) -> Value {
        for _ in 0..50 {
            let response = self.arm(token, Method::GET, url, None).await;
            assert_eq!(
                response.status(),
                200,
                "status URL answers 200 while running and when done"
            );
            let body: Value = response.json().await.expect("status JSON");
            if body["status"] != "InProgress" {
                return body;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("operation {url} never finished");
    }

    /// Sends SIGTERM, waits for the exit status and hands back the directory (state, TLS) intact.
    pub fn terminate(mut self) -> (std::process::ExitStatus, tempfile::TempDir) {
        let pid = self.child.id().to_string();
        let killed = Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .expect("kill");
        assert!(killed.success());
        let status = self.child.wait().expect("wait");
        let dir = std::mem::replace(&mut self.dir, tempfile::tempdir().expect("tempdir"));
        (status, dir)
    }
}

impl Drop for Fake {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// HTTPS client trusting `ca_pem` only.
pub fn client(ca_pem: &[u8]) -> reqwest::Client {
    fake_tls::install_crypto_provider();
    reqwest::Client::builder()
        .add_root_certificate(reqwest::Certificate::from_pem(ca_pem).expect("CA PEM"))
        .timeout(Duration::from_secs(20))
        .build()
        .expect("client")
}

/// `application/x-www-form-urlencoded` body.
pub fn form(pairs: &[(&str, &str)]) -> String {
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish()
}

/// Header value as a string (empty when absent).
pub fn header(response: &Response, name: &str) -> String {
    response
        .headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string()
}

/// ARM compute api-version (virtual machines, scale sets and their instances).
pub const COMPUTE_API: &str = "api-version=2025-04-01";

/// One ARM answer, read whole: status, JSON body (`Null` when empty) and the operation URL, if any.
pub struct Reply {
    /// HTTP status.
    pub status: u16,
    /// JSON body (`Null` when empty).
    pub body: Value,
    /// `Azure-AsyncOperation` header (empty when absent).
    pub operation: String,
}

impl Reply {
    /// The ARM error `code` of a failed request (empty when the body is no error envelope).
    pub fn code(&self) -> &str {
        self.body["error"]["code"].as_str().unwrap_or_default()
    }
}

/// A running fake, a token and the resource group its topology seeds: the request, settle and
/// refusal steps that tests driving many ARM writes repeat.
pub struct Session {
    /// The binary.
    pub fake: Fake,
    /// Bearer token of the topology's app.
    pub token: String,
    /// Resource group ids are built in.
    pub rg: String,
}

impl Session {
    /// Starts small.yaml with `extra` flags and gets a token.
    pub async fn small(extra: &[&str]) -> Session {
        let fake = Fake::start(extra);
        let token = fake.token().await;
        Session {
            fake,
            token,
            rg: RG.to_string(),
        }
    }

    /// Starts a topology given as YAML text (written next to the TLS dir) whose app is
    /// [`CLIENT_ID`]/[`CLIENT_SECRET`] and whose node resource group is `rg`.
    pub async fn with_topology(yaml: &str, rg: &str, extra: &[&str]) -> Session {
        let dir = tempfile::tempdir().expect("tempdir");
        let topology = dir.path().join("topology.yaml");
        std::fs::write(&topology, yaml).expect("write topology");
        let fake = Fake::start_in(dir, &topology, extra);
        let token = fake.token().await;
        Session {
            fake,
            token,
            rg: rg.to_string(),
        }
    }

    /// Full id of `providers/{rest}` in the session's resource group.
    pub fn id(&self, rest: &str) -> String {
        format!(
            "/subscriptions/{}/resourceGroups/{}/providers/{rest}",
            self.fake.subscription, self.rg
        )
    }

    /// ARM request on a resource id (the api-version of its provider is appended) or an absolute URL.
    pub async fn send(&self, method: Method, id: &str, body: Option<Value>) -> Reply {
        let target = if id.starts_with("https://") {
            id.to_string()
        } else if id.to_ascii_lowercase().contains("/microsoft.compute/") {
            format!("{id}?{COMPUTE_API}")
        } else {
            format!("{id}?{NET_API}")
        };
        let response = self.fake.arm(&self.token, method, &target, body).await;
        let status = response.status().as_u16();
        let operation = header(&response, "azure-asyncoperation");
        let text = response.text().await.expect("ARM body");
        let body = if text.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("ARM JSON ({e}): {text}"))
        };
        Reply {
            status,
            body,
            operation,
        }
    }

    /// GET of a resource id.
    pub async fn get(&self, id: &str) -> Reply {
        self.send(Method::GET, id, None).await
    }

    /// Polls the operation a write started (if any) and returns its final status body.
    pub async fn settle(&self, reply: &Reply) -> Value {
        if reply.operation.is_empty() {
            return Value::Null;
        }
        self.fake.poll(&self.token, &reply.operation).await
    }

    /// PUT that must be accepted and succeed: returns the resource as a GET shows it afterwards.
    pub async fn put_ok(&self, id: &str, body: Value) -> Value {
        let reply = self.send(Method::PUT, id, Some(body)).await;
        assert!(
            matches!(reply.status, 200 | 201),
            "PUT {id}: {} {}",
            reply.status,
            reply.body
        );
        let done = self.settle(&reply).await;
        assert!(
            done.is_null() || done["status"] == "Succeeded",
            "PUT {id}: {done}"
        );
        let now = self.get(id).await;
        assert_eq!(now.status, 200, "GET {id} after PUT: {}", now.body);
        assert_eq!(now.body["properties"]["provisioningState"], "Succeeded");
        now.body
    }

    /// A request that must be refused with `status` and ARM error `code`; returns the error object.
    pub async fn refused(
        &self,
        method: Method,
        id: &str,
        body: Option<Value>,
        status: u16,
        code: &str,
    ) -> Value {
        let reply = self.send(method.clone(), id, body).await;
        assert_eq!(
            (reply.status, reply.code()),
            (status, code),
            "{method} {id}: {}",
            reply.body
        );
        assert!(
            reply.operation.is_empty(),
            "a refused request starts no operation"
        );
        reply.body["error"].clone()
    }
}
