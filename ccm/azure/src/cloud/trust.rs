//! The one HTTPS client builder every Azure call uses: rustls with ring, the system roots, plus the
//! CAs in `SSL_CERT_FILE` / `SSL_CERT_DIR` (the variables Go's `crypto/x509` reads on Linux), so the
//! environment that points the upstream CCM at a private CA or the fake cloud works for ours too.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::error::CloudError;

/// `SSL_CERT_FILE`: one PEM bundle of extra roots.
pub const SSL_CERT_FILE: &str = "SSL_CERT_FILE";
/// `SSL_CERT_DIR`: `:`-separated directories of PEM files.
pub const SSL_CERT_DIR: &str = "SSL_CERT_DIR";

/// Extra roots named by the environment (`env` holds the process environment or a test's).
pub fn extra_roots(
    env: &BTreeMap<String, String>,
) -> Result<Vec<reqwest::Certificate>, CloudError> {
    let mut roots = Vec::new();
    if let Some(file) = env.get(SSL_CERT_FILE).filter(|f| !f.is_empty()) {
        let path = PathBuf::from(file);
        let pem = std::fs::read(&path).map_err(|e| CloudError::TrustFile {
            variable: SSL_CERT_FILE,
            path: path.clone(),
            reason: e.to_string(),
        })?;
        let certs = certificates(&pem).map_err(|reason| CloudError::TrustFile {
            variable: SSL_CERT_FILE,
            path: path.clone(),
            reason,
        })?;
        if certs.is_empty() {
            return Err(CloudError::TrustFile {
                variable: SSL_CERT_FILE,
                path,
                reason: "no PEM certificate in it".to_string(),
            });
        }
        roots.extend(certs);
    }
    if let Some(dirs) = env.get(SSL_CERT_DIR) {
        for dir in dirs.split(':').filter(|d| !d.is_empty()) {
            roots.extend(directory(Path::new(dir))?);
        }
    }
    Ok(roots)
}

/// Every certificate of every readable PEM file in `dir` (other files are skipped, as Go skips them).
fn directory(dir: &Path) -> Result<Vec<reqwest::Certificate>, CloudError> {
    let entries = std::fs::read_dir(dir).map_err(|e| CloudError::TrustFile {
        variable: SSL_CERT_DIR,
        path: dir.to_path_buf(),
        reason: e.to_string(),
    })?;
    let mut roots = Vec::new();
    for entry in entries.flatten() {
        if let Ok(pem) = std::fs::read(entry.path()) {
            roots.extend(certificates(&pem).unwrap_or_default());
        }
    }
    Ok(roots)
}

fn certificates(pem: &[u8]) -> Result<Vec<reqwest::Certificate>, String> {
    let mut reader = pem;
    rustls_pemfile::certs(&mut reader)
        .map(|der| {
            let der = der.map_err(|e| e.to_string())?;
            reqwest::Certificate::from_der(&der).map_err(|e| e.to_string())
        })
        .collect()
}

/// A client builder trusting the system roots plus the environment's extra roots, with ring as
/// the process's rustls provider.
pub fn client_builder(
    env: &BTreeMap<String, String>,
) -> Result<reqwest::ClientBuilder, CloudError> {
    // One TLS stack: ring. Installing twice is harmless (the first provider stays).
    let _ = rustls::crypto::ring::default_provider().install_default();
    Ok(reqwest::Client::builder().tls_certs_merge(extra_roots(env)?))
}

/// [`client_builder`] built, with the process environment.
pub fn client_from_process_env() -> Result<reqwest::Client, CloudError> {
    let env = std::env::vars()
        .filter(|(k, _)| k == SSL_CERT_FILE || k == SSL_CERT_DIR)
        .collect();
    client_builder(&env)?
        .build()
        .map_err(|e| CloudError::Client(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unreadable_trust_file_names_the_variable_and_path() {
        let env = BTreeMap::from([(SSL_CERT_FILE.to_string(), "/nonexistent/ca.pem".to_string())]);
        let error = extra_roots(&env).expect_err("missing file");
        assert!(
            error
                .to_string()
                .starts_with("SSL_CERT_FILE: cannot use /nonexistent/ca.pem"),
            "{error}"
        );
    }

    #[test]
    fn a_file_without_certificates_is_refused_and_dirs_skip_junk() {
        let dir = tempfile::tempdir().expect("tempdir");
        let junk = dir.path().join("junk.pem");
        std::fs::write(&junk, "not a certificate").expect("write");
        let env = BTreeMap::from([(SSL_CERT_FILE.to_string(), junk.display().to_string())]);
        assert!(extra_roots(&env).is_err());
        let env = BTreeMap::from([(SSL_CERT_DIR.to_string(), dir.path().display().to_string())]);
        assert_eq!(extra_roots(&env).expect("dir").len(), 0);
    }
}
