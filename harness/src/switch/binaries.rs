//! Which CCM and CNM builds a run tests: ours (found next to the harness or on `$PATH`, see
//! [`crate::supervisor::find_binary`]) unless `harness run --ccm-binary/--cnm-binary` names
//! another build (e.g. the upstream Azure CCM). A given binary gets the same flags and azure.json
//! as ours, plus `HTTPS_PROXY` (the fake's CONNECT proxy, so an MSAL client's instance discovery
//! at `login.microsoftonline.com` is answered offline) with `NO_PROXY=127.0.0.1,localhost` (the
//! fake and the API server stay direct); every manager gets the fake's CA as `SSL_CERT_FILE`.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::roster::ManagerKind;
use crate::supervisor::{LookupError, find_binary};

/// `NO_PROXY` of a given binary: everything the embedded cluster serves is on the loopback.
pub const NO_PROXY: &str = "127.0.0.1,localhost";

/// A `--ccm-binary`/`--cnm-binary` path that cannot be run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{flag} {}: {reason}", path.display())]
pub struct BadBinary {
    /// The flag that named it.
    pub flag: &'static str,
    /// The path given.
    pub path: PathBuf,
    /// What is wrong with it.
    pub reason: String,
}

/// The CCM and CNM binaries to start; `None` = ours.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ManagerBinaries {
    /// `--ccm-binary`.
    pub ccm: Option<PathBuf>,
    /// `--cnm-binary`.
    pub cnm: Option<PathBuf>,
}

/// One binary as recorded in a run's artifacts (`binaries.json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BinaryRecord {
    /// Absolute path of the binary the run started.
    pub path: PathBuf,
    /// True when given on the command line, false for ours found by lookup.
    pub given: bool,
    /// The version the binary reports with `--version` (its first line's last word, e.g.
    /// `v1.31.2`), when it answers; the TestGrid `ccm-version` header of the run.
    pub version: Option<String>,
}

/// The binaries of a run, for `binaries.json` (so a report says what was tested).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct BinariesRecord {
    /// The cloud-controller-manager.
    pub cloud_controller_manager: BinaryRecord,
    /// The cloud-node-manager.
    pub cloud_node_manager: BinaryRecord,
}

impl ManagerBinaries {
    /// Checks each given path exists and is an executable file; the error names the flag.
    pub fn validated(ccm: Option<&Path>, cnm: Option<&Path>) -> Result<Self, BadBinary> {
        let check =
            |flag: &'static str, path: Option<&Path>| path.map(|p| executable(flag, p)).transpose();
        Ok(Self {
            ccm: check("--ccm-binary", ccm)?,
            cnm: check("--cnm-binary", cnm)?,
        })
    }

    /// The binary given for `kind`, if any (the stand-in KCM is always ours).
    pub fn given(&self, kind: ManagerKind) -> Option<&Path> {
        match kind {
            ManagerKind::CloudControllerManager => self.ccm.as_deref(),
            ManagerKind::CloudNodeManager => self.cnm.as_deref(),
            ManagerKind::KubeControllerManager => None,
        }
    }

    /// What the run starts for each manager, resolving ours by lookup.
    pub fn record(&self) -> Result<BinariesRecord, LookupError> {
        let one = |given: &Option<PathBuf>, ours: &str| -> Result<BinaryRecord, LookupError> {
            Ok(match given {
                Some(path) => BinaryRecord {
                    path: path.clone(),
                    given: true,
                    version: reported_version(path),
                },
                None => {
                    let path = find_binary(ours)?;
                    BinaryRecord {
                        version: reported_version(&path),
                        path,
                        given: false,
                    }
                }
            })
        };
        Ok(BinariesRecord {
            cloud_controller_manager: one(&self.ccm, "cloud-controller-manager")?,
            cloud_node_manager: one(&self.cnm, "cloud-node-manager")?,
        })
    }
}

/// What `<path> --version` reports (its version word), or `None` when it does not answer.
fn reported_version(path: &Path) -> Option<String> {
    version_word(&version_line(path)?)
}

/// The first non-empty line `<path> --version` prints, or `None` when it does not run or answer
/// in time (10 s).
pub fn version_line(path: &Path) -> Option<String> {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let mut child = Command::new(path)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let deadline = Instant::now() + Duration::from_secs(10);
    while child.try_wait().ok()?.is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut out = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take()?, &mut out).ok()?;
    out.lines()
        .find(|l| !l.trim().is_empty())
        .map(|l| l.trim().to_owned())
}

/// The version in a `--version` answer: the last word of its first non-empty line
/// (`cloud-controller-manager 0.1.0`, `Kubernetes v1.31.2`).
fn version_word(output: &str) -> Option<String> {
    output
        .lines()
        .find(|l| !l.trim().is_empty())?
        .split_whitespace()
        .last()
        .map(str::to_owned)
}

/// `path` made absolute (children start in other directories) when it is an executable file.
fn executable(flag: &'static str, path: &Path) -> Result<PathBuf, BadBinary> {
    use std::os::unix::fs::PermissionsExt;
    let bad = |reason: String| BadBinary {
        flag,
        path: path.to_path_buf(),
        reason,
    };
    let meta = std::fs::metadata(path).map_err(|e| bad(format!("cannot be read: {e}")))?;
    if !meta.is_file() {
        return Err(bad("is not a file".into()));
    }
    if meta.permissions().mode() & 0o111 == 0 {
        return Err(bad(
            "is not executable (chmod +x it, or give the binary itself)".into(),
        ));
    }
    std::path::absolute(path).map_err(|e| bad(format!("cannot be made absolute: {e}")))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_version_is_the_last_word_of_the_first_line() {
        assert_eq!(
            super::version_word("\ncloud-controller-manager 0.1.0\nmore\n").as_deref(),
            Some("0.1.0")
        );
        assert_eq!(
            super::version_word("Kubernetes v1.31.2").as_deref(),
            Some("v1.31.2")
        );
        assert_eq!(super::version_word("  \n"), None);
    }

    use super::*;

    #[test]
    fn a_missing_or_non_executable_binary_names_its_flag() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope");
        let err = ManagerBinaries::validated(Some(&missing), None).unwrap_err();
        assert_eq!(err.flag, "--ccm-binary");
        assert!(err.to_string().starts_with("--ccm-binary "), "{err}");
        let plain = dir.path().join("plain");
        std::fs::write(&plain, "x").unwrap();
        let err = ManagerBinaries::validated(None, Some(&plain)).unwrap_err();
        assert_eq!(err.flag, "--cnm-binary");
        assert!(err.reason.contains("not executable"), "{err}");
        let err = ManagerBinaries::validated(None, Some(dir.path())).unwrap_err();
        assert!(err.reason.contains("not a file"), "{err}");
    }

    #[test]
    fn a_given_binary_is_used_for_its_kind_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let ccm = dir.path().join("ccm");
        std::fs::write(&ccm, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&ccm, std::fs::Permissions::from_mode(0o755)).unwrap();
        let binaries = ManagerBinaries::validated(Some(&ccm), None).unwrap();
        assert_eq!(
            binaries.given(ManagerKind::CloudControllerManager),
            Some(ccm.as_path())
        );
        assert_eq!(binaries.given(ManagerKind::CloudNodeManager), None);
        assert_eq!(binaries.given(ManagerKind::KubeControllerManager), None);
    }
}
