//! Test fixture: an in-process server with a kubeconfig in a temp dir, a bounded runner for the
//! real kubectl, and a kube-rs client built from the same kubeconfig.

use std::path::PathBuf;
use std::process::{Output, Stdio};
use std::time::Duration;

use fake_kube_apiserver::{ApiServerConfig, RunningApiServer, start};
use tokio::io::AsyncWriteExt;

/// The kubectl installed on the machine.
pub const KUBECTL: &str = "/usr/bin/kubectl";

/// A started server plus its temp dir (kubeconfig, TLS material, data file).
pub struct Fixture {
    pub server: RunningApiServer,
    pub dir: tempfile::TempDir,
}

impl Fixture {
    /// A fresh server on a free loopback port, persisting into its temp dir.
    pub async fn start() -> Self {
        Self::start_with(|_| {}).await
    }

    /// A fresh server whose configuration `tune` adjusts (bookmark interval, ...).
    pub async fn start_with(tune: impl FnOnce(&mut ApiServerConfig)) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let mut config = Self::config_in(&dir);
        tune(&mut config);
        let server = start(config).await.unwrap();
        Self { server, dir }
    }

    fn config_in(dir: &tempfile::TempDir) -> ApiServerConfig {
        ApiServerConfig {
            tls_dir: Some(dir.path().join("tls")),
            kubeconfig_out: Some(dir.path().join("kubeconfig")),
            data_file: Some(dir.path().join("state.json")),
            persist_interval: Duration::from_millis(20),
            ..ApiServerConfig::default()
        }
    }

    /// Stops the server and starts a new one on the same address, CA and data file.
    pub async fn restart(self) -> Self {
        let addr = self.server.local_addr();
        self.server.shutdown().await.unwrap();
        let dir = self.dir;
        for _ in 0..50 {
            let config = ApiServerConfig {
                listen: addr,
                ..Self::config_in(&dir)
            };
            match start(config).await {
                Ok(server) => return Self { server, dir },
                Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        }
        panic!("could not rebind {addr}");
    }

    pub fn kubeconfig(&self) -> PathBuf {
        self.dir.path().join("kubeconfig")
    }

    /// Runs kubectl with `args` (bounded: request timeout and a hard deadline).
    pub async fn kubectl(&self, args: &[&str]) -> Output {
        self.kubectl_stdin(args, None).await
    }

    /// Runs kubectl with `stdin` piped in (for `-f -`).
    pub async fn kubectl_stdin(&self, args: &[&str], stdin: Option<&str>) -> Output {
        let mut child = self
            .kubectl_command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("kubectl is installed at /usr/bin/kubectl");
        let mut input = child.stdin.take().unwrap();
        if let Some(text) = stdin {
            input.write_all(text.as_bytes()).await.unwrap();
        }
        drop(input);
        tokio::time::timeout(Duration::from_secs(60), child.wait_with_output())
            .await
            .unwrap_or_else(|_| panic!("kubectl {args:?} did not finish in 60s"))
            .unwrap()
    }

    /// Runs kubectl and fails the test unless it exits 0; returns stdout.
    pub async fn kubectl_ok(&self, args: &[&str]) -> String {
        let out = self.kubectl(args).await;
        assert_ok(args, &out);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// `kubectl apply -f -` of `yaml` plus `extra` flags; fails the test unless it exits 0.
    pub async fn apply(&self, yaml: &str, extra: &[&str]) -> String {
        let mut args = vec!["apply", "-f", "-"];
        args.extend_from_slice(extra);
        let out = self.kubectl_stdin(&args, Some(yaml)).await;
        assert_ok(&args, &out);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// `kubectl get <args> -o json`, parsed; fails the test unless kubectl exits 0.
    pub async fn get_json(&self, args: &[&str]) -> serde_json::Value {
        let mut all = vec!["get"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["-o", "json"]);
        json_of(&self.kubectl_ok(&all).await)
    }

    /// `kubectl patch <kind> <name> --type=merge -p <patch>`; fails the test unless it exits 0.
    pub async fn merge_patch(&self, kind: &str, name: &str, patch: &str) -> String {
        self.kubectl_ok(&["patch", kind, name, "--type=merge", "-p", patch])
            .await
    }

    /// The same JSON merge patch sent to the status subresource (`--subresource=status`), as a
    /// controller writes status.
    pub async fn merge_patch_status(&self, kind: &str, name: &str, patch: &str) -> String {
        self.kubectl_ok(&[
            "patch",
            kind,
            name,
            "--subresource=status",
            "--type=merge",
            "-p",
            patch,
        ])
        .await
    }

    /// A kubectl command with this server's kubeconfig and a private cache dir.
    pub fn kubectl_command(&self, args: &[&str]) -> tokio::process::Command {
        let mut cmd = tokio::process::Command::new(KUBECTL);
        cmd.arg("--kubeconfig")
            .arg(self.kubeconfig())
            .arg("--cache-dir")
            .arg(self.dir.path().join("kube-cache"))
            .arg("--request-timeout=20s")
            .args(args)
            .kill_on_drop(true);
        cmd
    }

    /// A kube-rs client from the written kubeconfig.
    pub async fn client(&self) -> kube::Client {
        kube::Client::try_from(self.client_config().await).unwrap()
    }

    /// The kube-rs configuration `client` uses, for tests that adjust it.
    pub async fn client_config(&self) -> kube::Config {
        let kubeconfig = kube::config::Kubeconfig::read_from(self.kubeconfig()).unwrap();
        kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
            .await
            .unwrap()
    }
}

/// A raw HTTP answer: status, `Warning` header texts and the JSON body.
pub struct Raw {
    pub status: u16,
    pub warnings: Vec<String>,
    pub body: serde_json::Value,
}

impl Fixture {
    /// Sends one request through kube-rs's transport (TLS and auth from the kubeconfig) and
    /// returns the answer whatever its status.
    pub async fn raw(&self, method: &str, path: &str, content_type: &str, body: &str) -> Raw {
        let request = http::Request::builder()
            .method(method)
            .uri(path)
            .header("content-type", content_type)
            .body(kube::client::Body::from(body.as_bytes().to_vec()))
            .unwrap();
        let response = self.client().await.send(request).await.unwrap();
        let status = response.status().as_u16();
        let warnings = response
            .headers()
            .get_all("warning")
            .iter()
            .map(|v| v.to_str().unwrap().to_string())
            .collect();
        let bytes = response.into_body().collect_bytes().await.unwrap();
        Raw {
            status,
            warnings,
            body: serde_json::from_slice(&bytes).unwrap_or(serde_json::Value::Null),
        }
    }
}

/// Fails with kubectl's output unless it exited 0.
/// Parses kubectl's `-o json` output, showing the text when it is not JSON.
pub fn json_of(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

pub fn assert_ok(args: &[&str], out: &Output) {
    assert!(
        out.status.success(),
        "kubectl {args:?} failed: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
}

/// Polls `check` every 50 ms for up to 20 s.
pub async fn eventually<F, Fut>(what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    for _ in 0..400 {
        if check().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("timed out waiting for {what}");
}
