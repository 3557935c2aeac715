//! Writes a bundle so that a failure leaves no half-written set behind: every file goes to a
//! temporary name first and is renamed into place only when all writes succeeded.

use std::path::{Path, PathBuf};

use super::Bundle;

/// An I/O failure, naming the path.
#[derive(Debug, thiserror::Error)]
#[error("cannot write {path}: {source}")]
pub struct WriteError {
    /// File or directory.
    pub path: PathBuf,
    /// Cause.
    pub source: std::io::Error,
}

/// Writes every file of the bundle into `dir`.
pub fn write_bundle(bundle: &Bundle, dir: &Path) -> Result<Vec<PathBuf>, WriteError> {
    std::fs::create_dir_all(dir).map_err(|source| WriteError {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut staged: Vec<(PathBuf, PathBuf)> = Vec::new();
    let cleanup = |staged: &[(PathBuf, PathBuf)]| {
        for (tmp, _) in staged {
            let _ = std::fs::remove_file(tmp);
        }
    };
    for f in &bundle.files {
        let dest = dir.join(&f.name);
        let parent = dest.parent().unwrap_or(dir).to_path_buf();
        if let Err(source) = std::fs::create_dir_all(&parent) {
            cleanup(&staged);
            return Err(WriteError {
                path: parent,
                source,
            });
        }
        let file_name = dest.file_name().and_then(|n| n.to_str()).unwrap_or("out");
        let tmp = parent.join(format!(".{file_name}.tmp"));
        if let Err(source) = std::fs::write(&tmp, &f.contents) {
            cleanup(&staged);
            let _ = std::fs::remove_file(&tmp);
            return Err(WriteError { path: tmp, source });
        }
        staged.push((tmp, dest));
    }
    let mut written = Vec::new();
    for (i, (tmp, dest)) in staged.iter().enumerate() {
        if let Err(source) = std::fs::rename(tmp, dest) {
            cleanup(&staged[i..]);
            return Err(WriteError {
                path: dest.clone(),
                source,
            });
        }
        written.push(dest.clone());
    }
    Ok(written)
}
