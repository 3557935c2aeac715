//! Starts the real `azure-fakes kube-apiserver` on 127.0.0.1 and builds kube clients from the
//! kubeconfig it writes.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;

/// Path of the `azure-fakes` binary next to this test binary; built with `cargo build -p azure-fakes`
/// when missing (as `ccm/azure/tests/it/fake_azure.rs` does).
fn binary() -> &'static Path {
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

/// A running `azure-fakes kube-apiserver`; killed on drop.
pub struct ApiServer {
    child: Child,
    dir: tempfile::TempDir,
}

impl ApiServer {
    /// Starts it on a free port and waits for "kubeconfig written to".
    pub fn start() -> ApiServer {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut child = Command::new(binary())
            .arg("kube-apiserver")
            .args(["--listen", "127.0.0.1:0", "--kubeconfig-out"])
            .arg(dir.path().join("kubeconfig"))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn azure-fakes kube-apiserver");
        let stdout = child.stdout.take().expect("stdout");
        let mut lines = BufReader::new(stdout).lines();
        let mut printed = Vec::new();
        for line in lines.by_ref() {
            let line = line.expect("read stdout");
            let done = line.contains("kubeconfig written to");
            printed.push(line);
            if done {
                break;
            }
        }
        assert!(
            printed.iter().any(|l| l.contains("kubeconfig written to")),
            "not ready: {printed:?}"
        );
        // Keep draining so the server never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        ApiServer { child, dir }
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
        let kubeconfig = kube::config::Kubeconfig::read_from(self.dir.path().join("kubeconfig"))
            .expect("kubeconfig");
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
