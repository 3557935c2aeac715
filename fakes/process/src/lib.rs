//! Test support shared by the crates that test against the fakes from outside `fakes/`: starts the
//! real `azure-fakes` binary (`serve`, `kube-apiserver`) on 127.0.0.1 as a separate process and reads
//! the endpoints it prints, so providers, controllers and binaries are tested over HTTPS against a
//! process, like the CCM in production. Panics on failure: it is only used by tests and benches.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;

use serde_json::Value;

mod journal;
mod lease_history;
mod logged;
pub mod screenshot;
mod services;
mod small;
mod topology_apps;
mod wait;

pub use journal::{ArmWrite, arm_writes, writes_by, writes_out_of_turn};
pub use lease_history::{LeaseHistory, LeaseRecord, Tenure, lease_holder, overlaps, tenures};
pub use logged::LoggedProcess;
pub use services::{has_ingress, ingress_ip, load_balancer_service, tcp_port};
pub use small::{agent_nodes, small_azure_json, small_cluster};
pub use topology_apps::with_app;
pub use wait::wait_for;

/// An example topology under `fakes/examples/`.
pub fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples")
        .join(name)
}

/// Path of the `azure-fakes` binary in the running test's target dir (`target/<profile>/`), built with
/// `cargo build -p azure-fakes` (with `--release` for benches) when missing. A `--workspace` run has
/// built it with the workspace's unified features; after editing `fakes/`, a `-p` run needs
/// `cargo build -p azure-fakes` by hand.
pub fn binary() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| workspace_binary("azure-fakes", "azure-fakes"))
}

