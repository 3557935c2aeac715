//! Starts the real `azure-fakes serve` binary on 127.0.0.1 with a topology and a fresh TLS dir and
//! reads the endpoints it prints, so the provider is tested against a separate process over HTTPS.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;

use serde_json::Value;

/// The example topologies under `fakes/examples/`.
pub fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fakes/examples")
        .join(name)
}

/// Path of the `azure-fakes` binary in this test binary's target dir; built with `cargo build -p azure-fakes`
/// when missing (after editing `fakes/`, a `cargo test -p ccm-azure` run needs that build by hand).
pub fn binary() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let exe = std::env::current_exe().expect("test binary path");
        // target/<profile>/deps/<test> -> target/<profile>/azure-fakes
        let profile_dir = exe
            .parent()
            .and_then(Path::parent)
            .expect("target/<profile>");
        let bin = profile_dir.join("azure-fakes");
        if bin.exists() {
            // `cargo test --workspace` built it with the workspace's unified features; building it again
            // here with `-p` could rebuild it with other features.
            return bin;
        }
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        // The bench (target/release) needs a release build; tests a debug one.
        let release = profile_dir.file_name().is_some_and(|n| n == "release");
        let status = Command::new(cargo)
            .args([
                "build",
                "--quiet",
                "-p",
                "azure-fakes",
                "--bin",
                "azure-fakes",
            ])
            .args(release.then_some("--release"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .expect("cargo build -p azure-fakes");
        assert!(status.success(), "building azure-fakes failed");
        assert!(bin.exists(), "azure-fakes not at {}", bin.display());
        bin
    })
}

/// A running `azure-fakes serve`; killed on drop.
pub struct FakeAzure {
    child: Child,
    /// `https://127.0.0.1:PORT` (no trailing slash): ARM, Entra ID, metadata endpoints, admin.
    pub base: String,
    /// Tenant of the topology.
    pub tenant: String,
    /// Subscription of the topology.
    pub subscription: String,
    /// PEM file of the CA the fake's certificate chains to (what `SSL_CERT_FILE` points at).
    pub ca_file: PathBuf,
    /// Per-node IMDS base URLs (`https://127.0.0.1:PORT/imds/<node>`), by node name.
    pub imds: Vec<(String, String)>,
    /// HTTPS client trusting the fake's CA, for admin calls.
    pub http: reqwest::Client,
    _dir: tempfile::TempDir,
}

impl FakeAzure {
    /// Starts `azure-fakes serve --topology <topology> <extra>` and waits for `ready`.
    pub fn start(topology: &Path, extra: &[&str]) -> FakeAzure {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut child = Command::new(binary())
            .arg("serve")
            .arg("--topology")
            .arg(topology)
            .args(["--listen", "127.0.0.1:0", "--tls-dir"])
            .arg(dir.path().join("tls"))
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
        let imds = printed
            .iter()
            .filter_map(|l| l.strip_prefix("imds "))
            .filter_map(|l| l.split_once(": "))
            .map(|(node, url)| (node.to_string(), url.to_string()))
            .collect();
        let ca_file = PathBuf::from(field("ca"));
        let ca = std::fs::read(&ca_file).expect("CA file");
        // One TLS stack in the workspace: rustls with ring (a second install attempt is harmless).
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .add_root_certificate(reqwest::Certificate::from_pem(&ca).expect("CA PEM"))
            .build()
            .expect("client");
        FakeAzure {
            child,
            base: field("arm").trim_end_matches('/').to_string(),
            tenant: field("tenant"),
            subscription: field("subscription"),
            ca_file,
            imds,
            http,
            _dir: dir,
        }
    }

    /// Admin API call (loopback, no token): (status, JSON body or `Null`).
    pub async fn admin(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> (u16, Value) {
        let mut request = self.http.request(method, format!("{}{path}", self.base));
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.expect("admin request");
        let status = response.status().as_u16();
        let text = response.text().await.expect("admin body");
        let body = if text.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&text).expect("admin JSON")
        };
        (status, body)
    }

    /// The fake's request journal (`GET /admin/journal`): every request with method, path, status, surface.
    pub async fn journal(&self) -> Value {
        self.admin(reqwest::Method::GET, "/admin/journal", None)
            .await
            .1
    }
}

impl Drop for FakeAzure {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
