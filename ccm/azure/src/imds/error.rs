//! Why an IMDS read or a metadata derivation failed, naming the URL or the missing field.

/// An IMDS failure.
#[derive(Debug, thiserror::Error)]
pub enum ImdsError {
    /// The configured base URL is not an `http`/`https` URL without query.
    #[error("IMDS endpoint {url:?} is invalid: {reason}")]
    InvalidEndpoint {
        /// The URL as given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The CA certificate given for an `https` endpoint is not PEM.
    #[error("IMDS CA certificate is not valid PEM")]
    InvalidCa(#[source] reqwest::Error),
    /// The HTTP client could not be built.
    #[error("building the IMDS HTTP client failed")]
    Client(#[source] reqwest::Error),
    /// No HTTP answer (connection refused, timeout, TLS failure).
    #[error("IMDS at {url} is unreachable: {cause}")]
    Unreachable {
        /// The request URL.
        url: String,
        /// The innermost cause, e.g. `Connection refused (os error 111)`.
        cause: String,
        /// The transport error.
        #[source]
        source: reqwest::Error,
    },
    /// IMDS answered with a status other than 200 (after the retries it allows).
    #[error("IMDS at {url} answered HTTP {status} after {attempts} attempt(s): {body}")]
    Status {
        /// The request URL.
        url: String,
        /// The last status.
        status: u16,
        /// Requests sent.
        attempts: u32,
        /// The last body (truncated).
        body: String,
    },
    /// The body is not the expected JSON document.
    #[error("IMDS at {url} returned a body that is not a valid {document} document: {source}")]
    Decode {
        /// The request URL.
        url: String,
        /// Which document was expected.
        document: &'static str,
        /// The JSON error.
        #[source]
        source: serde_json::Error,
    },
    /// A field the provider needs is absent or empty in the instance document.
    #[error("instance metadata has no {0}")]
    Missing(&'static str),
    /// `compute.zone` is not a number.
    #[error("instance metadata zone {zone:?} is not a number")]
    InvalidZone {
        /// The zone as IMDS gave it.
        zone: String,
    },
}

impl ImdsError {
    /// Whether the cached instance document should be dropped (upstream purges its cache when
    /// the document lacks what it needs, so the next read asks IMDS again).
    pub fn purges_cache(&self) -> bool {
        matches!(self, Self::Missing(_))
    }
}