/// Path of the binary `bin` of the workspace package `package` next to the running test
/// (`target/<profile>/<bin>`), built with `cargo build -p <package> --bin <bin>` (with `--release`
/// for benches) when missing, for tests that run another package's binary as a process.
pub fn workspace_binary(package: &str, bin: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    // target/<profile>/deps/<test> -> target/<profile>/<bin>
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>");
    let path = profile_dir.join(bin);
    if path.exists() {
        return path;
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let release = profile_dir.file_name().is_some_and(|n| n == "release");
    let status = Command::new(cargo)
        .args(["build", "--quiet", "-p", package, "--bin", bin])
        .args(release.then_some("--release"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .unwrap_or_else(|e| panic!("cargo build -p {package}: {e}"));
    assert!(status.success(), "building {bin} of {package} failed");
    assert!(path.exists(), "{bin} not at {}", path.display());
    path
}

/// Installs ring as rustls' provider (the workspace's one TLS stack); a second call is harmless.
fn install_ring() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// Spawns `azure-fakes <args>` and reads stdout until a line satisfies `done`; the rest of stdout is
/// drained on a thread so the process never blocks on a full pipe.
fn spawn(args: &[&std::ffi::OsStr], done: impl Fn(&str) -> bool) -> (Child, Vec<String>) {
    let mut child = Command::new(binary())
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn azure-fakes");
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = BufReader::new(stdout).lines();
    let mut printed = Vec::new();
    for line in lines.by_ref() {
        let line = line.expect("read stdout");
        let finished = done(&line);
        printed.push(line);
        if finished {
            break;
        }
    }
    assert!(
        printed.last().is_some_and(|l| done(l)),
        "azure-fakes exited before it was ready: {printed:?}"
    );
    std::thread::spawn(move || for _ in lines {});
    (child, printed)
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
        let tls = dir.path().join("tls");
        let mut args: Vec<&std::ffi::OsStr> = vec![
            "serve".as_ref(),
            "--topology".as_ref(),
            topology.as_os_str(),
            "--listen".as_ref(),
            "127.0.0.1:0".as_ref(),
            "--tls-dir".as_ref(),
            tls.as_os_str(),
        ];
        args.extend(extra.iter().map(std::ffi::OsStr::new));
        let (child, printed) = spawn(&args, |l| l == "ready");
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
        install_ring();
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

    /// The fake's request journal (`GET /admin/journal`): `{"entries": [...]}`, each entry with
    /// method, path, status and surface.
    pub async fn journal(&self) -> Value {
        self.admin(reqwest::Method::GET, "/admin/journal", None)
            .await
            .1
    }

    /// The ARM writes in the journal, in order, with their time and `User-Agent`.
    pub async fn arm_writes(&self) -> Vec<ArmWrite> {
        arm_writes(&self.journal().await)
    }
}

impl Drop for FakeAzure {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A running `azure-fakes kube-apiserver`; killed on drop.
pub struct ApiServer {
    child: Child,
    dir: tempfile::TempDir,
}

impl ApiServer {
    /// Starts it on a free port and waits for "kubeconfig written to".
    pub fn start() -> ApiServer {
        Self::start_with(&[])
    }

    /// Starts it with extra flags (e.g. `["--audit-log-path", path]`).
    pub fn start_with(extra: &[&str]) -> ApiServer {
        let dir = tempfile::tempdir().expect("tempdir");
        let kubeconfig = dir.path().join("kubeconfig");
        let mut args: Vec<&std::ffi::OsStr> = vec![
            "kube-apiserver".as_ref(),
            "--listen".as_ref(),
            "127.0.0.1:0".as_ref(),
            "--kubeconfig-out".as_ref(),
            kubeconfig.as_os_str(),
        ];
        args.extend(extra.iter().map(std::ffi::OsStr::new));
        let (child, _) = spawn(&args, |l| l.contains("kubeconfig written to"));
        ApiServer { child, dir }
    }

    /// A kubeconfig for `user` (client certificate from the server's CA, `group` as O), as a
    /// component authenticating with its own identity would have; written next to the admin one.
    pub async fn kubeconfig_for(&self, user: &str, group: Option<&str>) -> PathBuf {
        let ca_dir = self.dir.path().join("kube-apiserver-tls");
        let pki = fake_tls::Pki::load_or_create(&ca_dir, "unused").expect("the server's CA");
        let issued = pki.issue_client(user, group).expect("client certificate");
        let slug: String = user
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let file = |suffix: &str, text: &str| {
            let path = self.dir.path().join(format!("{slug}.{suffix}"));
            std::fs::write(&path, text).expect("write credential");
            path
        };
        let cert = file("crt", &issued.cert_pem);
        let key = file("key", &issued.key_pem);
        let ca = file("ca.crt", pki.ca_pem());
        let server = self.config().await.cluster_url.to_string();
        // JSON is YAML: every kubeconfig reader accepts it.
        let doc = serde_json::json!({
            "apiVersion": "v1", "kind": "Config",
            "clusters": [{"name": "fake", "cluster": {"server": server.trim_end_matches('/'), "certificate-authority": ca}}],
            "users": [{"name": user, "user": {"client-certificate": cert, "client-key": key}}],
            "contexts": [{"name": "fake", "context": {"cluster": "fake", "user": user}}],
            "current-context": "fake",
        });
        file("kubeconfig", &doc.to_string())
    }

    /// The kubeconfig file the server wrote.
    pub fn kubeconfig(&self) -> PathBuf {
        self.dir.path().join("kubeconfig")
    }

    /// A new kube client (its own connection pool, like a separate process would have).
    pub async fn client(&self) -> kube::Client {
        kube::Client::try_from(self.config().await).expect("kube client")
    }

    /// A kube client that reaches the server through `proxy` (same TLS identity, other port).
    pub async fn client_via(&self, proxy: SocketAddr) -> kube::Client {
        let mut config = self.config().await;
        config.cluster_url = format!("https://{proxy}").parse().expect("proxy url");
        kube::Client::try_from(config).expect("kube client")
    }

    /// The server's address, from the kubeconfig.
    pub async fn addr(&self) -> SocketAddr {
        let config = self.config().await;
        let host = config.cluster_url.host().expect("host");
        let port = config.cluster_url.port_u16().expect("port");
        format!("{host}:{port}").parse().expect("socket address")
    }

    async fn config(&self) -> kube::Config {
        install_ring();
        let kubeconfig =
            kube::config::Kubeconfig::read_from(self.kubeconfig()).expect("kubeconfig");
        kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
            .await
            .expect("kube config")
    }

    /// Kills the server: every later request fails.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for ApiServer {
    fn drop(&mut self) {
        self.kill();
    }
}
