//! Finds build directories from command-line paths: a build directory itself, or a job
//! directory holding many (loose files such as `latest-build.txt` are skipped, as TestGrid does).

use std::path::{Path, PathBuf};

use super::column::{BuildRead, ReadError, ReadOptions, read_build};

/// Errors locating builds.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The path could not be listed.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The path.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A job directory without any build directory.
    #[error(
        "{path} is neither a build directory (started.json, finished.json or artifacts/) nor a job directory containing build directories"
    )]
    NoBuilds {
        /// The path.
        path: String,
    },
    /// A build could not be read.
    #[error(transparent)]
    Read(#[from] ReadError),
}

/// Whether `dir` looks like one build (has any of the files a build holds).
pub fn is_build_dir(dir: &Path) -> bool {
    [
        "started.json",
        "finished.json",
        "artifacts",
        "build-log.txt",
    ]
    .iter()
    .any(|f| dir.join(f).exists())
}

/// Expands paths into build directories, each listed once.
pub fn build_dirs(paths: &[PathBuf]) -> Result<Vec<PathBuf>, LoadError> {
    let mut out = Vec::new();
    for path in paths {
        if !path.is_dir() {
            return Err(LoadError::Io {
                path: path.display().to_string(),
                source: std::io::Error::new(std::io::ErrorKind::NotADirectory, "not a directory"),
            });
        }
        if is_build_dir(path) {
            out.push(path.clone());
            continue;
        }
        let entries = std::fs::read_dir(path).map_err(|source| LoadError::Io {
            path: path.display().to_string(),
            source,
        })?;
        let mut builds: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.is_dir()
                    && !p
                        .file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with('.'))
            })
            .collect();
        if builds.is_empty() {
            return Err(LoadError::NoBuilds {
                path: path.display().to_string(),
            });
        }
        builds.sort();
        out.extend(builds);
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|p| seen.insert(p.canonicalize().unwrap_or_else(|_| p.clone())));
    Ok(out)
}

/// Reads every build under `paths`.
pub fn load(paths: &[PathBuf], opts: &ReadOptions) -> Result<Vec<BuildRead>, LoadError> {
    build_dirs(paths)?
        .iter()
        .map(|d| read_build(d, opts).map_err(LoadError::from))
        .collect()
}
