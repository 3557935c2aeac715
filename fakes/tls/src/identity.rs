//! Who is on the other end of a TLS connection, read from a verified client certificate.

use rustls::pki_types::CertificateDer;

/// Identity from a verified client certificate (CN = user, O = groups), attached to every
/// request on that connection so servers can authenticate it the way kube-apiserver does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientIdentity {
    /// Subject common name.
    pub user: String,
    /// Subject organisation entries.
    pub groups: Vec<String>,
}

impl ClientIdentity {
    /// Reads CN and O from a DER certificate; `None` when it cannot be parsed.
    pub fn from_der(cert: &CertificateDer<'_>) -> Option<Self> {
        let (_, parsed) = x509_parser::parse_x509_certificate(cert.as_ref()).ok()?;
        let subject = parsed.subject();
        let user = subject
            .iter_common_name()
            .next()?
            .as_str()
            .ok()?
            .to_string();
        let groups = subject
            .iter_organization()
            .filter_map(|o| o.as_str().ok().map(str::to_string))
            .collect();
        Some(Self { user, groups })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Pki;

    #[test]
    fn reads_user_and_groups_from_a_client_certificate() {
        let pki = Pki::generate("ca").unwrap();
        let leaf = pki
            .issue_client("system:kube-controller-manager", Some("system:masters"))
            .unwrap();
        let der = rustls_pemfile::certs(&mut leaf.cert_pem.as_bytes())
            .next()
            .unwrap()
            .unwrap();
        let id = ClientIdentity::from_der(&der).unwrap();
        assert_eq!(id.user, "system:kube-controller-manager");
        assert_eq!(id.groups, vec!["system:masters".to_string()]);
    }
}
