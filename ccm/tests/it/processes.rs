//! Starts the real `azure-fakes` binary (`serve` and `kube-apiserver`) and the binary under test,
//! the minimal start code of `ccm/azure/tests/it/fake_azure.rs` and
//! `ccm/controllers/tests/it/api_server.rs` (test modules cannot be shared across packages).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;

/// An example topology under `fakes/examples/`.
pub fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fakes/examples")
        .join(name)
}

/// The `azure-fakes` binary next to this test binary, built with `cargo build -p azure-fakes` when
/// missing.
fn azure_fakes() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let exe = std::env::current_exe().expect("test binary path");
        let profile_dir = exe
            .parent()
            .and_then(Path::parent)
            .expect("target/<profile>");
        let bin = profile_dir.join("azure-fakes");
        if bin.exists() {
            return bin;
        }
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let status = Command::new(cargo)
            .args([
                "build",
                "--quiet",
                "-p",
                "azure-fakes",
                "--bin",
                "azure-fakes",
            ])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .expect("cargo build -p azure-fakes");
        assert!(status.success(), "building azure-fakes failed");
        bin
    })
}

/// Reads stdout lines until one satisfies `done`, then keeps draining it on a thread.
fn read_until(child: &mut Child, done: impl Fn(&str) -> bool) -> Vec<String> {
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
    std::thread::spawn(move || for _ in lines {});
    printed
}

/// A running `azure-fakes serve`; killed on drop.
pub struct FakeAzure {
    child: Child,
    /// `https://127.0.0.1:PORT`: ARM, Entra ID, admin.
    pub base: String,
    /// Tenant of the topology.
    pub tenant: String,
    /// Subscription of the topology.
    pub subscription: String,
    /// PEM of the CA the fake's certificate chains to (what `SSL_CERT_FILE` points at).
    pub ca_file: PathBuf,
    /// Per-node IMDS base URLs, by node name.
    pub imds: Vec<(String, String)>,
    _dir: tempfile::TempDir,
}

impl FakeAzure {
    /// Starts `azure-fakes serve --topology <topology>` and waits for `ready`.
    pub fn start(topology: &Path) -> FakeAzure {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut child = Command::new(azure_fakes())
            .arg("serve")
            .arg("--topology")
            .arg(topology)
            .args(["--listen", "127.0.0.1:0", "--tls-dir"])
            .arg(dir.path().join("tls"))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn azure-fakes serve");
        let printed = read_until(&mut child, |l| l == "ready");
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
        FakeAzure {
            base: field("arm").trim_end_matches('/').to_string(),
            tenant: field("tenant"),
            subscription: field("subscription"),
            ca_file: PathBuf::from(field("ca")),
            imds,
            child,
            _dir: dir,
        }
    }

    /// The fake's request journal entries (`GET /admin/journal`).
    pub async fn journal(&self) -> Vec<serde_json::Value> {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let ca = std::fs::read(&self.ca_file).expect("CA file");
        let http = reqwest::Client::builder()
            .tls_certs_merge([reqwest::Certificate::from_pem(&ca).expect("CA PEM")])
            .build()
            .expect("client");
        let body: serde_json::Value = http
            .get(format!("{}/admin/journal", self.base))
            .send()
            .await
            .expect("journal request")
            .json()
            .await
            .expect("journal JSON");
        body["entries"].as_array().expect("entries").clone()
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
        let dir = tempfile::tempdir().expect("tempdir");
        let mut child = Command::new(azure_fakes())
            .arg("kube-apiserver")
            .args(["--listen", "127.0.0.1:0", "--kubeconfig-out"])
            .arg(dir.path().join("kubeconfig"))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn azure-fakes kube-apiserver");
        let printed = read_until(&mut child, |l| l.contains("kubeconfig written to"));
        assert!(
            printed.iter().any(|l| l.contains("kubeconfig written to")),
            "not ready: {printed:?}"
        );
        ApiServer { child, dir }
    }

    /// The kubeconfig file the server wrote.
    pub fn kubeconfig(&self) -> PathBuf {
        self.dir.path().join("kubeconfig")
    }

    /// A kube client from that kubeconfig.
    pub async fn client(&self) -> kube::Client {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let file = kube::config::Kubeconfig::read_from(self.kubeconfig()).expect("kubeconfig");
        let config = kube::Config::from_custom_kubeconfig(file, &Default::default())
            .await
            .expect("kube config");
        kube::Client::try_from(config).expect("kube client")
    }
}

impl Drop for ApiServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `cloud-node-manager` binary of this package.
pub fn cloud_node_manager() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cloud-node-manager"))
}
