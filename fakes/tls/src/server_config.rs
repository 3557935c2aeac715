//! rustls server configuration for the fakes.

use std::sync::Arc;

use rustls::RootCertStore;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::WebPkiClientVerifier;

use crate::{IssuedCert, Pki, TlsError};

/// Whether the server asks for client certificates; the Kubernetes API server accepts them
/// optionally (bearer tokens work too), the Azure fakes never ask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientAuth {
    /// No client certificate requested.
    None,
    /// Requested and verified against the CA when sent, but not required.
    Optional,
}

/// Builds a rustls server configuration (HTTP/2 and HTTP/1.1 via ALPN) for `leaf`, verifying
/// optional client certificates against `pki`'s CA.
pub fn server_config(
    pki: &Pki,
    leaf: &IssuedCert,
    client_auth: ClientAuth,
) -> Result<Arc<rustls::ServerConfig>, TlsError> {
    crate::install_crypto_provider();
    let chain = certs(&leaf.cert_pem)?;
    let key = private_key(&leaf.key_pem)?;
    let builder = rustls::ServerConfig::builder();
    let builder = match client_auth {
        ClientAuth::None => builder.with_no_client_auth(),
        ClientAuth::Optional => {
            let mut roots = RootCertStore::empty();
            for ca in certs(pki.ca_pem())? {
                roots.add(ca).map_err(|e| TlsError::Config(e.to_string()))?;
            }
            let verifier = WebPkiClientVerifier::builder(Arc::new(roots))
                .allow_unauthenticated()
                .build()
                .map_err(|e| TlsError::Config(e.to_string()))?;
            builder.with_client_cert_verifier(verifier)
        }
    };
    let mut config = builder
        .with_single_cert(chain, key)
        .map_err(|e| TlsError::Config(e.to_string()))?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

fn certs(pem: &str) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    rustls_pemfile::certs(&mut pem.as_bytes())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| TlsError::Config(format!("certificate PEM: {e}")))
}

fn private_key(pem: &str) -> Result<PrivateKeyDer<'static>, TlsError> {
    rustls_pemfile::private_key(&mut pem.as_bytes())
        .map_err(|e| TlsError::Config(format!("private key PEM: {e}")))?
        .ok_or_else(|| TlsError::Config("private key PEM holds no key".into()))
}
