//! Starts the real `azure-fakes kube-apiserver` as a process on 127.0.0.1 and hands out a kube
//! `Client` built from the kubeconfig it writes.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::{Client, Config};

/// Path of the `azure-fakes` binary next to this test binary's profile dir; built with
/// `cargo build -p azure-fakes` when missing.
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

/// A running embedded API server; killed on drop.
pub struct KubeApi {
    child: Child,
    _dir: tempfile::TempDir,
    /// Client authenticated with the written kubeconfig.
    pub client: Client,
}

impl KubeApi {
    /// Starts the process and waits until it printed that the kubeconfig is written.
    pub async fn start() -> KubeApi {
        let dir = tempfile::tempdir().expect("tempdir");
        let kubeconfig = dir.path().join("kubeconfig");
        let mut child = Command::new(binary())
            .arg("kube-apiserver")
            .args(["--listen", "127.0.0.1:0", "--kubeconfig-out"])
            .arg(&kubeconfig)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn azure-fakes kube-apiserver");
        let stdout = child.stdout.take().expect("stdout");
        let mut lines = BufReader::new(stdout).lines();
        loop {
            let line = lines
                .next()
                .expect("kube-apiserver exited before writing its kubeconfig")
                .expect("read stdout");
            if line.contains("kubeconfig written to") {
                break;
            }
        }
        // Keep draining stdout so the server never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        let file = Kubeconfig::read_from(&kubeconfig).expect("read kubeconfig");
        let config = Config::from_custom_kubeconfig(file, &KubeConfigOptions::default())
            .await
            .expect("kubeconfig to config");
        let client = Client::try_from(config).expect("client");
        KubeApi {
            child,
            _dir: dir,
            client,
        }
    }
}

impl Drop for KubeApi {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Polls `probe` until it yields a value; panics with `what` after a generous minute (a hang
/// guard, not a timing assertion).
pub async fn wait_for<T, F, Fut>(what: &str, mut probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    for _ in 0..600 {
        if let Some(value) = probe().await {
            return value;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("timed out waiting for {what}");
}
