//! Per-host proxies (`POST /admin/proxies`) through the real binary: a process given
//! `HTTP_PROXY=<url>` sees that host's IMDS at `http://169.254.169.254` exactly as the direct
//! `/imds/{host}` route answers (guards, faults, journal), reaches the Entra hosts by CONNECT, and
//! gets nothing else.
//!
//! No request here can leave the loopback: absolute-form requests are written by a hyper client
//! *connection* over a `TcpStream` to the proxy (it has no connector, so it can dial nothing), and
//! the Entra client resolves `login.microsoftonline.com` to a closed loopback port should it ever
//! bypass the proxy.

use std::net::SocketAddr;
use std::time::Duration;

use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use reqwest::Method;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::support::{CLIENT_ID, CLIENT_SECRET, Fake, form};

const NODE: &str = "k8s-agentpool-0-1";
const INSTANCE: &str = "/metadata/instance?api-version=2021-10-01";
const IMDS: &str = "http://169.254.169.254";
const AGENT: &str = "node-proxy-test/1";

/// Starts the proxy of `host`; its `host:port`.
async fn proxy_of(fake: &Fake, host: &str) -> String {
    let (status, body) = fake
        .admin(
            Method::POST,
            "/admin/proxies",
            Some(json!({ "host": host })),
        )
        .await;
    assert!(status == 201 || status == 200, "{status} {body}");
    assert_eq!(body["host"], host);
    let url = body["url"].as_str().expect("url");
    assert!(
        url.starts_with("http://127.0.0.1:"),
        "a loopback URL: {url}"
    );
    url.trim_start_matches("http://").to_owned()
}

/// One HTTP/1.1 connection to a proxy, sending requests as written (absolute form included).
struct Conn {
    sender: SendRequest<Empty<Bytes>>,
}

/// An answer: status, headers, body text.
struct Answer {
    status: u16,
    content_type: String,
    body: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }
}

impl Conn {
    async fn open(proxy: &str) -> Conn {
        let stream = TcpStream::connect(proxy)
            .await
            .expect("connect to the proxy");
        let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .expect("HTTP/1.1 handshake");
        tokio::spawn(connection);
        Conn { sender }
    }

    async fn send(
        &mut self,
        method: &str,
        target: &str,
        headers: &[(&str, &str)],
    ) -> hyper::Result<Answer> {
        let host = target
            .strip_prefix("http://")
            .and_then(|rest| rest.split('/').next())
            .unwrap_or("169.254.169.254");
        let mut request = http::Request::builder()
            .method(method)
            .uri(target)
            .header("host", host)
            .header("user-agent", AGENT);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let request = request.body(Empty::new()).expect("request");
        self.sender.ready().await?;
        let response = self.sender.send_request(request).await?;
        let status = response.status().as_u16();
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        let body = response.into_body().collect().await?.to_bytes();
        Ok(Answer {
            status,
            content_type,
            body: String::from_utf8_lossy(&body).into_owned(),
        })
    }

    /// `GET http://169.254.169.254{path}` with `Metadata: true`.
    async fn imds(&mut self, path: &str) -> Answer {
        self.send("GET", &format!("{IMDS}{path}"), &[("metadata", "true")])
            .await
            .expect("an answer through the proxy")
    }
}

/// `GET {base}/imds/{host}{path}` directly, with the same headers the proxied requests carry.
async fn direct(fake: &Fake, host: &str, path: &str, metadata: bool) -> Answer {
    let mut request = fake
        .http
        .get(fake.url(&format!("/imds/{host}{path}")))
        .header("user-agent", AGENT);
    if metadata {
        request = request.header("metadata", "true");
    }
    let response = request.send().await.expect("direct IMDS request");
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    Answer {
        status,
        content_type,
        body: response.text().await.expect("body"),
    }
}

/// A journal entry without what differs between two requests (sequence, time, duration).
fn comparable(entry: &Value) -> Value {
    let mut entry = entry.clone();
    if let Some(fields) = entry.as_object_mut() {
        for volatile in ["seq", "time", "durationMs"] {
            fields.remove(volatile);
        }
    }
    entry
}

async fn imds_entries(fake: &Fake) -> Vec<Value> {
    fake.journal()
        .await
        .into_iter()
        .filter(|e| e["surface"] == "imds")
        .collect()
}

