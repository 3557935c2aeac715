//! The certificate behind `aadClientCertPath`: PEM (certificates plus an unencrypted PKCS#8 or
//! PKCS#1 RSA key) or PKCS#12/PFX decrypted with `aadClientCertPassword`; the leaf (the certificate
//! holding the key's public half) first in the chain, and its SHA-1 thumbprint for `x5t`.

use std::fmt;
use std::path::Path;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use p12_keystore::{KeyStore, Pkcs12ImportPolicy};
use ring::digest::{SHA1_FOR_LEGACY_USE_ONLY, digest};
use ring::signature::{KeyPair, RsaKeyPair};
use rustls_pemfile::Item;

use super::error::CredentialError;

/// The azure.json key naming the file, for errors.
const KEY: &str = "aadClientCertPath";

/// A signing key and its certificate chain (leaf first). `Debug` prints only the thumbprint.
pub struct Certificate {
    key: RsaKeyPair,
    chain: Vec<Vec<u8>>,
    x5t: String,
}

impl fmt::Debug for Certificate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Certificate")
            .field("x5t", &self.x5t)
            .field("chain_len", &self.chain.len())
            .finish_non_exhaustive()
    }
}

impl Certificate {
    /// Reads the file at `path`: PEM when it looks like PEM, PKCS#12 otherwise.
    pub fn load(path: &Path, password: &str) -> Result<Self, CredentialError> {
        let bytes = std::fs::read(path).map_err(|source| CredentialError::ReadFile {
            key: KEY,
            path: path.to_path_buf(),
            source,
        })?;
        if bytes.windows(11).any(|w| w == b"-----BEGIN ") {
            from_pem(&bytes, path)
        } else {
            from_pkcs12(&bytes, password, path)
        }
    }

    /// The RSA key that signs assertions.
    pub fn key(&self) -> &RsaKeyPair {
        &self.key
    }

    /// DER certificates, leaf first (the `x5c` chain).
    pub fn chain(&self) -> &[Vec<u8>] {
        &self.chain
    }

    /// `base64url(SHA-1(leaf DER))`, the `x5t` header.
    pub fn x5t(&self) -> &str {
        &self.x5t
    }
}

fn bad(path: &Path, reason: impl Into<String>) -> CredentialError {
    CredentialError::BadFile {
        key: KEY,
        path: path.to_path_buf(),
        reason: reason.into(),
    }
}

fn from_pem(bytes: &[u8], path: &Path) -> Result<Certificate, CredentialError> {
    let mut reader = bytes;
    let mut certs = Vec::new();
    let mut key = None;
    for item in rustls_pemfile::read_all(&mut reader) {
        match item.map_err(|e| bad(path, format!("unreadable PEM: {e}")))? {
            Item::X509Certificate(der) => certs.push(der.to_vec()),
            Item::Pkcs8Key(der) if key.is_none() => {
                key = Some(RsaKeyPair::from_pkcs8(der.secret_pkcs8_der()).map_err(|e| {
                    bad(path, format!("the PKCS#8 key is not a usable RSA key: {e}"))
                })?);
            }
            Item::Pkcs1Key(der) if key.is_none() => {
                key = Some(RsaKeyPair::from_der(der.secret_pkcs1_der()).map_err(|e| {
                    bad(path, format!("the PKCS#1 key is not a usable RSA key: {e}"))
                })?);
            }
            _ => {}
        }
    }
    let key = key.ok_or_else(|| {
        bad(
            path,
            "no unencrypted RSA private key (PRIVATE KEY or RSA PRIVATE KEY block) in the PEM file",
        )
    })?;
    assemble(key, certs, path)
}

fn from_pkcs12(bytes: &[u8], password: &str, path: &Path) -> Result<Certificate, CredentialError> {
    let store = KeyStore::from_pkcs12(bytes, password, Pkcs12ImportPolicy::Relaxed).map_err(
        |e| match e {
            p12_keystore::error::Error::MacError(_) => CredentialError::PfxPassword {
                path: path.to_path_buf(),
            },
            other => bad(
                path,
                format!("neither PEM nor a readable PKCS#12 file: {other}"),
            ),
        },
    )?;
    let (_, chain) = store
        .private_key_chain()
        .ok_or_else(|| bad(path, "the PKCS#12 file holds no private key"))?;
    let key = RsaKeyPair::from_pkcs8(chain.key().as_der()).map_err(|e| {
        bad(
            path,
            format!("the PKCS#12 key is not a usable RSA key: {e}"),
        )
    })?;
    let certs = chain.certs().iter().map(|c| c.as_der().to_vec()).collect();
    assemble(key, certs, path)
}

/// Puts the certificate holding `key`'s public key first and computes its thumbprint.
fn assemble(
    key: RsaKeyPair,
    mut certs: Vec<Vec<u8>>,
    path: &Path,
) -> Result<Certificate, CredentialError> {
    let public = key.public_key().as_ref().to_vec();
    let leaf = certs
        .iter()
        .position(|der| der.windows(public.len()).any(|w| w == public.as_slice()))
        .ok_or_else(|| bad(path, "no certificate in the file matches its private key"))?;
    let leaf_der = certs.remove(leaf);
    let x5t = URL_SAFE_NO_PAD.encode(digest(&SHA1_FOR_LEGACY_USE_ONLY, &leaf_der));
    certs.insert(0, leaf_der);
    Ok(Certificate {
        key,
        chain: certs,
        x5t,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const CERT: &str = include_str!("../../../../fakes/tests/fixtures/app-cert.crt");
    const OTHER_KEY: &str = include_str!("../../../../fakes/tests/fixtures/other-cert.pk8.pem");

    fn load_text(text: &str) -> Result<Certificate, CredentialError> {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("client.pem");
        std::fs::write(&path, text).expect("write");
        Certificate::load(&path, "")
    }

    #[test]
    fn pem_without_a_key_or_with_a_foreign_key_is_refused() {
        let no_key = load_text(CERT).expect_err("no key");
        assert!(
            no_key.to_string().starts_with("aadClientCertPath: ")
                && no_key
                    .to_string()
                    .contains("no unencrypted RSA private key"),
            "{no_key}"
        );
        let foreign = load_text(&format!("{CERT}{OTHER_KEY}")).expect_err("key of another cert");
        assert!(
            foreign
                .to_string()
                .contains("no certificate in the file matches its private key"),
            "{foreign}"
        );
        let junk = load_text("\u{0}\u{1}not pkcs12").expect_err("junk");
        assert!(
            matches!(
                junk,
                CredentialError::BadFile {
                    key: "aadClientCertPath",
                    ..
                }
            ),
            "{junk:?}"
        );
    }
}
