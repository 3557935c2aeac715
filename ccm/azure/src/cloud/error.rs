//! Why a cloud's endpoints could not be resolved: each error names the file, key or URL at fault.

use std::path::PathBuf;

/// A cloud's endpoints could not be resolved.
#[derive(Debug, thiserror::Error)]
pub enum CloudError {
    /// `AZURE_ENVIRONMENT_FILEPATH` names a file that cannot be read.
    #[error("AZURE_ENVIRONMENT_FILEPATH: cannot read {path}: {source}")]
    EnvironmentFileRead {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The environment file is not the Go SDK's environment JSON.
    #[error("AZURE_ENVIRONMENT_FILEPATH: {path} is not an environment JSON document: {reason}")]
    EnvironmentFileParse {
        /// The file.
        path: PathBuf,
        /// What the JSON decoder said.
        reason: String,
    },
    /// A key the environment file or discovery document must hold is missing or not a URL.
    #[error("{source_name}: key '{key}' {problem}")]
    BadEndpoint {
        /// The file path or URL the value came from.
        source_name: String,
        /// The key (e.g. `resourceManagerEndpoint`).
        key: String,
        /// "is missing" or "is not an https URL: ...".
        problem: String,
    },
    /// `cloud: AzureStackCloud` without an environment file or a `resourceManagerEndpoint`.
    #[error(
        "cloud AzureStackCloud needs AZURE_ENVIRONMENT_FILEPATH or resourceManagerEndpoint to know its endpoints"
    )]
    StackWithoutEndpoints,
    /// `resourceManagerEndpoint` is not a URL.
    #[error("resourceManagerEndpoint '{value}' is not a URL: {reason}")]
    BadResourceManagerEndpoint {
        /// The configured value.
        value: String,
        /// Why it does not parse.
        reason: String,
    },
    /// The metadata request failed (connection, TLS or a non-200 answer).
    #[error("cloud discovery: GET {url} failed: {reason}")]
    Discovery {
        /// The metadata URL.
        url: String,
        /// The transport error or status.
        reason: String,
    },
    /// The metadata document lists no environment for the configured cloud.
    #[error("cloud discovery: {url} lists no environment named {wanted} (it lists: {listed})")]
    NoMatchingEnvironment {
        /// The metadata URL.
        url: String,
        /// The names we looked for.
        wanted: String,
        /// The names the document lists.
        listed: String,
    },
    /// A trust file named by `SSL_CERT_FILE` / `SSL_CERT_DIR` cannot be read or parsed.
    #[error("{variable}: cannot use {path}: {reason}")]
    TrustFile {
        /// `SSL_CERT_FILE` or `SSL_CERT_DIR`.
        variable: &'static str,
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The HTTP client cannot be built.
    #[error("cannot build the HTTPS client: {0}")]
    Client(String),
}
