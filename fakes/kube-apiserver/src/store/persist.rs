//! Optional persistence to one JSON file, so a restarted server keeps its objects and keeps
//! counting resourceVersions upwards (clients resume watches or get 410 and re-list).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use serde_json::{Value, json};

use super::Store;
use crate::Error;
use crate::kinds::{self, KindId};

/// Format marker written into the file.
const FORMAT: &str = "fake-kube-apiserver/v1";

/// Reads a state file; a missing file is an empty store at version 0.
pub fn load(path: &Path) -> Result<(u64, Vec<(KindId, Value)>), Error> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((0, Vec::new())),
        Err(source) => {
            return Err(Error::Io {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    let bad = |reason: String| Error::BadDataFile {
        path: path.to_path_buf(),
        reason,
    };
    let doc: Value =
        serde_json::from_str(&text).map_err(|e| bad(format!("line {}: {e}", e.line())))?;
    if doc["format"] != FORMAT {
        return Err(bad(format!("field \"format\" must be {FORMAT:?}")));
    }
    let rv = doc["resourceVersion"]
        .as_u64()
        .ok_or_else(|| bad("field \"resourceVersion\" must be a number".into()))?;
    let mut objects = Vec::new();
    for (i, obj) in doc["objects"].as_array().into_iter().flatten().enumerate() {
        let api_version = obj["apiVersion"].as_str().unwrap_or_default();
        let kind = obj["kind"].as_str().unwrap_or_default();
        let id = kinds::by_kind(api_version, kind).ok_or_else(|| {
            bad(format!(
                "objects[{i}]: unknown apiVersion/kind {api_version}/{kind}"
            ))
        })?;
        objects.push((id, obj.clone()));
    }
    Ok((rv, objects))
}

/// Writes the state atomically (temp file + rename).
pub fn save(path: &Path, rv: u64, objects: &[Arc<Value>]) -> Result<(), Error> {
    let plain: Vec<&Value> = objects.iter().map(|o| o.as_ref()).collect();
    let doc = json!({"format": FORMAT, "resourceVersion": rv, "objects": plain});
    let tmp = path.with_extension("tmp");
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let bytes = serde_json::to_vec(&doc).map_err(|e| Error::BadDataFile {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    std::fs::write(&tmp, bytes).map_err(io)?;
    std::fs::rename(&tmp, path).map_err(io)
}

/// Writes a store's data file off the async runtime (the file system calls block), one write at
/// a time so a later snapshot never lands before an earlier one.
#[derive(Debug, Clone)]
pub struct Persister {
    store: Arc<Store>,
    path: PathBuf,
    writing: Arc<Mutex<()>>,
}

impl Persister {
    /// A persister writing `store` to `path`.
    pub fn new(store: Arc<Store>, path: PathBuf) -> Self {
        Self {
            store,
            path,
            writing: Arc::new(Mutex::new(())),
        }
    }

    /// Writes the store now if it changed since the last write; errors are logged, not fatal.
    pub async fn flush(&self) {
        let this = self.clone();
        if let Err(error) = tokio::task::spawn_blocking(move || this.flush_blocking()).await {
            tracing::error!(%error, "persisting API server state failed");
        }
    }

    /// Runs on a blocking thread: the snapshot is taken under the store lock (cheap: shared
    /// objects), serialising and writing happen outside it.
    fn flush_blocking(&self) {
        let _turn = self.writing.lock();
        if let Some((rv, objects)) = self.store.take_dirty_snapshot()
            && let Err(error) = save(&self.path, rv, &objects)
        {
            tracing::error!(%error, "persisting API server state failed");
        }
    }

    /// Writes the store after each batch of changes (batched every `interval`), forever.
    pub async fn run(self, interval: Duration) {
        loop {
            self.store.changed().await;
            tokio::time::sleep(interval).await;
            self.flush().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::StoreConfig;

    #[test]
    fn round_trips_and_names_the_file_on_bad_input() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.json");
        assert_eq!(load(&path).unwrap().0, 0);
        let obj =
            Arc::new(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "x"}}));
        save(&path, 42, &[obj]).unwrap();
        let (rv, objects) = load(&path).unwrap();
        assert_eq!(rv, 42);
        assert_eq!(objects[0].0, kinds::ids::namespaces());
        std::fs::write(&path, "{\"format\": 1}").unwrap();
        let err = load(&path).unwrap_err().to_string();
        assert!(
            err.contains("state.json") && err.contains("format"),
            "{err}"
        );
    }

    #[tokio::test(flavor = "current_thread")]
    async fn flushes_write_the_latest_state_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.json");
        let store = Arc::new(Store::new(StoreConfig::default(), 0, Vec::new()));
        let persister = Persister::new(store.clone(), path.clone());
        let kind = kinds::ids::namespaces();
        for name in ["a", "b", "c"] {
            store
                .write(|s| {
                    s.put(kind, json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}));
                    Ok(())
                })
                .unwrap();
            // Two flushes racing: whichever writes second sees nothing new and writes nothing.
            tokio::join!(persister.flush(), persister.flush());
        }
        let (rv, objects) = load(&path).unwrap();
        assert_eq!(rv, 3);
        assert_eq!(objects.len(), 3);
        // A flush with nothing changed leaves the file alone.
        std::fs::remove_file(&path).unwrap();
        persister.flush().await;
        assert!(!path.exists());
    }
}
