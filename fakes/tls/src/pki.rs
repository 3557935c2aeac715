//! A small private PKI: one CA per fake installation plus the server and client certificates it
//! signs. The CA is kept on disk so a restarted fake is still trusted by running clients.

use std::fs;
use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, KeyUsagePurpose,
};
use time::{Duration, OffsetDateTime};

use crate::TlsError;

/// File name of the CA certificate that clients are told to trust.
const CA_CERT_FILE: &str = "ca.crt";
/// File name of the CA private key (mode 0600), kept so restarts reuse the same CA.
const CA_KEY_FILE: &str = "ca.key";

/// A certificate and its private key, both PEM, as written to disk or handed to rustls.
#[derive(Clone)]
pub struct IssuedCert {
    /// Leaf certificate, PEM.
    pub cert_pem: String,
    /// Private key of the leaf, PKCS#8 PEM. Never log this.
    pub key_pem: String,
}

impl std::fmt::Debug for IssuedCert {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The key is a credential: keep it out of any debug output.
        f.debug_struct("IssuedCert")
            .field("key_pem", &"<redacted>")
            .finish_non_exhaustive()
    }
}

/// The CA of one fake installation; issues server and client certificates.
pub struct Pki {
    ca_cert_pem: String,
    issuer: Issuer<'static, KeyPair>,
}

impl std::fmt::Debug for Pki {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pki").finish_non_exhaustive()
    }
}

impl Pki {
    /// Creates a fresh CA that lives only in memory (tests that never restart a server).
    pub fn generate(common_name: &str) -> Result<Self, TlsError> {
        let key = KeyPair::generate().map_err(|source| TlsError::Generate {
            what: "CA key",
            source,
        })?;
        let mut params = CertificateParams::default();
        params.distinguished_name = name(common_name, None);
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::CrlSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        let now = OffsetDateTime::now_utc();
        params.not_before = now - Duration::days(1);
        params.not_after = now + Duration::days(3650);
        let cert = params
            .self_signed(&key)
            .map_err(|source| TlsError::Generate {
                what: "CA certificate",
                source,
            })?;
        Ok(Self {
            ca_cert_pem: cert.pem(),
            issuer: Issuer::new(params, key),
        })
    }