#[tokio::test]
async fn imds_through_a_host_proxy_equals_the_direct_route() {
    let fake = Fake::start(&[]);
    let proxy = proxy_of(&fake, NODE).await;
    let through = Conn::open(&proxy).await.imds(INSTANCE).await;
    let straight = direct(&fake, NODE, INSTANCE, true).await;
    assert_eq!(through.status, 200, "{}", through.body);
    assert_eq!(through.content_type, straight.content_type);
    assert_eq!(through.json(), straight.json());
    assert_eq!(through.json()["compute"]["name"], NODE);
    // The journal cannot tell them apart.
    let entries = imds_entries(&fake).await;
    assert_eq!(entries.len(), 2, "{entries:?}");
    assert_eq!(comparable(&entries[0]), comparable(&entries[1]));
    assert_eq!(
        entries[0]["path"],
        format!("/imds/{NODE}/metadata/instance")
    );
    assert_eq!(entries[0]["operation"], "GET imds/metadata/instance");
    // Another node's proxy answers for that node.
    let master = proxy_of(&fake, "k8s-master-0").await;
    let other = Conn::open(&master).await.imds(INSTANCE).await;
    assert_eq!(other.json()["compute"]["name"], "k8s-master-0");
}

#[tokio::test]
async fn one_keep_alive_connection_carries_several_requests() {
    let fake = Fake::start(&[]);
    let proxy = proxy_of(&fake, NODE).await;
    let mut conn = Conn::open(&proxy).await;
    let first = conn.imds(INSTANCE).await;
    let second = conn
        .imds("/metadata/instance/compute/vmId?api-version=2021-10-01&format=text")
        .await;
    assert_eq!(first.status, 200);
    assert_eq!(second.status, 200, "{}", second.body);
    assert_eq!(first.json()["compute"]["vmId"], second.body.as_str());
    // Pipelined: two requests written at once, two answers in order on the same connection.
    let mut raw = TcpStream::connect(&proxy).await.expect("connect");
    let request = |path: &str, close: bool| {
        format!(
            "GET {IMDS}{path} HTTP/1.1\r\nHost: 169.254.169.254\r\nMetadata: true\r\n{}\r\n",
            if close { "Connection: close\r\n" } else { "" }
        )
    };
    let both = request("/metadata/versions", false)
        + &request(
            "/metadata/instance/compute/name?api-version=2021-10-01&format=text",
            true,
        );
    raw.write_all(both.as_bytes()).await.expect("write");
    let mut answers = String::new();
    tokio::time::timeout(Duration::from_secs(10), raw.read_to_string(&mut answers))
        .await
        .expect("answered in time")
        .expect("read");
    assert_eq!(answers.matches("HTTP/1.1 200 OK").count(), 2, "{answers}");
    let versions = answers.find("apiVersions").expect("versions first");
    let name = answers.rfind(NODE).expect("name second");
    assert!(versions < name, "{answers}");
}

#[tokio::test]
async fn imds_guards_apply_through_the_proxy_as_directly() {
    let fake = Fake::start(&[]);
    let proxy = proxy_of(&fake, NODE).await;
    let mut conn = Conn::open(&proxy).await;
    let missing = conn
        .send("GET", &format!("{IMDS}{INSTANCE}"), &[])
        .await
        .expect("answered");
    let straight = direct(&fake, NODE, INSTANCE, false).await;
    assert_eq!(missing.status, 400);
    assert_eq!(missing.status, straight.status);
    assert_eq!(missing.json(), straight.json());
    // A client-sent X-Forwarded-For is refused as IMDS refuses it; the proxy adds none itself.
    let forwarded = conn
        .send(
            "GET",
            &format!("{IMDS}{INSTANCE}"),
            &[("metadata", "true"), ("x-forwarded-for", "10.0.0.9")],
        )
        .await
        .expect("answered");
    assert_eq!(forwarded.status, 400);
    let no_version = conn.imds("/metadata/instance").await;
    assert_eq!((no_version.status, no_version.json()), {
        let d = direct(&fake, NODE, "/metadata/instance", true).await;
        (d.status, d.json())
    });
}

#[tokio::test]
async fn a_host_with_no_vm_answers_as_directly() {
    let fake = Fake::start(&[]);
    let host = "control-plane-0";
    let proxy = proxy_of(&fake, host).await;
    let mut conn = Conn::open(&proxy).await;
    for path in [INSTANCE, "/metadata/versions"] {
        let through = conn.imds(path).await;
        let straight = direct(&fake, host, path, true).await;
        assert_eq!(through.status, straight.status, "{path}");
        assert_eq!(through.body, straight.body, "{path}");
    }
    assert_eq!(conn.imds(INSTANCE).await.status, 404);
}

