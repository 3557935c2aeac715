//! Where the harness finds the binaries it starts: next to its own executable (cargo puts every
//! binary of the workspace in `target/<profile>/`), then on `$PATH`.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// A binary was not found; lists every place looked at so the fix is obvious.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "binary {name:?} not found; looked in: {} (build it with `cargo build -p <its package>` or put it on PATH)",
    tried.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
)]
pub struct LookupError {
    /// The binary looked for.
    pub name: String,
    /// Every candidate path, in the order tried.
    pub tried: Vec<PathBuf>,
}

/// Finds `name` next to the running executable (and, for a test binary in `target/<profile>/deps/`,
/// in `target/<profile>/`), then in each `$PATH` directory.
pub fn find_binary(name: &str) -> Result<PathBuf, LookupError> {
    let exe = std::env::current_exe().ok();
    let path = std::env::var_os("PATH");
    find_binary_in(name, exe.as_deref(), path.as_deref())
}

/// [`find_binary`] with the executable path and `$PATH` value given (testable without touching
/// the process environment).
pub fn find_binary_in(
    name: &str,
    exe: Option<&Path>,
    path_var: Option<&OsStr>,
) -> Result<PathBuf, LookupError> {
    let mut dirs = Vec::new();
    if let Some(dir) = exe.and_then(Path::parent) {
        dirs.push(dir.to_path_buf());
        if dir.file_name().is_some_and(|n| n == "deps")
            && let Some(profile) = dir.parent()
        {
            dirs.push(profile.to_path_buf());
        }
    }
    if let Some(path_var) = path_var {
        dirs.extend(std::env::split_paths(path_var).filter(|d| !d.as_os_str().is_empty()));
    }
    let mut tried = Vec::new();
    for dir in dirs {
        let candidate = dir.join(name);
        if is_executable(&candidate) {
            return Ok(candidate);
        }
        tried.push(candidate);
    }
    Err(LookupError {
        name: name.to_string(),
        tried,
    })
}

/// A regular file with an execute bit.
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}