    /// Loads the CA from `dir` when present, otherwise creates one and writes it there, so a
    /// restarted server keeps the trust its clients already have.
    pub fn load_or_create(dir: &Path, common_name: &str) -> Result<Self, TlsError> {
        let cert_path = dir.join(CA_CERT_FILE);
        let key_path = dir.join(CA_KEY_FILE);
        if cert_path.exists() && key_path.exists() {
            let ca_cert_pem = read(&cert_path)?;
            let key_pem = read(&key_path)?;
            let key = KeyPair::from_pem(&key_pem).map_err(|e| TlsError::BadPem {
                path: key_path.clone(),
                reason: e.to_string(),
            })?;
            let issuer =
                Issuer::from_ca_cert_pem(&ca_cert_pem, key).map_err(|e| TlsError::BadPem {
                    path: cert_path.clone(),
                    reason: e.to_string(),
                })?;
            return Ok(Self {
                ca_cert_pem,
                issuer,
            });
        }
        let pki = Self::generate(common_name)?;
        fs::create_dir_all(dir).map_err(|source| TlsError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        write(&cert_path, &pki.ca_cert_pem, false)?;
        write(&key_path, &pki.issuer.key().serialize_pem(), true)?;
        Ok(pki)
    }

    /// The CA certificate clients must trust, PEM.
    pub fn ca_pem(&self) -> &str {
        &self.ca_cert_pem
    }

    /// Writes the CA certificate (never the key) to `dir/ca.crt` and returns the path.
    pub fn write_ca(&self, dir: &Path) -> Result<PathBuf, TlsError> {
        fs::create_dir_all(dir).map_err(|source| TlsError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let path = dir.join(CA_CERT_FILE);
        write(&path, &self.ca_cert_pem, false)?;
        Ok(path)
    }

    /// Issues a serving certificate valid for `localhost`, 127.0.0.1, ::1 and `extra_hosts`.
    pub fn issue_server(&self, extra_hosts: &[&str]) -> Result<IssuedCert, TlsError> {
        let mut sans: Vec<String> = vec!["localhost".into(), "127.0.0.1".into(), "::1".into()];
        sans.extend(extra_hosts.iter().map(|h| (*h).to_string()));
        sans.dedup();
        let mut params = CertificateParams::new(sans).map_err(|source| TlsError::Generate {
            what: "server certificate names",
            source,
        })?;
        params.distinguished_name = name("azure-fakes server", None);
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        self.sign_leaf(params, "server certificate")
    }

    /// Issues a client certificate whose CN is the user and whose O is the group, as the
    /// Kubernetes API server reads them (rcgen writes one value per attribute type, so one group).
    pub fn issue_client(&self, user: &str, group: Option<&str>) -> Result<IssuedCert, TlsError> {
        let mut params = CertificateParams::default();
        params.distinguished_name = name(user, group);
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
        self.sign_leaf(params, "client certificate")
    }

    fn sign_leaf(
        &self,
        mut params: CertificateParams,
        what: &'static str,
    ) -> Result<IssuedCert, TlsError> {
        let key = KeyPair::generate().map_err(|source| TlsError::Generate { what, source })?;
        let now = OffsetDateTime::now_utc();
        params.not_before = now - Duration::hours(1);
        params.not_after = now + Duration::days(365);
        params.key_usages = vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyEncipherment,
        ];
        params.use_authority_key_identifier_extension = true;
        let cert = params
            .signed_by(&key, &self.issuer)
            .map_err(|source| TlsError::Generate { what, source })?;
        Ok(IssuedCert {
            cert_pem: cert.pem(),
            key_pem: key.serialize_pem(),
        })
    }
}

fn name(common_name: &str, organization: Option<&str>) -> DistinguishedName {
    let mut dn = DistinguishedName::new();
    if let Some(org) = organization {
        dn.push(DnType::OrganizationName, org);
    }
    dn.push(DnType::CommonName, common_name);
    dn
}

fn read(path: &Path) -> Result<String, TlsError> {
    fs::read_to_string(path).map_err(|source| TlsError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Writes a PEM file; private keys are created 0600 so other local users cannot read them.
fn write(path: &Path, contents: &str, private: bool) -> Result<(), TlsError> {
    let io = |source| TlsError::Io {
        path: path.to_path_buf(),
        source,
    };
    #[cfg(unix)]
    {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let mode = if private { 0o600 } else { 0o644 };
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(mode)
            .open(path)
            .map_err(io)?;
        file.write_all(contents.as_bytes()).map_err(io)
    }
    #[cfg(not(unix))]
    {
        let _ = private;
        fs::write(path, contents).map_err(io)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reloaded_ca_signs_certificates_chaining_to_the_same_root() {
        let dir = tempfile::tempdir().unwrap();
        let first = Pki::load_or_create(dir.path(), "test-ca").unwrap();
        let second = Pki::load_or_create(dir.path(), "test-ca").unwrap();
        assert_eq!(first.ca_pem(), second.ca_pem());
        let leaf = second.issue_server(&[]).unwrap();
        let (_, pem) = x509_parser::pem::parse_x509_pem(leaf.cert_pem.as_bytes()).unwrap();
        let cert = pem.parse_x509().unwrap();
        let (_, ca_pem) = x509_parser::pem::parse_x509_pem(first.ca_pem().as_bytes()).unwrap();
        let ca = ca_pem.parse_x509().unwrap();
        assert_eq!(cert.issuer(), ca.subject());
        cert.verify_signature(Some(ca.public_key())).unwrap();
    }

    #[test]
    fn ca_key_file_is_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        Pki::load_or_create(dir.path(), "test-ca").unwrap();
        let mode = fs::metadata(dir.path().join(CA_KEY_FILE))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn debug_output_hides_private_keys() {
        let pki = Pki::generate("test-ca").unwrap();
        let leaf = pki.issue_client("alice", Some("system:masters")).unwrap();
        let shown = format!("{leaf:?} {pki:?}");
        assert!(!shown.contains("PRIVATE KEY"), "{shown}");
    }
}