#[tokio::test]
async fn paths_outside_metadata_answer_as_directly() {
    let fake = Fake::start(&["--no-imds-rate-limits"]);
    let proxy = proxy_of(&fake, NODE).await;
    let mut conn = Conn::open(&proxy).await;
    for path in [
        "/",
        "/metadata",
        "/machine?comp=goalstate",
        "/metadata/nothing-here",
    ] {
        let through = conn.imds(path).await;
        let straight = direct(&fake, NODE, path, true).await;
        assert_eq!(through.status, 404, "{path}: {}", through.body);
        assert_eq!(
            (through.status, through.body),
            (straight.status, straight.body),
            "{path}"
        );
    }
}

#[tokio::test]
async fn an_imds_fault_applies_through_the_proxy() {
    let fake = Fake::start(&[]);
    let proxy = proxy_of(&fake, NODE).await;
    let (status, _) = fake
        .admin(
            Method::POST,
            "/admin/faults",
            Some(json!({"id": "imds-down", "path": "/imds/*/metadata/instance", "fault": {"kind": "status", "status": 503, "retryAfterSecs": 1}, "count": 1})),
        )
        .await;
    assert_eq!(status, 201);
    let mut conn = Conn::open(&proxy).await;
    let down = conn.imds(INSTANCE).await;
    assert_eq!(down.status, 503, "{}", down.body);
    let up = conn.imds(INSTANCE).await;
    assert_eq!(up.status, 200);
    let entries = imds_entries(&fake).await;
    assert_eq!(entries.len(), 2, "{entries:?}");
    assert_eq!(entries[0]["status"], 503);
    assert!(
        entries[0]["faults"].as_array().is_some_and(|f| f
            .iter()
            .any(|id| id.as_str().is_some_and(|id| id.starts_with("imds-down")))),
        "{entries:?}"
    );
    // A reset cuts the proxied connection as it cuts a direct one.
    let (status, _) = fake
        .admin(
            Method::POST,
            "/admin/faults",
            Some(json!({"path": "/imds/*/metadata/instance", "fault": {"kind": "reset"}, "count": 1})),
        )
        .await;
    assert_eq!(status, 201);
    assert!(
        conn.send("GET", &format!("{IMDS}{INSTANCE}"), &[("metadata", "true")])
            .await
            .is_err()
    );
}

#[tokio::test]
async fn other_targets_are_refused_and_journalled() {
    let fake = Fake::start(&[]);
    let proxy = proxy_of(&fake, NODE).await;
    for (method, target, status) in [
        ("GET", "http://example.com/", 403),
        ("GET", "http://169.254.169.254:8080/metadata/instance", 403),
        ("GET", "http://168.63.129.16/machine?comp=goalstate", 403),
        ("GET", "/metadata/instance", 400),
        ("CONNECT", "management.azure.com:443", 403),
        ("CONNECT", "169.254.169.254:80", 403),
    ] {
        // Refusals close the connection: one connection each.
        let answer = Conn::open(&proxy)
            .await
            .send(method, target, &[("metadata", "true")])
            .await
            .expect("answered");
        assert_eq!(answer.status, status, "{method} {target}: {}", answer.body);
        assert!(
            answer.body.starts_with("azure-fakes proxy: "),
            "{}",
            answer.body
        );
    }
    let journal = fake.journal().await;
    for (operation, status) in [
        ("GET http://example.com/", 403),
        ("GET /metadata/instance", 400),
        ("CONNECT management.azure.com:443", 403),
    ] {
        assert!(
            journal.iter().any(|e| e["surface"] == "proxy"
                && e["operation"] == operation
                && e["status"] == status),
            "{operation} is journalled: {journal:?}"
        );
    }
    assert!(imds_entries(&fake).await.is_empty(), "nothing reached IMDS");
}

#[tokio::test]
async fn an_entra_token_comes_through_a_host_proxy() {
    let fake = Fake::start(&[]);
    let proxy = proxy_of(&fake, NODE).await;
    let ca = fake
        .printed
        .iter()
        .find_map(|l| l.strip_prefix("ca: "))
        .expect("ca line");
    let pem = std::fs::read(ca).expect("CA file");
    // Should the proxy ever be bypassed, the public name resolves to a closed loopback port.
    let nowhere = SocketAddr::from(([127, 0, 0, 1], 9));
    let client = reqwest::Client::builder()
        .add_root_certificate(reqwest::Certificate::from_pem(&pem).expect("CA PEM"))
        .proxy(reqwest::Proxy::all(format!("http://{proxy}")).expect("proxy URL"))
        .resolve("login.microsoftonline.com", nowhere)
        .timeout(Duration::from_secs(20))
        .build()
        .expect("client");
    let response = client
        .post(format!(
            "https://login.microsoftonline.com/{}/oauth2/v2.0/token",
            fake.tenant
        ))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form(&[
            ("grant_type", "client_credentials"),
            ("client_id", CLIENT_ID),
            ("client_secret", CLIENT_SECRET),
            ("scope", "https://management.azure.com/.default"),
        ]))
        .send()
        .await
        .expect("token through the host proxy");
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.expect("token JSON");
    let token = body["access_token"].as_str().expect("access_token");
    let arm = fake.arm(token, Method::GET, &fake.rg_url(), None).await;
    assert_eq!(arm.status(), 200);
    let journal = fake.journal().await;
    assert!(
        journal.iter().any(|e| e["surface"] == "proxy"
            && e["operation"] == "CONNECT login.microsoftonline.com:443"
            && e["status"] == 200),
        "the tunnel is journalled: {journal:?}"
    );
}

