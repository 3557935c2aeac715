//! What the binaries decide about credentials beyond azure.json: the HTTPS client (trust), the
//! IMDS base URL (`--imds-endpoint` / `AZURE_IMDS_ENDPOINT`) and whether the certificate chain is sent.

use std::sync::Arc;

use azure_core::http::{ClientOptions, Transport};
use url::Url;

use super::error::CredentialError;

/// IMDS's fixed link-local address.
pub const DEFAULT_IMDS_ENDPOINT: &str = "http://169.254.169.254";

/// The environment variable the binaries read the IMDS override from (as `--imds-endpoint`).
pub const AZURE_IMDS_ENDPOINT: &str = "AZURE_IMDS_ENDPOINT";

/// Options every credential of one process shares.
#[derive(Debug, Clone)]
pub struct CredentialOptions {
    /// The HTTPS client (from [`crate::cloud::trust`]) every token request goes through.
    pub http: reqwest::Client,
    /// IMDS base URL override; `None` means [`DEFAULT_IMDS_ENDPOINT`] through azure_identity's own
    /// client, `Some` means our IMDS token client at that URL.
    pub imds_endpoint: Option<Url>,
    /// Send the certificate chain as `x5c` (upstream always does; needed for subject-name/issuer
    /// authentication).
    pub send_certificate_chain: bool,
}

impl CredentialOptions {
    /// Upstream's defaults over `http`: real IMDS, chain sent.
    pub fn new(http: reqwest::Client) -> Self {
        Self {
            http,
            imds_endpoint: None,
            send_certificate_chain: true,
        }
    }

    /// Overrides the IMDS base URL (an empty value keeps the default).
    pub fn with_imds_endpoint(mut self, endpoint: &str) -> Result<Self, CredentialError> {
        if endpoint.is_empty() {
            return Ok(self);
        }
        let url = Url::parse(endpoint).map_err(|e| CredentialError::BadImdsEndpoint {
            value: endpoint.to_string(),
            reason: e.to_string(),
        })?;
        self.imds_endpoint = Some(url);
        Ok(self)
    }

    /// azure_core client options over our HTTPS client (and so our trust roots).
    pub fn client_options(&self) -> ClientOptions {
        ClientOptions {
            transport: Some(Transport::new(Arc::new(self.http.clone()))),
            ..ClientOptions::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imds_override_empty_keeps_the_default_and_junk_is_refused() {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let options = CredentialOptions::new(reqwest::Client::new());
        assert!(options.send_certificate_chain);
        let kept = options.clone().with_imds_endpoint("").expect("empty");
        assert_eq!(kept.imds_endpoint, None);
        let set = options
            .clone()
            .with_imds_endpoint("http://127.0.0.1:8080")
            .expect("URL");
        assert_eq!(
            set.imds_endpoint.map(|u| u.to_string()),
            Some("http://127.0.0.1:8080/".to_string())
        );
        let error = options.with_imds_endpoint("not a url").expect_err("junk");
        assert!(
            error.to_string().starts_with("IMDS endpoint 'not a url'"),
            "{error}"
        );
    }
}
