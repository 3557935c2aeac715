//! The serving certificate of the secure port: `--tls-cert-file`/`--tls-private-key-file` when
//! given, otherwise a self-signed certificate for `localhost` and `127.0.0.1`, written to
//! `--cert-dir` when set (as `<pair>.crt`/`<pair>.key`, reused on restart) or kept in memory.
//!
//! Verified (anchor-ccm.md §1.3, k8s.io/apiserver `SecureServingOptions.MaybeDefaultWithSelfSignedCerts`):
//! self-signed for `localhost`/127.0.0.1 unless cert files are given; the pair name of the CCM is
//! `cloud-controller-manager`. **[infer]** the generated certificate has no CA of its own (upstream
//! also creates a signing CA); clients of the health endpoints skip verification either way.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::pki_types::{CertificateDer, PrivateKeyDer};

/// Why no serving certificate could be set up.
#[derive(Debug, thiserror::Error)]
pub enum ServingCertError {
    /// Only one of the two files was given.
    #[error("--tls-cert-file and --tls-private-key-file must be given together")]
    Incomplete,
    /// A file cannot be read.
    #[error("{flag} {}: cannot read", path.display())]
    Read {
        /// The flag naming the file.
        flag: &'static str,
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A file holds no usable PEM.
    #[error("{flag} {}: {reason}", path.display())]
    Pem {
        /// The flag naming the file.
        flag: &'static str,
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// Generating the self-signed certificate failed.
    #[error("generating a self-signed serving certificate")]
    Generate(#[from] rcgen::Error),
    /// Writing the generated pair into `--cert-dir` failed.
    #[error("--cert-dir {}: cannot write", path.display())]
    Write {
        /// The file being written.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The client CA cannot verify client certificates.
    #[error("client CA: {0}")]
    ClientCa(String),
    /// rustls refused the pair.
    #[error("the serving certificate and key do not form a usable pair")]
    Rustls(#[from] rustls::Error),
}

/// Where the serving certificate comes from (the secure serving flags).
#[derive(Debug, Clone, Default)]
pub struct CertSource {
    /// `--tls-cert-file`.
    pub cert_file: Option<PathBuf>,
    /// `--tls-private-key-file`.
    pub key_file: Option<PathBuf>,
    /// `--cert-dir`.
    pub cert_dir: Option<PathBuf>,
    /// File name stem in `--cert-dir` (upstream's pair name).
    pub pair_name: String,
}

fn read(flag: &'static str, path: &Path) -> Result<Vec<u8>, ServingCertError> {
    std::fs::read(path).map_err(|source| ServingCertError::Read {
        flag,
        path: path.to_owned(),
        source,
    })
}

fn parse_pair(
    cert_flag: &'static str,
    cert_path: &Path,
    cert_pem: &[u8],
    key_flag: &'static str,
    key_path: &Path,
    key_pem: &[u8],
) -> Result<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>), ServingCertError> {
    let pem_error = |flag, path: &Path, reason: String| ServingCertError::Pem {
        flag,
        path: path.to_owned(),
        reason,
    };
    let certs: Vec<CertificateDer<'static>> = rustls_pemfile::certs(&mut &cert_pem[..])
        .collect::<Result<_, _>>()
        .map_err(|e| pem_error(cert_flag, cert_path, e.to_string()))?;
    if certs.is_empty() {
        return Err(pem_error(
            cert_flag,
            cert_path,
            "no PEM certificate in the file".into(),
        ));
    }
    let key = rustls_pemfile::private_key(&mut &key_pem[..])
        .map_err(|e| pem_error(key_flag, key_path, e.to_string()))?
        .ok_or_else(|| pem_error(key_flag, key_path, "no PEM private key in the file".into()))?;
    Ok((certs, key))
}

impl CertSource {
    /// The rustls server configuration (HTTP/2 and HTTP/1.1 by ALPN).
    pub fn server_config(&self) -> Result<Arc<rustls::ServerConfig>, ServingCertError> {
        self.server_config_with_client_ca(None)
    }

    /// Same, also asking for (optional) client certificates signed by `client_ca`.
    pub fn server_config_with_client_ca(
        &self,
        client_ca: Option<rustls::RootCertStore>,
    ) -> Result<Arc<rustls::ServerConfig>, ServingCertError> {
        let (certs, key) = self.pair()?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()?;
        let builder = match client_ca {
            Some(roots) => {
                let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
                    Arc::new(roots),
                    provider,
                )
                .allow_unauthenticated()
                .build()
                .map_err(|e| ServingCertError::ClientCa(e.to_string()))?;
                builder.with_client_cert_verifier(verifier)
            }
            None => builder.with_no_client_auth(),
        };
        let mut config = builder.with_single_cert(certs, key)?;
        config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        Ok(Arc::new(config))
    }

    fn pair(
        &self,
    ) -> Result<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>), ServingCertError> {
        const CERT: &str = "--tls-cert-file";
        const KEY: &str = "--tls-private-key-file";
        match (&self.cert_file, &self.key_file) {
            (Some(cert), Some(key)) => {
                return parse_pair(CERT, cert, &read(CERT, cert)?, KEY, key, &read(KEY, key)?);
            }
            (None, None) => {}
            _ => return Err(ServingCertError::Incomplete),
        }
        const DIR: &str = "--cert-dir";
        if let Some(dir) = &self.cert_dir {
            let cert = dir.join(format!("{}.crt", self.pair_name));
            let key = dir.join(format!("{}.key", self.pair_name));
            if cert.exists() && key.exists() {
                return parse_pair(DIR, &cert, &read(DIR, &cert)?, DIR, &key, &read(DIR, &key)?);
            }
            let (cert_pem, key_pem) = self_signed()?;
            let write = |path: &Path, text: &str| {
                std::fs::create_dir_all(dir)
                    .and_then(|()| std::fs::write(path, text))
                    .map_err(|source| ServingCertError::Write {
                        path: path.to_owned(),
                        source,
                    })
            };
            write(&cert, &cert_pem)?;
            write(&key, &key_pem)?;
            return parse_pair(
                DIR,
                &cert,
                cert_pem.as_bytes(),
                DIR,
                &key,
                key_pem.as_bytes(),
            );
        }
        let (cert_pem, key_pem) = self_signed()?;
        let memory = Path::new("(in memory)");
        parse_pair(
            DIR,
            memory,
            cert_pem.as_bytes(),
            DIR,
            memory,
            key_pem.as_bytes(),
        )
    }
}

/// A fresh self-signed certificate for `localhost` and `127.0.0.1`, as PEM (certificate, key).
fn self_signed() -> Result<(String, String), ServingCertError> {
    let certified =
        rcgen::generate_simple_self_signed(vec!["localhost".to_owned(), "127.0.0.1".to_owned()])?;
    Ok((certified.cert.pem(), certified.signing_key.serialize_pem()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn self_signed_by_default_and_files_must_come_in_pairs() {
        assert!(CertSource::default().server_config().is_ok());
        let half = CertSource {
            cert_file: Some("/x.crt".into()),
            ..CertSource::default()
        };
        assert!(matches!(
            half.server_config(),
            Err(ServingCertError::Incomplete)
        ));
    }

    #[test]
    fn cert_dir_keeps_the_generated_pair() {
        let dir = tempfile::tempdir().unwrap();
        let source = CertSource {
            cert_dir: Some(dir.path().to_owned()),
            pair_name: "cloud-controller-manager".into(),
            ..CertSource::default()
        };
        source.server_config().unwrap();
        let cert = dir.path().join("cloud-controller-manager.crt");
        let first = std::fs::read(&cert).unwrap();
        source.server_config().unwrap();
        assert_eq!(first, std::fs::read(&cert).unwrap());
    }

    #[test]
    fn unreadable_files_name_the_flag_and_path() {
        let source = CertSource {
            cert_file: Some("/nonexistent/a.crt".into()),
            key_file: Some("/nonexistent/a.key".into()),
            ..CertSource::default()
        };
        let error = source.server_config().unwrap_err().to_string();
        assert!(
            error.contains("--tls-cert-file") && error.contains("/nonexistent/a.crt"),
            "{error}"
        );
    }
}
