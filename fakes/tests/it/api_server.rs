//! Starts the real `azure-fakes kube-apiserver` on 127.0.0.1 and drives it with `/usr/bin/kubectl`
//! through the kubeconfig it writes.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// A running `azure-fakes kube-apiserver` and the directory holding its kubeconfig and data file.
pub struct ApiServer {
    child: Child,
    dir: PathBuf,
}

impl ApiServer {
    /// Starts the binary (kubeconfig and `--data` file in `dir`) and waits for the "kubeconfig written" line.
    pub fn start(dir: &Path) -> ApiServer {
        let mut child = Command::new(env!("CARGO_BIN_EXE_azure-fakes"))
            .arg("kube-apiserver")
            .args(["--listen", "127.0.0.1:0", "--kubeconfig-out"])
            .arg(dir.join("kubeconfig"))
            .arg("--data")
            .arg(dir.join("objects.json"))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn azure-fakes kube-apiserver");
        let stdout = child.stdout.take().expect("stdout");
        let mut printed = Vec::new();
        for line in BufReader::new(stdout).lines() {
            let line = line.expect("read stdout");
            let done = line.contains("kubeconfig written to");
            printed.push(line);
            if done {
                break;
            }
        }
        assert!(
            printed
                .iter()
                .any(|l| l.contains("serving on https://127.0.0.1:")),
            "URL not printed: {printed:?}"
        );
        ApiServer {
            child,
            dir: dir.to_path_buf(),
        }
    }

    /// Runs kubectl against the written kubeconfig, feeding `stdin`: (success, stdout + stderr).
    pub fn kubectl(&self, args: &[&str], stdin: Option<&str>) -> (bool, String) {
        kubectl(&self.dir, args, stdin)
    }

    /// kubectl that must succeed: its stdout.
    pub fn kubectl_ok(&self, args: &[&str], stdin: Option<&str>) -> String {
        let (ok, out) = self.kubectl(args, stdin);
        assert!(ok, "kubectl {args:?}: {out}");
        out
    }

    /// Stops it the way an operator would (SIGTERM) and waits for a clean exit.
    pub fn terminate(mut self) {
        let pid = self.child.id().to_string();
        let status = Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .expect("kill");
        assert!(status.success());
        let exit = self.child.wait().expect("wait");
        assert!(exit.success(), "exit after SIGTERM: {exit:?}");
    }
}

impl Drop for ApiServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs kubectl against `dir/kubeconfig`, feeding `stdin`: (success, stdout + stderr).
pub fn kubectl(dir: &Path, args: &[&str], stdin: Option<&str>) -> (bool, String) {
    let mut child = Command::new("kubectl")
        .arg("--kubeconfig")
        .arg(dir.join("kubeconfig"))
        .arg("--request-timeout=20s")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn kubectl");
    if let Some(input) = stdin {
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(input.as_bytes())
            .expect("write stdin");
    } else {
        drop(child.stdin.take());
    }
    let output = child.wait_with_output().expect("kubectl output");
    let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&output.stderr));
    (output.status.success(), text)
}
