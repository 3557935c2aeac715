//! Errors raised while creating, loading or serving TLS material.

use std::path::PathBuf;

/// Why TLS material could not be produced or served; names the file when one is involved.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// Certificate or key generation failed inside rcgen.
    #[error("generating {what}: {source}")]
    Generate {
        what: &'static str,
        #[source]
        source: rcgen::Error,
    },
    /// A PEM file on disk could not be read or written.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A PEM file on disk holds something other than what was expected.
    #[error("{path}: {reason}")]
    BadPem { path: PathBuf, reason: String },
    /// rustls refused the certificate chain, key or client-verifier setup.
    #[error("building TLS configuration: {0}")]
    Config(String),
}