#[tokio::test]
async fn starting_a_host_proxy_is_idempotent_and_checked() {
    let fake = Fake::start(&[]);
    let (first_status, first) = fake
        .admin(Method::POST, "/admin/proxies", Some(json!({"host": NODE})))
        .await;
    assert_eq!(first_status, 201, "{first}");
    let (again_status, again) = fake
        .admin(Method::POST, "/admin/proxies", Some(json!({"host": NODE})))
        .await;
    assert_eq!(again_status, 200);
    assert_eq!(again, first);
    let (_, upper) = fake
        .admin(
            Method::POST,
            "/admin/proxies",
            Some(json!({"host": NODE.to_ascii_uppercase()})),
        )
        .await;
    assert_eq!(
        upper, first,
        "host names are matched without regard to case"
    );
    let (_, other) = fake
        .admin(
            Method::POST,
            "/admin/proxies",
            Some(json!({"host": "k8s-master-0"})),
        )
        .await;
    assert_ne!(other["url"], first["url"]);
    let (status, listed) = fake.admin(Method::GET, "/admin/proxies", None).await;
    assert_eq!(status, 200);
    assert_eq!(listed, json!({"proxies": [first, other]}));
    for (body, says) in [
        (json!({}), "missing field `host`"),
        (json!({"host": 7}), "invalid type"),
        (json!({"host": NODE, "port": 1}), "unknown field `port`"),
        (
            json!({"host": "a/b"}),
            "field 'host': 'a/b' is not a host name",
        ),
        (json!({"host": ""}), "field 'host'"),
    ] {
        let message = fake
            .admin_refused(Method::POST, "/admin/proxies", Some(body.clone()))
            .await;
        assert!(message.contains(says), "{body}: {message}");
        assert!(message.contains("accepted: "), "{body}: {message}");
    }
}

#[tokio::test]
async fn deleting_a_host_proxy_stops_its_listener() {
    let fake = Fake::start(&[]);
    let proxy = proxy_of(&fake, NODE).await;
    let mut open = Conn::open(&proxy).await;
    assert_eq!(open.imds(INSTANCE).await.status, 200);
    let (status, _) = fake
        .admin(Method::DELETE, &format!("/admin/proxies/{NODE}"), None)
        .await;
    assert_eq!(status, 204);
    assert!(
        TcpStream::connect(&proxy).await.is_err(),
        "nothing listens on {proxy} any more"
    );
    assert!(
        open.send("GET", &format!("{IMDS}{INSTANCE}"), &[("metadata", "true")])
            .await
            .is_err(),
        "an open connection is cut"
    );
    let (status, listed) = fake.admin(Method::GET, "/admin/proxies", None).await;
    assert_eq!((status, listed), (200, json!({"proxies": []})));
    let (status, body) = fake
        .admin(Method::DELETE, &format!("/admin/proxies/{NODE}"), None)
        .await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(body["error"]["code"], "ProxyNotFound");
    // Started again, it serves again (on a new port).
    let again = proxy_of(&fake, NODE).await;
    assert_eq!(Conn::open(&again).await.imds(INSTANCE).await.status, 200);
}

#[tokio::test]
async fn shutting_the_fake_down_stops_every_host_proxy() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cloud = azure_fakes::cloud::FakeCloud::start(azure_fakes::cloud::CloudConfig {
        tls_dir: dir.path().join("tls"),
        ..Default::default()
    })
    .await
    .expect("fake cloud");
    let mut addrs = Vec::new();
    for host in ["node-a", "node-b"] {
        let started = cloud.host_proxies().start(host).await.expect("proxy");
        addrs.push(started.proxy.url.trim_start_matches("http://").to_owned());
    }
    // A host with no VM (the cloud has none) still gets IMDS's answer through its proxy.
    let answer = Conn::open(&addrs[0]).await.imds(INSTANCE).await;
    assert_eq!(answer.status, 404);
    cloud.shutdown().await.expect("shutdown");
    for addr in &addrs {
        assert!(
            TcpStream::connect(addr).await.is_err(),
            "{addr} still listens"
        );
    }
}
