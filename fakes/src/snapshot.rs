//! Whole-cloud snapshots: the ARM store (fake-arm export) plus the Entra registry (secrets only as
//! digests), written to and read from a JSON file so a fake can be stopped and resumed, or a test can
//! rewind to a known state. Running LROs, the journal, faults and throttle buckets are not included.

use std::path::{Path, PathBuf};

use fake_arm::ArmState;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::entra::{Entra, Registry};

/// Format version written in every snapshot; other versions are refused.
pub const SNAPSHOT_VERSION: u32 = 1;

/// The snapshot document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CloudSnapshot {
    /// [`SNAPSHOT_VERSION`].
    pub version: u32,
    /// `ArmState::export()` output.
    pub arm: Value,
    /// Tenants and app registrations.
    pub entra: Registry,
}

/// A snapshot that cannot be read, written or applied; names the file when there is one.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    /// Reading or writing the file failed.
    #[error("snapshot {path}: {source}")]
    Io {
        /// File.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
    /// Not a snapshot document.
    #[error("snapshot {path}: {message}")]
    Parse {
        /// File (or `<request body>`).
        path: String,
        /// Parser message with line/column.
        message: String,
    },
    /// Unsupported `version`.
    #[error("snapshot {path}: field 'version' is {found}, accepted: {SNAPSHOT_VERSION}")]
    Version {
        /// File (or `<request body>`).
        path: String,
        /// Version found.
        found: u32,
    },
    /// fake-arm refused the ARM part.
    #[error("snapshot {path}: field 'arm': {message}")]
    Arm {
        /// File (or `<request body>`).
        path: String,
        /// fake-arm's message.
        message: String,
    },
}

/// Captures the current state.
pub fn capture(arm: &ArmState, entra: &Entra) -> CloudSnapshot {
    CloudSnapshot {
        version: SNAPSHOT_VERSION,
        arm: arm.export(),
        entra: entra.registry.read().clone(),
    }
}

/// Replaces the state with `snapshot`; `origin` labels errors. ARM is imported first so a bad ARM
/// part leaves everything unchanged.
pub fn restore(
    snapshot: CloudSnapshot,
    arm: &ArmState,
    entra: &Entra,
    origin: &str,
) -> Result<(), SnapshotError> {
    if snapshot.version != SNAPSHOT_VERSION {
        return Err(SnapshotError::Version {
            path: origin.to_string(),
            found: snapshot.version,
        });
    }
    arm.import(snapshot.arm).map_err(|e| SnapshotError::Arm {
        path: origin.to_string(),
        message: e.message().to_string(),
    })?;
    *entra.registry.write() = snapshot.entra;
    Ok(())
}

/// Parses snapshot JSON; `origin` labels errors.
pub fn parse(text: &str, origin: &str) -> Result<CloudSnapshot, SnapshotError> {
    serde_json::from_str(text).map_err(|e| SnapshotError::Parse {
        path: origin.to_string(),
        message: e.to_string(),
    })
}

/// Reads a snapshot file.
pub fn read(path: &Path) -> Result<CloudSnapshot, SnapshotError> {
    let text = std::fs::read_to_string(path).map_err(|source| SnapshotError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse(&text, &path.display().to_string())
}

/// Writes a snapshot file atomically (temporary file + rename), mode 0600.
pub fn write(path: &Path, snapshot: &CloudSnapshot) -> Result<(), SnapshotError> {
    let io = |source| SnapshotError::Io {
        path: path.to_path_buf(),
        source,
    };
    let json = serde_json::to_vec_pretty(snapshot).map_err(|e| io(std::io::Error::other(e)))?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let tmp = path.with_extension("tmp");
    {
        use std::io::Write;
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let mut file = options.open(&tmp).map_err(io)?;
        file.write_all(&json).map_err(io)?;
        file.sync_all().map_err(io)?;
    }
    std::fs::rename(&tmp, path).map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entra::{AppRegistration, TokenIssuer};
    use fake_arm::ArmConfig;
    use serde_json::json;

    fn cloud() -> (ArmState, Entra) {
        let arm = ArmState::new(ArmConfig::default());
        let mut registry = Registry::default();
        registry
            .tenant_mut("t")
            .apps
            .push(AppRegistration::with_secret("app", "s3cret-value"));
        (
            arm,
            Entra::new(TokenIssuer::from_key(&[3u8; 32], 3599), registry),
        )
    }

    #[test]
    fn round_trip_through_a_file_restores_arm_and_entra() {
        let (arm, entra) = cloud();
        arm.put(
            "/subscriptions/s/resourceGroups/rg",
            json!({"location": "eastus"}),
        )
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.json");
        write(&path, &capture(&arm, &entra)).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains("s3cret-value"));
        let (arm2, entra2) = (
            ArmState::new(ArmConfig::default()),
            Entra::new(TokenIssuer::from_key(&[3u8; 32], 3599), Registry::default()),
        );
        restore(read(&path).unwrap(), &arm2, &entra2, "x").unwrap();
        assert!(arm2.get("/subscriptions/s/resourceGroups/rg").is_ok());
        assert!(
            entra2
                .registry
                .read()
                .tenant("t")
                .unwrap()
                .app("app")
                .unwrap()
                .secrets[0]
                .matches("s3cret-value")
        );
    }

    #[test]
    fn bad_snapshots_are_refused_with_their_origin() {
        let (arm, entra) = cloud();
        let mut snap = capture(&arm, &entra);
        snap.version = 9;
        assert_eq!(
            restore(snap, &arm, &entra, "f.json")
                .unwrap_err()
                .to_string(),
            "snapshot f.json: field 'version' is 9, accepted: 1"
        );
        let bad_arm = CloudSnapshot {
            version: 1,
            arm: json!({"version": 2}),
            entra: Registry::default(),
        };
        let err = restore(bad_arm, &arm, &entra, "f.json")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("snapshot f.json: field 'arm':"), "{err}");
        assert!(
            entra.registry.read().tenant("t").is_some(),
            "entra unchanged after a refused snapshot"
        );
        assert!(
            parse("{", "body")
                .unwrap_err()
                .to_string()
                .starts_with("snapshot body:")
        );
    }
}
