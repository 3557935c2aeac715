//! Errors of starting and running the embedded API server (request errors are `ApiError`).

use std::path::PathBuf;

/// Why the server could not start, persist or stop; names the file or address involved.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Generating or loading the CA and certificates failed.
    #[error("TLS material in {dir}: {source}")]
    Tls {
        dir: PathBuf,
        #[source]
        source: fake_tls::TlsError,
    },
    /// Binding or serving the listen address failed.
    #[error("serving on {addr}: {source}")]
    Serve {
        addr: String,
        #[source]
        source: std::io::Error,
    },
    /// A file (kubeconfig, data file) could not be read or written.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The data file exists but is not a state file this server wrote.
    #[error("{path}: not a valid state file: {reason}")]
    BadDataFile { path: PathBuf, reason: String },
    /// A configuration value is out of range or malformed.
    #[error("invalid {field} {value:?}: {reason}")]
    Config {
        field: &'static str,
        value: String,
        reason: String,
    },
    /// The `--token-auth-file` has a malformed line.
    #[error("{path}: {message}")]
    TokenFile { path: PathBuf, message: String },
    /// The kubeconfig could not be rendered.
    #[error("rendering kubeconfig: {0}")]
    Kubeconfig(String),
}
